package serreg.standard;

import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.InlineSerializer;
import serreg.MsgpackSerializer;
import serreg.SerializerRegistry;

/** Class ID {@code str}: {@code String}, msgpack str (strict UTF-8; lone surrogates refused). */
public final class StrSerializer extends MsgpackSerializer<String> implements InlineSerializer<String> {
    public StrSerializer(SerializerRegistry registry) {
        super(registry);
    }

    /** The writer writes these values itself (docs/FORMAT.md section 3): the same bytes as {@link #writeInline}. */
    @Override
    public Form inlineForm() {
        return Form.STR;
    }

    @Override
    public void writeInline(String value, InBandWriter out) {
        out.writeString(value);
    }

    @Override
    protected void write(String value, InBandWriter out) {
        out.writeString(value);
    }

    @Override
    protected String read(InBandReader in) {
        return in.readString();
    }
}
