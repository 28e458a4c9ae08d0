package serreg;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.BiFunction;

/**
 * The struct support of a registry (docs/FORMAT.md section 10), implemented in {@code serreg.structs}
 * and found through {@link java.util.ServiceLoader}, so that this package names none of its classes
 * (the twin of the way {@link SerializerModule}s are found).
 */
public interface StructSupport {
    /**
     * Registers {@code cls} as the struct {@code classId} (see {@link SerializerRegistry#registerStruct}).
     *
     * @param cls the class
     * @param classId its class ID
     */
    void register(Class<?> cls, String classId);

    /**
     * The canonical stand-in of a struct value (docs/FORMAT.md section 10.5): a data carrier with
     * the definition of {@code value}'s class (a carrier's own, re-encoded canonically) and every
     * field value canonical for its declared type, or null when {@code value} is not a struct.
     * Map entries are sorted by their keys' bytes, which hold struct indices: call it inside the
     * table the value is written with (see {@link Provider#openTable}).
     *
     * @param value any value
     * @param depth the nesting depth of {@code value} (a struct counts one level)
     * @param canonical the canonical stand-in of a value of any type at a depth (for fields of
     *     type {@code any} and the standard types)
     * @return the stand-in, or null
     * @throws CanonicalFormException if a field value has no canonical form
     */
    Object canonicalInstance(Object value, int depth, BiFunction<Object, Integer, Object> canonical);

    /** The struct table of one serialize call on this thread (docs/FORMAT.md section 10.1). */
    interface Table extends AutoCloseable {
        /**
         * The in-band section with the table in front, or null when no struct was written.
         *
         * @param section the value's own in-band section (ClassIDHash + serializer in-band)
         * @param value the value (a top-level carrier writes its own class ID's hash)
         * @return the new in-band section, or null
         */
        byte[] wrap(ByteBuffer section, Object value);

        /**
         * The contiguous frame of the value, the table in front of its section (written once,
         * straight into the frame's array), or null when no struct was written.
         *
         * @param section the value's own in-band section (ClassIDHash + serializer in-band)
         * @param outOfBand its OOB buffers
         * @param value the value (a top-level carrier writes its own class ID's hash)
         * @param key the signing key, or null
         * @return the frame, or null
         */
        ByteBuffer toFrame(ByteBuffer section, List<ByteBuffer> outOfBand, Object value, byte[] key);

        /**
         * The definitions written so far, in index order.
         *
         * @return the packed definitions (not to be changed)
         */
        List<byte[]> definitions();

        /** Closes the table: the thread's enclosing one, if any, is current again. */
        @Override
        void close();
    }

    /** Makes the struct support of a registry and reads struct instances (msgpack ext 1). */
    interface Provider {
        /**
         * The struct support of {@code registry}.
         *
         * @param registry the registry it serves
         * @return its struct support
         */
        StructSupport create(SerializerRegistry registry);

        /**
         * Reads one ext 1 payload (an instance array) from {@code in}, through the enclosing struct table.
         *
         * @param in a reader bounded to the payload
         * @return the instance
         */
        Object readInstance(InBandReader in);

        /**
         * Reads one ext 2 payload (a list of instances by columns, docs/FORMAT.md section 10.3)
         * from {@code in}, through the enclosing struct table.
         *
         * @param in a reader bounded to the payload
         * @return the instances
         */
        java.util.List<Object> readInstances(InBandReader in);

        /**
         * Writes {@code list} as ext 2 when the rule of docs/FORMAT.md section 10.3 applies (at
         * least one item, all struct instances of one definition with at least one field).
         *
         * @param list the list
         * @param out the writer
         * @return true when written; false (nothing written) when the list stays an array
         */
        boolean writeStructList(java.util.List<?> list, InBandWriter out);

        /**
         * Opens the struct table of a serialize call on this thread (nested calls get their own).
         *
         * @param order null: definitions take indices in first-use order; otherwise every index is
         *     fixed in advance (the canonical form's sorted table), and a definition not listed is
         *     refused with a SerializationException
         * @return the table, to close when the call ends
         */
        Table openTable(List<byte[]> order);

        /**
         * Whether {@code serializer} writes struct instances (ext 1 inside documents, section 10.3).
         *
         * @param serializer a registered serializer
         * @return true for the struct and carrier serializers
         */
        boolean writesInstances(Serializer<?> serializer);
    }
}
