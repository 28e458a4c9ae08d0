package serreg.standard;

import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.InlineSerializer;
import serreg.MsgpackSerializer;
import serreg.SerializerRegistry;

/** Class ID {@code float}: {@code Double}, msgpack float 64 with its bit pattern kept. */
public final class FloatSerializer extends MsgpackSerializer<Double> implements InlineSerializer<Double> {
    public FloatSerializer(SerializerRegistry registry) {
        super(registry);
    }

    /** The writer writes these values itself (docs/FORMAT.md section 3): the same bytes as {@link #writeInline}. */
    @Override
    public Form inlineForm() {
        return Form.FLOAT;
    }

    @Override
    public void writeInline(Double value, InBandWriter out) {
        out.writeDouble(value);
    }

    @Override
    protected void write(Double value, InBandWriter out) {
        out.writeDouble(value);
    }

    @Override
    protected Double read(InBandReader in) {
        return in.readDouble();
    }
}
