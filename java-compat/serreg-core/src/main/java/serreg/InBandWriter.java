package serreg;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import serreg.types.HasClassId;
import serreg.types.OpaqueValue;

/**
 * Writes one serializer's in-band msgpack document and collects its OOB buffers.
 *
 * <p>{@link #writeValue} writes any value: natively when its serializer is an
 * {@link InlineSerializer}, otherwise as ext 0 holding the nested value's in-band section, whose
 * OOB buffers are appended to this writer's list at that moment (docs/FORMAT.md section 3).
 * Every integer and length gets msgpack's shortest encoding; text is strict UTF-8.
 *
 * <p>The document is written into one byte array grown geometrically. A nested value is written
 * in place: its ext 0 header is reserved, its ClassIDHash and in-band are written right after it
 * (a {@link MsgpackSerializer}'s {@code write} is called on this same writer), and the header is
 * patched once the length is known (the payload moves only when the shortest header is not the
 * reserved ext 8 one). The scalar, str, bin and header writes, and the array they write into, are
 * {@link ScalarWriter}'s (strings encoded straight into the array, ASCII byte for byte).
 * Values whose serializer declares one of the writer's own forms ({@link InlineSerializer#inlineForm}:
 * null, Boolean, Long, Double, String, List, Map with the standard serializers) are written by the
 * writer itself, without two calls into the serializer per value. The header encodings are
 * {@link InBandLayout}'s; the registrations of the classes met are cached in a
 * {@link WriterClassCache}. Not thread-safe; one writer per serialize call (a pooled writer, with
 * its array and cache, is reused by the next call on its thread once released).
 */
public final class InBandWriter extends ScalarWriter {
    /** The ext 8 header (0xc7, length, type) reserved before a nested value. */
    private static final int RESERVED_EXT_HEADER = 3;
    private final SerializerRegistry registry;
    private final ValueEncoder encoder;
    private final WriterClassCache classes;
    private List<ByteBuffer> outOfBand;
    /** What {@link #written} returns, kept with the pooled writer. */
    private ByteBuffer view;
    /** The thread whose pool this writer goes back to on {@link #release}, or null when it is not pooled. */
    private final PerThread home;
    /** What {@link #writeMap} hands to {@code Map.forEach}: one per writer, so writing a map allocates nothing. */
    private final BiConsumer<Object, Object> entryWriter = (key, value) -> {
        writeValue(key);
        writeValue(value);
    };

    /**
     * A writer for one document.
     *
     * @param registry the registry nested values are looked up in
     */
    public InBandWriter(SerializerRegistry registry) {
        this(registry, new byte[64], null);
    }

    /** A writer on {@code buf}; a pooled one (a {@code home} thread) goes back to {@link WriterPool} on {@link #release}. */
    InBandWriter(SerializerRegistry registry, byte[] buf, PerThread home) {
        super(buf);
        this.registry = registry;
        this.encoder = registry.encoder();
        this.classes = new WriterClassCache(encoder);
        this.home = home;
    }

    /** This thread's pooled writer for {@code registry} (see {@link WriterPool}); call {@link #release} when done. */
    static InBandWriter pooled(SerializerRegistry registry) {
        return WriterPool.take(registry);
    }

    /** Hands a pooled writer back to its thread (emptied); the caller must not use it afterwards. */
    void release() {
        if (home != null) {
            pos = 0;
            outOfBand = null;
            WriterPool.give(this, home);
        }
    }

    /** Readies a writer taken from the pool for a new document (its class cache may be stale). */
    void reuse() {
        classes.revalidate();
    }

    /** The writer's array (for a pooled writer of another registry on this thread to take over). */
    byte[] array() {
        return buf;
    }

    public SerializerRegistry registry() {
        return registry;
    }

    /** Writes any value (native msgpack or ext 0). Small, so that it inlines where values are written in a loop. */
    public InBandWriter writeValue(Object value) {
        if (value instanceof String s && classes.stringsInline()) {
            return writeString(s);
        }
        RegistrationTable.Registration registration = classes.forValue(value);
        InlineSerializer.Form form = registration.form();
        if (form == InlineSerializer.Form.INT && value instanceof Long l) {
            return writeLong(l);
        }
        if (form == InlineSerializer.Form.FLOAT && value instanceof Double d) {
            return writeDouble(d);
        }
        return writeOther(value, registration, form);
    }

