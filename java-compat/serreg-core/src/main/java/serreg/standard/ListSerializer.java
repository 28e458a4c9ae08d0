package serreg.standard;

import java.util.List;
import java.util.RandomAccess;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.InlineSerializer;
import serreg.MsgpackSerializer;
import serreg.SerializerRegistry;

/** Class ID {@code list}: any {@code java.util.List}, msgpack array; decodes to {@code ArrayList}. */
public final class ListSerializer extends MsgpackSerializer<List<?>> implements InlineSerializer<List<?>> {
    public ListSerializer(SerializerRegistry registry) {
        super(registry);
    }

    /** The writer writes these values itself (docs/FORMAT.md section 3): the same bytes as {@link #writeInline}. */
    @Override
    public Form inlineForm() {
        return Form.ARRAY;
    }

    @Override
    public void writeInline(List<?> value, InBandWriter out) {
        write(value, out);
    }

    @Override
    protected void write(List<?> value, InBandWriter out) {
        int n = value.size();
        if (n > 0 && out.writeStructList(value)) {
            return; // struct instances of one definition: ext 2 (docs/FORMAT.md section 10.3)
        }
        out.writeArrayHeader(n);
        if (value instanceof RandomAccess) {
            // A run of nested values of one class (a list of points) in one call, then value by value.
            for (int i = out.writeNestedValues(value, 0); i < n; i++) {
                out.writeValue(value.get(i));
            }
            return;
        }
        for (Object item : value) {
            out.writeValue(item);
        }
    }

    @Override
    protected List<?> read(InBandReader in) {
        List<Object> columns = in.readStructList();
        if (columns != null) {
            return columns;
        }
        int n = in.openArray();
        List<Object> list = in.newListForItems(n);
        // A list of short ASCII strs, or of nested values, in one call; the rest (or a list of
        // anything else) value by value.
        int i = in.readAsciiStrings(list, n);
        i += in.readNestedValues(list, n - i);
        for (; i < n; i++) {
            list.add(in.readValue());
        }
        in.closeContainer();
        return list;
    }
}
