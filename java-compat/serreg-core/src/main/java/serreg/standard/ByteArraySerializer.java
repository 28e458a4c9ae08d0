package serreg.standard;

import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.MsgpackSerializer;
import serreg.SerializerRegistry;
import serreg.types.PyByteArray;

/** Class ID {@code bytearray}: {@link PyByteArray}, nil plus one OOB buffer (a view of the frame when read). */
public final class ByteArraySerializer extends MsgpackSerializer<PyByteArray> {
    public ByteArraySerializer(SerializerRegistry registry) {
        super(registry);
    }

    @Override
    protected void write(PyByteArray value, InBandWriter out) {
        out.writeNil().addOutOfBand(value.data());
    }

    @Override
    protected PyByteArray read(InBandReader in) {
        if (!in.tryReadNil()) {
            throw in.error("bytearray in-band must be nil, found " + in.nextFormat(), in.offset());
        }
        return new PyByteArray(in.nextOutOfBand("bytearray"));
    }
}