    /** Any value but a String, Long or Double written in the writer's own form. */
    private InBandWriter writeOther(Object value, RegistrationTable.Registration registration, InlineSerializer.Form form) {
        if (form == InlineSerializer.Form.CALL) {
            return writeByRegistration(value, registration); // a nested value of any other serializer
        }
        switch (form) {
            case NIL -> {
                if (value == null) {
                    return writeNil();
                }
            }
            case BOOL -> {
                if (value instanceof Boolean b) {
                    return writeBoolean(b);
                }
            }
            case ARRAY -> {
                if (value instanceof List<?> list) {
                    return writeArray(list);
                }
            }
            case MAP -> {
                if (value instanceof Map<?, ?> map) {
                    return writeMap(map);
                }
            }
            default -> {
            }
        }
        return writeByRegistration(value, registration);
    }

    private InBandWriter writeArray(List<?> list) {
        int n = list.size();
        if (n > 0 && writeStructList(list)) {
            return this; // struct instances of one definition: ext 2 (section 10.3)
        }
        writeArrayHeader(n);
        if (list instanceof ArrayList<?>) {
            for (int i = writeNestedValues(list, 0); i < n; i++) {
                writeValue(list.get(i));
            }
        } else {
            for (Object item : list) {
                writeValue(item);
            }
        }
        return this;
    }

    /**
     * Whether a list's first item may be a struct instance: not one of the values the writer
     * writes itself. Checked by type first, so that a list of those (most lists) costs no
     * registration lookup here, and the JIT compiles the lookup out of this hot path.
     */
    private static boolean mayBeStruct(Object first) {
        return first != null && !(first instanceof String) && !(first instanceof Long) && !(first instanceof Double)
                && !(first instanceof Map) && !(first instanceof List) && !(first instanceof Boolean);
    }

    /**
     * Writes the run of nested values that starts at index {@code from} of {@code list}: items of
     * one class whose serializer is a {@link MsgpackSerializer} writing them as ext 0 (not inline,
     * not a struct), each exactly as {@link #writeValue} writes it, in one loop without looking
     * the class up again. Stops before the first item of another class (or null) and returns its
     * index; returns {@code from} when the item there is not such a value (a String, a number, a
     * map, ...). A list writer calls it before its loop: a list of points is then written in one
     * call, a list of anything else costs one check.
     *
     * @param list the items (a list with fast indexed access)
     * @param from the index of the first item to write
     * @return the index of the first item not written
     */
    public int writeNestedValues(List<?> list, int from) {
        int n = list.size();
        if (from >= n) {
            return from;
        }
        Object first = list.get(from);
        if (!mayBeStruct(first) || first instanceof OpaqueValue || first instanceof HasClassId) {
            return from;
        }
        RegistrationTable.Registration registration = classes.forValue(first);
        MsgpackSerializer<Object> msgpack = registration.msgpack();
        if (msgpack == null || registration.inline() != null || registration.struct()) {
            return from;
        }
        return writeNestedRun(list, from, n, first.getClass(), registration, msgpack);
    }

    /** The loop of {@link #writeNestedValues}: ext 0 headers patched in place, the ClassIDHash written once per item. */
    private int writeNestedRun(List<?> list, int from, int n, Class<?> cls, RegistrationTable.Registration registration,
            MsgpackSerializer<Object> msgpack) {
        long hash = registration.hash().toLong();
        int i = from;
        Object value = null;
        try {
            for (; i < n; i++) {
                value = list.get(i);
                if (value == null || value.getClass() != cls) {
                    break;
                }
                int headerAt = reserveExtHeader();
                Bytes.putLongLE(buf, pos, hash); // reserveExtHeader made room for it
                pos += 8;
                msgpack.write(value, this);
                patchExtHeader(headerAt, headerAt + RESERVED_EXT_HEADER, InBandLayout.NESTED_EXT_TYPE);
            }
            return i;
        } catch (SerregException e) {
            throw e;
        } catch (RuntimeException e) {
            throw ValueEncoder.failure(registration, value, e);
        }
    }

    /**
     * Writes a non-empty list as ext 2 (struct columns, docs/FORMAT.md section 10.3) when its items
     * are struct instances of one definition; false (nothing written) when it stays an array.
     */
    public boolean writeStructList(List<?> list) {
        Object first = list.get(0);
        return mayBeStruct(first) && classes.forValue(first).struct() && SerializerRegistry.STRUCTS.writeStructList(list, this);
    }

    /**
     * Writes a map: its header, then each key and value as {@link #writeValue} writes them, in
     * the map's iteration order. Through {@code Map.forEach} (this writer's one entry writer):
     * no iterator or entry object per map, whatever the map's class.
     *
     * @param map the map
     * @return this writer
     */
    @SuppressWarnings("unchecked")
    public InBandWriter writeMap(Map<?, ?> map) {
        writeMapHeader(map.size());
        ((Map<Object, Object>) map).forEach(entryWriter);
        return this;
    }

    /**
     * Reserves an ext header before a payload the caller writes next (the struct support's ext 2);
     * pass what it returns to {@link #endExtension} once the payload is written.
     */
    public int beginExtension() {
        return reserveExtHeader();
    }

