package serreg.structs;

import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.MsgpackSerializer;
import serreg.SerializerRegistry;
import serreg.wire.ClassIdHash;

/**
 * {@code serreg.structs} (docs/FORMAT.md section 10.1): reads a frame's struct table, then the
 * value's own section after it with the table in scope. Never written on its own: the registry
 * puts the table in front of a value that holds structs.
 *
 * <p>Reading takes the reader the registry hands a msgpack serializer (inside a frame, the
 * thread's pooled one), and the value after the table is read by that same reader: a struct
 * instance directly, any other section as a nested value ({@link InBandReader#readTrailingSection}),
 * so a round trip makes no reader of its own.
 */
public final class TableSerializer extends MsgpackSerializer<Object> {
    /** The type {@code serreg.structs} is bound to; no value is ever of this type. */
    public static final class Marker {
        private Marker() {
        }
    }

    /**
     * The table reader of {@code registry}.
     *
     * @param registry the registry
     */
    public TableSerializer(SerializerRegistry registry) {
        super(registry);
    }

    /** Never called with a value: the registry writes the table around a value. */
    @Override
    protected void write(Object value, InBandWriter out) {
        throw new UnsupportedOperationException("serreg.structs is written by the registry around a value");
    }

    /**
     * Reads the table and the value after it.
     *
     * @param in a reader of this section's in-band (table + inner section)
     * @return the value
     */
    @Override
    protected Object read(InBandReader in) {
        DecodeScope.Entry[] table = ((StructRegistry) registry.structs()).readTable(in);
        long hash = in.peekClassIdHash("the value after the struct table");
        StructFrames.push(table);
        try {
            for (DecodeScope.Entry entry : table) {
                if (entry.hash() == hash) {
                    in.skip(ClassIdHash.SIZE, "a ClassIDHash");
                    return StructFrames.readInstance(in);
                }
            }
            return in.readTrailingSection();
        } finally {
            StructFrames.pop();
        }
    }
}
