package serreg.standard;

import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.MsgpackSerializer;
import serreg.SerializerRegistry;
import serreg.types.Complex;

/** Class ID {@code complex}: {@link Complex}, array [real, imag] of float 64. */
public final class ComplexSerializer extends MsgpackSerializer<Complex> {
    public ComplexSerializer(SerializerRegistry registry) {
        super(registry);
    }

    @Override
    protected void write(Complex value, InBandWriter out) {
        out.writeArrayHeader(2).writeDouble(value.real()).writeDouble(value.imag());
    }

    @Override
    protected Complex read(InBandReader in) {
        in.readArrayHeader(2, "complex in-band");
        return new Complex(in.readDouble(), in.readDouble());
    }
}
