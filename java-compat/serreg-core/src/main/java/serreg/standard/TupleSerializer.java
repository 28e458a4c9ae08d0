package serreg.standard;

import java.util.List;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.MsgpackSerializer;
import serreg.SerializerRegistry;
import serreg.types.Tuple;

/** Class ID {@code tuple}: {@link Tuple}, msgpack array of the elements. */
public final class TupleSerializer extends MsgpackSerializer<Tuple> {
    public TupleSerializer(SerializerRegistry registry) {
        super(registry);
    }

    @Override
    protected void write(Tuple value, InBandWriter out) {
        out.writeArrayHeader(value.size());
        for (Object item : value.items()) {
            out.writeValue(item);
        }
    }

    @Override
    protected Tuple read(InBandReader in) {
        int n = in.openArray();
        List<Object> items = InBandReader.newList(n);
        for (int i = 0; i < n; i++) {
            items.add(in.readValue());
        }
        in.closeContainer();
        return Tuple.copyOf(items);
    }
}