    /** Writes the shortest ext header of {@code type} for the payload written since {@link #beginExtension}. */
    public void endExtension(int headerAt, int type) {
        patchExtHeader(headerAt, headerAt + RESERVED_EXT_HEADER, type);
    }

    /**
     * Takes back an extension begun with {@link #beginExtension} and everything written since (a
     * writer that finds, part way through, that the value is to be written another way): the
     * writer is back where it was before that call. Out-of-band buffers added since stay added.
     *
     * @param headerAt what {@link #beginExtension} returned
     */
    public void abandonExtension(int headerAt) {
        if (headerAt < 0 || headerAt > pos) {
            throw new IllegalArgumentException("no extension begun at " + headerAt + " (the writer is at " + pos + ")");
        }
        pos = headerAt;
    }

    /** A value the writer does not write by itself: inline through its serializer, or as ext 0 / ext 1. */
    private InBandWriter writeByRegistration(Object value, RegistrationTable.Registration registration) {
        if (value instanceof OpaqueValue opaque) {
            int headerAt = reserveExtHeader();
            int start = pos;
            writeSectionOf(opaque);
            patchExtHeader(headerAt, start, InBandLayout.NESTED_EXT_TYPE);
            return this;
        }
        InlineSerializer<Object> inline = registration.inline();
        if (inline != null && inline.writesInline(value)) {
            inline.writeInline(value, this);
        } else if (registration.struct()) {
            // A struct instance: ext 1 holding [definition index, fields...] (section 10.3), no ClassIDHash.
            int headerAt = reserveExtHeader();
            int start = pos;
            encoder.writeBody(registration, value, this);
            patchExtHeader(headerAt, start, InBandLayout.STRUCT_EXT_TYPE);
        } else {
            int headerAt = reserveExtHeader();
            int start = pos;
            Bytes.putLongLE(buf, pos, registration.hash().toLong()); // reserveExtHeader made room for it
            pos += 8;
            encoder.writeBody(registration, value, this);
            patchExtHeader(headerAt, start, InBandLayout.NESTED_EXT_TYPE);
        }
        return this;
    }

    /** Writes an opaque value's in-band section (its ClassIDHash and in-band, as received) and takes its buffers. */
    void writeSectionOf(OpaqueValue opaque) {
        writeHash(opaque.classIdHash().toLong());
        writeRaw(opaque.inBand());
        for (ByteBuffer b : opaque.outOfBand()) {
            addOutOfBand(b);
        }
    }


    /** Reserves the ext 8 header and makes room for the ClassIDHash after it. */
    private int reserveExtHeader() {
        ensure(RESERVED_EXT_HEADER + 8);
        int at = pos;
        pos += RESERVED_EXT_HEADER;
        return at;
    }

    /** Writes the shortest ext header of {@code type} for the payload written since {@code start}, moving it if needed. */
    private void patchExtHeader(int headerAt, int start, int type) {
        int length = pos - start;
        if (length > 16 && length <= 0xff) { // ext 8, the header reserved (most small nested values)
            buf[headerAt] = (byte) 0xc7;
            buf[headerAt + 1] = (byte) length;
            buf[headerAt + 2] = (byte) type;
            return;
        }
        int size = InBandLayout.extHeaderSize(length);
        if (size != RESERVED_EXT_HEADER) {
            ensure(size - RESERVED_EXT_HEADER);
            System.arraycopy(buf, start, buf, headerAt + size, length);
            pos = headerAt + size + length;
        }
        InBandLayout.putExtHeader(buf, headerAt, length, type);
    }

    /** Appends an OOB buffer (held by reference, not copied). */
    public InBandWriter addOutOfBand(ByteBuffer buffer) {
        if (outOfBand == null) {
            outOfBand = new ArrayList<>(4);
        }
        outOfBand.add(buffer);
        return this;
    }

    /** The document written so far as a serializer result (its bytes copied to an array of their own). */
    public SerializationResult finish() {
        return new SerializationResult(ByteBuffer.wrap(java.util.Arrays.copyOf(buf, pos)), outOfBand());
    }

    /** The bytes written so far, a view of this writer's array (valid until it writes again or is released). */
    ByteBuffer written() {
        ByteBuffer v = view;
        if (v == null || v.array() != buf) {
            v = view = ByteBuffer.wrap(buf);
        }
        return v.limit(pos).position(0);
    }

    /** The registration {@code value} is written with, from this writer's cache. */
    RegistrationTable.Registration registrationFor(Object value) {
        return classes.forValue(value);
    }

    /** The OOB buffers collected so far (the writer's own list, or an empty one). */
    List<ByteBuffer> outOfBand() {
        return outOfBand == null ? List.of() : outOfBand;
    }
}
