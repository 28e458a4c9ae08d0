package serreg.standard;

import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.InlineSerializer;
import serreg.MsgpackSerializer;
import serreg.SerializerRegistry;

/** Class ID {@code bool}: {@code Boolean}, msgpack true/false. */
public final class BoolSerializer extends MsgpackSerializer<Boolean> implements InlineSerializer<Boolean> {
    public BoolSerializer(SerializerRegistry registry) {
        super(registry);
    }

    /** The writer writes these values itself (docs/FORMAT.md section 3): the same bytes as {@link #writeInline}. */
    @Override
    public Form inlineForm() {
        return Form.BOOL;
    }

    @Override
    public void writeInline(Boolean value, InBandWriter out) {
        out.writeBoolean(value);
    }

    @Override
    protected void write(Boolean value, InBandWriter out) {
        out.writeBoolean(value);
    }

    @Override
    protected Boolean read(InBandReader in) {
        return in.readBoolean();
    }
}
