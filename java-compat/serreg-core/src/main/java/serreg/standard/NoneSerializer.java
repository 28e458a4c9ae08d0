package serreg.standard;

import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.InlineSerializer;
import serreg.MsgpackSerializer;
import serreg.SerializerRegistry;

/** Class ID {@code None}: Java {@code null}, msgpack nil. */
public final class NoneSerializer extends MsgpackSerializer<Void> implements InlineSerializer<Void> {
    public NoneSerializer(SerializerRegistry registry) {
        super(registry);
    }

    /** The writer writes these values itself (docs/FORMAT.md section 3): the same bytes as {@link #writeInline}. */
    @Override
    public Form inlineForm() {
        return Form.NIL;
    }

    @Override
    public void writeInline(Void value, InBandWriter out) {
        out.writeNil();
    }

    @Override
    protected void write(Void value, InBandWriter out) {
        out.writeNil();
    }

    @Override
    protected Void read(InBandReader in) {
        if (!in.tryReadNil()) {
            throw in.error("None must be msgpack nil, found " + in.nextFormat(), in.offset());
        }
        return null;
    }
}
