package serreg;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.msgpack.core.MessageFormat;

/**
 * Reads one serializer's in-band msgpack document, resolving ext 0 nested values through the
 * registry in document order with the one OOB iterator shared by the whole frame.
 *
 * <p>Natively decoded types: nil to {@code null}, bool to {@code Boolean}, int to {@code Long}
 * ({@code BigInteger} above 2^63-1), float 64 to {@code Double}, str to {@code String}, bin to a
 * fresh {@code byte[]}, array to {@code ArrayList}, map to {@code LinkedHashMap}. Float 32 and
 * ext types other than 0 are rejected (section 3). Errors carry the byte offset inside the
 * in-band bytes this reader was given. Not thread-safe.
 *
 * <p>Decoding reads the given buffer where it lies (its backing array, or the buffer itself when
 * it is direct or read-only): nothing is copied first. A nested value whose serializer is a
 * {@link MsgpackSerializer} is read in place by this same reader, bounded to its ext 0 payload.
 *
 * <p>Hostile input: a str, bin or ext that declares more bytes than follow, and an array or map
 * that declares more items than the bytes left could hold (every item takes at least one byte),
 * are rejected before anything is allocated for them; arrays and maps nested deeper than
 * {@link Limits#maxMsgpackNesting()} are refused. Lists are never pre-sized from a declared count
 * beyond a small bound, so memory grows only with the items actually present.
 */
public final class InBandReader {
    /** msgpack-core's name for each first byte, for {@link #nextFormat()} and the messages. */
    private static final MessageFormat[] FORMATS = new MessageFormat[256];

    static {
        for (int b = 0; b < 256; b++) {
            FORMATS[b] = MessageFormat.valueOf((byte) b);
        }
    }

    /** The msgpack ext type of a struct instance (docs/FORMAT.md section 10.3). */
    private static final int STRUCT_EXT_TYPE = 1;

    /** Initial capacity of a decoded list or map: a declared count is not trusted beyond this. */
    private static final int MAX_PRESIZE = 1024;

    private final ValueDecoder decoder;
    /** The in-band bytes (position 0 = offset 0); views and slices are cut from it. */
    private final ByteBuffer source;
    /** The source's backing array, or null to read through {@link #source} (direct or read-only). */
    private final byte[] array;
    /** Index in {@link #array} of offset 0 (0 without an array). */
    private final int base;
    /** Index of the next unread byte (an array index, or a source index when there is no array). */
    private int pos;
    /** Index just past the bytes this reader may read (the end of a nested value while it is read). */
    private int limit;
    private final Iterator<ByteBuffer> outOfBand;
    private final DecodeState state;
    /** Arrays and maps open in the document being read (each nested in-band counts from 0). */
    private int nesting;
    /** Copy of a str's bytes when there is no backing array. */
    private byte[] scratch;
    /** The stack of arrays and maps being filled, shared by nested documents read in place. */
    private ContainerStack open;
    /** The last ClassIDHash met in an ext 0 and its registration (lists are mostly of one class). */
    private long lastHash;
    private RegistrationTable.Registration lastRegistration;

    public InBandReader(SerializerRegistry registry, ByteBuffer inBand, Iterator<ByteBuffer> outOfBand) {
        this(registry.decoder(), inBand, outOfBand, null);
    }

    /** A reader within a deserialize call whose state the caller already holds (null: look it up). */
    InBandReader(ValueDecoder decoder, ByteBuffer inBand, Iterator<ByteBuffer> outOfBand, DecodeState state) {
        this.decoder = decoder;
        this.source = inBand.slice();
        if (source.hasArray()) {
            this.array = source.array();
            this.base = source.arrayOffset();
        } else {
            this.array = null;
            this.base = 0;
        }
        this.pos = base;
        this.limit = base + source.remaining();
        this.outOfBand = outOfBand;
        DecodeState current = state != null ? state : DecodeState.current();
        this.state = current != null ? current : DecodeState.detached(decoder.limits(), source.remaining(), decoder.defaultAllowed());
    }

    /**
     * A list for {@code declared} items, pre-sized no further than a small bound allows.
     *
     * @param <T> the item type
     * @param declared the count an array header declares
     * @return an empty list
     */
    public static <T> List<T> newList(int declared) {
        return new ArrayList<>(Math.min(declared, MAX_PRESIZE));
    }

    /**
     * A list for {@code declared} items (a count {@link #readArrayHeader()} checked against the
     * bytes left). Pre-sized to the count when this reader is reading the frame's top-level value:
     * its in-band holds every item, so the list costs at most a few bytes per in-band byte. Inside
     * nested values, where declared counts could add up across levels, as {@link #newList}.
     *
     * @param <T> the item type
     * @param declared the count the array header declared
     * @return an empty list
     */
    public <T> List<T> newListForItems(int declared) {
        return state.depth() <= 1 ? new ArrayList<>(declared) : newList(declared);
    }

    /**
     * A map for {@code declared} entries (a count {@link #readMapHeader()} checked), pre-sized as
     * {@link #newListForItems} pre-sizes a list.
     *
     * @param <K> the key type
     * @param <V> the value type
     * @param declared the count the map header declared
     * @return an empty insertion-ordered map
     */
    public <K, V> Map<K, V> newMapForEntries(int declared) {
        int n = state.depth() <= 1 ? declared : Math.min(declared, MAX_PRESIZE);
        return new LinkedHashMap<>(n + n / 3 + 1);
    }

    /**
     * Accounts for {@code bytes} a serializer is about to build that the frame does not hold (for
     * example Arrow fields and vectors, or a bitmap Arrow Java makes itself) against the call's
     * memory budget: {@code memoryAllowance + memoryPerByte x frame size} in all (see
     * {@link Limits}), so a small frame cannot cost much memory.
     *
     * @throws LimitExceededException naming {@code what} when the budget is spent
     */
    public void reserveAllocation(long bytes, String what, long at) {
        state.charge(bytes, what, at);
    }

    /** Whether the deserialize call this reader is part of is trusted (untrusted: an allow-list applies). */
    public boolean trusted() {
        return state.allowed == null;
    }

    /** The limits of the deserialize call this reader is part of. */
    public Limits limits() {
        return state.limits;
    }

    /** Bytes of this in-band not read yet. */
    public long remaining() {
        return limit - pos;
    }

    /**
     * Offset of the next unread byte, from the start of the in-band bytes this reader was given
     * (a nested value read in place counts from there too, so the offsets in errors need no
     * shifting on their way out).
     */
    public long offset() {
        return pos - base;
    }

    // ---- bytes ----

    private int u8(int i) {
        return array != null ? array[i] & 0xff : source.get(i) & 0xff;
    }

    private int u16(int i) {
        return array != null ? Bytes.getShortBE(array, i) & 0xffff : source.getShort(i) & 0xffff;
    }

    private long u32(int i) {
        return (array != null ? Bytes.getIntBE(array, i) : source.getInt(i)) & 0xffffffffL;
    }

    private long i64(int i) {
        return array != null ? Bytes.getLongBE(array, i) : source.getLong(i);
    }

    /** The first byte of the next value, not consumed. */
    private int peek() {
        if (pos >= limit) {
            throw error("the in-band ends before the value is complete", offset());
        }
        return u8(pos);
    }

    /** Checks that the {@code n} bytes after the first byte of the value at {@code pos} are there. */
    private void needHeader(int n, String what) {
        if (n > limit - pos - 1) {
            throw error("malformed msgpack " + what + ": the in-band ends inside its header", offset());
        }
    }

    /** Length of a str, bin or ext payload (a u32 may exceed an int), checked against the bytes left. */
    private int payloadLength(long length, long at, String what) {
        if (length > limit - pos) {
            throw error(what + " of " + length + " bytes runs past the end of the in-band", at);
        }
        return (int) length;
    }

    // ---- any value ----

    /**
     * Reads any value. Arrays and maps are built with an explicit stack of open containers, not
     * by recursion, so their nesting costs no thread stack (it is bounded by
     * {@link Limits#maxMsgpackNesting()}); only nested values (ext 0) recurse, at most
     * {@link Limits#maxDepth()} deep.
     */
    public Object readValue() {
        int b = peek();
        return isContainer(b) ? readContainer() : isExt(b) ? readNested() : readScalar(b);
    }

    private static boolean isContainer(int b) {
        return (b >= 0x80 && b <= 0x9f) || (b >= 0xdc && b <= 0xdf);
    }

    private static boolean isExt(int b) {
        return (b >= 0xd4 && b <= 0xd8) || (b >= 0xc7 && b <= 0xc9);
    }

    private static boolean isMap(int b) {
        return b <= 0x8f || b >= 0xde;
    }

    /**
     * Reads an array or map. One whose items are all scalars or nested values (ext 0) is filled
     * directly; at the first item that is itself an array or map, the container, as far as it is
     * filled, goes on an explicit stack of open containers, and the rest is read without
     * recursion: msgpack nesting costs no thread stack (it is bounded by
     * {@link Limits#maxMsgpackNesting()}). One method, so a level of nested values (ext 0, which
     * do recurse, at most {@link Limits#maxDepth()} deep) costs few stack frames.
     */
    private Object readContainer() {
        long at = offset();
        boolean map = isMap(peek());
        int n = map ? readMapHeader() : readArrayHeader();
        enterContainer(at);
        Object container;
        KeyCollisionGuard guard = null;
        int left = n;
        Object pendingKey = ContainerStack.NO_KEY;
        boolean handedOver = false;
        try {
            flat: {
                if (map) {
                    Map<Object, Object> m = newMap(n);
                    container = m;
                    guard = n > KeyCollisionGuard.PER_KEY ? new KeyCollisionGuard(n, "map", at) : null;
                    for (; left > 0; left--) {
                        int b = peek();
                        if (isContainer(b)) {
                            break flat;
                        }
                        Object key = isExt(b) ? readNested() : readScalar(b);
                        b = peek();
                        if (isContainer(b)) {
                            pendingKey = key;
                            break flat;
                        }
                        Object value = isExt(b) ? readNested() : readScalar(b);
                        if (guard != null) {
                            guard.put(m, key, value);
                        } else {
                            KeyCollisionGuard.putFew(m, key, value, "map", at);
                        }
                    }
                } else {
                    List<Object> list = newList(n);
                    container = list;
                    for (; left > 0; left--) {
                        int b = peek();
                        if (isContainer(b)) {
                            break flat;
                        }
                        list.add(isExt(b) ? readNested() : readScalar(b));
                    }
                }
                return container;
            }
            handedOver = true;
        } finally {
            if (!handedOver) {
                nesting--;
            }
        }
        if (open == null) {
            open = new ContainerStack();
        }
        ContainerStack open = this.open;
        int bottom = open.size;
        open.push(container, map, left, at, pendingKey, guard);
        try {
            while (true) {
                long itemAt = offset();
                int b = peek();
                Object value;
                if (isContainer(b)) {
                    boolean isMap = isMap(b);
                    int count = isMap ? readMapHeader() : readArrayHeader();
                    enterContainer(itemAt);
                    Object inner = isMap ? newMap(count) : newList(count);
                    if (count > 0) {
                        open.push(inner, isMap, count, itemAt, ContainerStack.NO_KEY,
                                isMap && count > KeyCollisionGuard.PER_KEY ? new KeyCollisionGuard(count, "map", itemAt) : null);
                        continue;
                    }
                    nesting--;
                    value = inner;
                } else {
                    value = isExt(b) ? readNested() : readScalar(b);
                }
                while (open.add(value)) {
                    value = open.pop();
                    nesting--;
                    if (open.size == bottom) {
                        return value;
                    }
                }
            }
        } finally {
            nesting -= open.size - bottom;
            open.truncate(bottom);
        }
    }

    /** A map for {@code declared} entries, pre-sized (load factor 0.75) no further than a small bound. */
    private static Map<Object, Object> newMap(int declared) {
        int n = Math.min(declared, MAX_PRESIZE);
        return new LinkedHashMap<>(n + n / 3 + 1);
    }

    private void enterContainer(long at) {
        if (nesting >= state.limits.maxMsgpackNesting()) {
            throw new LimitExceededException("msgpack arrays and maps are nested more than maxMsgpackNesting="
                    + state.limits.maxMsgpackNesting() + " deep in one in-band; raise it with"
                    + " Limits.withMaxMsgpackNesting(...) if such values are expected", at);
        }
        nesting++;
    }

    /** Any value but an array or map, whose first byte is {@code b}. */
    private Object readScalar(int b) {
        if (b <= 0x7f) {
            pos++;
            return (long) b;
        }
        if (b >= 0xe0) {
            pos++;
            return (long) (byte) b;
        }
        if (b >= 0xa0 && b <= 0xbf || b >= 0xd9 && b <= 0xdb) {
            return readString();
        }
        switch (b) {
            case 0xc0:
                pos++;
                return null;
            case 0xc2:
                pos++;
                return Boolean.FALSE;
            case 0xc3:
                pos++;
                return Boolean.TRUE;
            case 0xcb:
            case 0xca:
                return readDouble();
            case 0xc4:
            case 0xc5:
            case 0xc6:
                return readBinary();
            case 0xc7:
            case 0xc8:
            case 0xc9:
            case 0xd4:
            case 0xd5:
            case 0xd6:
            case 0xd7:
            case 0xd8:
                return readNested();
            case 0xc1:
                throw error("byte 0xc1 is not a msgpack value (msgpack never uses it)", offset());
            default:
                return readInteger(); // 0xcc..0xd3
        }
    }

    /**
     * Reads an ext 0 nested value (section 3): its in-band section, a ClassIDHash and the nested
     * serializer's in-band. A {@link MsgpackSerializer}'s value is read by this reader, bounded to
     * the section; any other goes through the decoder with a view of the section. One method, so
     * each level of nested values costs few stack frames (values may nest {@code maxDepth} deep).
     */
    @SuppressWarnings("unchecked")
    private Object readNested() {
        long at = offset();
        int b = u8(pos);
        long length;
        int header;
        if (b >= 0xd4 && b <= 0xd8) {
            needHeader(1, "ext");
            length = 1L << (b - 0xd4);
            header = 2;
        } else if (b == 0xc7) {
            needHeader(2, "ext");
            length = u8(pos + 1);
            header = 3;
        } else if (b == 0xc8) {
            needHeader(3, "ext");
            length = u16(pos + 1);
            header = 4;
        } else {
            needHeader(5, "ext");
            length = u32(pos + 1);
            header = 6;
        }
        byte type = (byte) u8(pos + header - 1);
        if (type == STRUCT_EXT_TYPE) {
            return readStruct(at, header, length);
        }
        if (type != 0) {
            throw error("msgpack ext type " + type + " is reserved; serreg uses only ext 0 and ext 1 (struct)", at);
        }
        pos += header;
        int n = payloadLength(length, at, "ext 0 payload");
        int start = pos;
        int end = start + n;
        pos = end;
        RegistrationTable.Registration registration = null;
        if (n >= 8) {
            long hash = array != null ? Bytes.getLongLE(array, start) : Long.reverseBytes(source.getLong(start));
            registration = lastRegistration != null && hash == lastHash ? lastRegistration : decoder.registration(hash);
            if (registration != null) {
                lastHash = hash;
                lastRegistration = registration;
            }
        }
        MsgpackSerializer<Object> msgpack = registration == null ? null : registration.msgpack();
        if (msgpack != null && state.allowed != null && !state.allows(lastHash)) {
            throw decoder.refusal(lastHash, start - base);
        }
        if (msgpack == null) {
            try {
                return decoder.readSection(source.slice(start - base, n), outOfBand, false);
            } catch (DeserializationException e) {
                throw e.shiftOffset(start - base);
            }
        }
        int savedLimit = limit;
        int savedNesting = nesting;
        state.enterValue(start - base);
        try {
            limit = end;
            pos = start + 8;
            nesting = 0;
            Object value = msgpack.read(this);
            expectEnd();
            return value;
        } catch (DeserializationException e) {
            throw e.enclosedIn(registration.classId()); // offsets are already from this reader's start
        } catch (SerregException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new DeserializationException("serializer failed: " + e, -1, e).enclosedIn(registration.classId());
        } finally {
            state.exitValue();
            limit = savedLimit;
            nesting = savedNesting;
            pos = end;
        }
    }

    /**
     * Reads an ext 1 struct instance (section 10.3) in place, bounded to its payload, through the
     * table of the enclosing {@code serreg.structs} section; it counts as a nested value.
     */
    private Object readStruct(long at, int header, long length) {
        pos += header;
        int n = payloadLength(length, at, "ext 1 payload");
        int start = pos;
        int end = start + n;
        pos = end;
        int savedLimit = limit;
        int savedNesting = nesting;
        state.enterValue(start - base);
        try {
            limit = end;
            pos = start;
            nesting = 0;
            Object value = SerializerRegistry.STRUCTS.readInstance(this);
            expectEnd();
            return value;
        } finally {
            state.exitValue();
            limit = savedLimit;
            nesting = savedNesting;
            pos = end;
        }
    }

    // ---- typed reads ----

    public Object readInteger() {
        long at = offset();
        int b = peek();
        if (b <= 0x7f) {
            pos++;
            return (long) b;
        }
        if (b >= 0xe0) {
            pos++;
            return (long) (byte) b;
        }
        if (b == 0xcf) {
            needHeader(8, "int");
            long bits = i64(pos + 1);
            pos += 9;
            return bits >= 0 ? (Object) bits : new BigInteger(Long.toUnsignedString(bits));
        }
        return readSmallInteger(b, at);
    }

    /** An int other than a fixint and uint64 (0xcc..0xce, 0xd0..0xd3). */
    private long readSmallInteger(int b, long at) {
        long v;
        switch (b) {
            case 0xcc -> {
                needHeader(1, "int");
                v = u8(pos + 1);
                pos += 2;
            }
            case 0xcd -> {
                needHeader(2, "int");
                v = u16(pos + 1);
                pos += 3;
            }
            case 0xce -> {
                needHeader(4, "int");
                v = u32(pos + 1);
                pos += 5;
            }
            case 0xd0 -> {
                needHeader(1, "int");
                v = (byte) u8(pos + 1);
                pos += 2;
            }
            case 0xd1 -> {
                needHeader(2, "int");
                v = (short) u16(pos + 1);
                pos += 3;
            }
            case 0xd2 -> {
                needHeader(4, "int");
                v = (int) u32(pos + 1);
                pos += 5;
            }
            case 0xd3 -> {
                needHeader(8, "int");
                v = i64(pos + 1);
                pos += 9;
            }
            default -> throw unexpected(b, "an int", at);
        }
        return v;
    }

    /** Reads an int that must fit in a long. */
    public long readLong() {
        long at = offset();
        int b = peek();
        if (b <= 0x7f) {
            pos++;
            return b;
        }
        if (b >= 0xe0) {
            pos++;
            return (byte) b;
        }
        if (b == 0xcf) {
            needHeader(8, "int");
            long bits = i64(pos + 1);
            if (bits < 0) {
                throw error("integer " + Long.toUnsignedString(bits) + " does not fit in 64 signed bits", at);
            }
            pos += 9;
            return bits;
        }
        return readSmallInteger(b, at);
    }

    /** Reads an int in [lo, hi]. */
    public long readLong(long lo, long hi, String what) {
        long at = offset();
        long v = readLong();
        if (v < lo || v > hi) {
            throw error(what + " " + v + " is outside [" + lo + ", " + hi + "]", at);
        }
        return v;
    }

    public boolean readBoolean() {
        int b = peek();
        if (b != 0xc2 && b != 0xc3) {
            throw unexpected(b, "a bool", offset());
        }
        pos++;
        return b == 0xc3;
    }

    /** Reads a float 64; a float 32 is an error here (section 3). */
    public double readDouble() {
        long at = offset();
        int b = peek();
        if (b != 0xcb) {
            throw b == 0xca ? error("expected a float 64, found FLOAT32 (float 32 is only valid inside"
                    + " numpy.float32/complex64)", at) : unexpected(b, "a float 64", at);
        }
        needHeader(8, "float");
        double v = Double.longBitsToDouble(i64(pos + 1));
        pos += 9;
        return v;
    }

    /** Reads a float 32 (numpy.float32 and numpy.complex64 only). */
    public float readFloat() {
        long at = offset();
        int b = peek();
        if (b != 0xca) {
            throw unexpected(b, "a float 32", at);
        }
        needHeader(4, "float");
        float v = Float.intBitsToFloat((int) u32(pos + 1));
        pos += 5;
        return v;
    }

    /** Reads a msgpack str as strict UTF-8. */
    public String readString() {
        long at = offset();
        int b = peek();
        long length;
        if (b >= 0xa0 && b <= 0xbf) {
            length = b & 0x1f;
            pos += 1;
        } else if (b == 0xd9) {
            needHeader(1, "str");
            length = u8(pos + 1);
            pos += 2;
        } else if (b == 0xda) {
            needHeader(2, "str");
            length = u16(pos + 1);
            pos += 3;
        } else if (b == 0xdb) {
            needHeader(4, "str");
            length = u32(pos + 1);
            pos += 5;
        } else {
            throw unexpected(b, "a str", offset());
        }
        int n = payloadLength(length, at, "payload");
        int start = pos;
        pos += n;
        String s;
        if (array != null) {
            s = Utf8.decode(array, start, n);
        } else {
            if (scratch == null || scratch.length < n) {
                scratch = new byte[Math.max(n, 64)];
            }
            source.get(start, scratch, 0, n);
            s = Utf8.decode(scratch, 0, n);
        }
        if (s == null) {
            throw new DeserializationException("str is not valid UTF-8", at);
        }
        return s;
    }

    /** Reads a msgpack bin as a view of the in-band bytes (no copy). */
    public ByteBuffer readBinaryView() {
        long at = offset();
        int b = peek();
        long length;
        if (b == 0xc4) {
            needHeader(1, "bin");
            length = u8(pos + 1);
            pos += 2;
        } else if (b == 0xc5) {
            needHeader(2, "bin");
            length = u16(pos + 1);
            pos += 3;
        } else if (b == 0xc6) {
            needHeader(4, "bin");
            length = u32(pos + 1);
            pos += 5;
        } else {
            throw unexpected(b, "a bin", offset());
        }
        int n = payloadLength(length, at, "payload");
        ByteBuffer view = source.slice(pos - base, n);
        pos += n;
        return view;
    }

    /** Reads a msgpack bin into a fresh array. */
    public byte[] readBinary() {
        ByteBuffer view = readBinaryView();
        byte[] out = new byte[view.remaining()];
        view.get(out);
        return out;
    }

    /**
     * Reads an array header. The count is checked against the bytes left (an item takes at least
     * one), so a caller may loop over it, but should not pre-size from it: use {@link #newList}.
     */
    public int readArrayHeader() {
        long at = offset();
        int b = peek();
        long n;
        if (b >= 0x90 && b <= 0x9f) {
            n = b & 0x0f;
            pos += 1;
        } else if (b == 0xdc) {
            needHeader(2, "array");
            n = u16(pos + 1);
            pos += 3;
        } else if (b == 0xdd) {
            needHeader(4, "array");
            n = u32(pos + 1);
            pos += 5;
        } else {
            throw unexpected(b, "an array", offset());
        }
        if (n > remaining()) {
            throw error("msgpack array declares " + n + " items but only " + remaining()
                    + " bytes follow in the in-band", at);
        }
        return (int) n;
    }

    /** Reads an array header that must announce exactly {@code size} elements. */
    public void readArrayHeader(int size, String what) {
        long at = offset();
        int n = readArrayHeader();
        if (n != size) {
            throw error(what + " must be an array of " + size + " elements, found " + n, at);
        }
    }

    /** Reads a map header; the count is checked against the bytes left (a key and a value take at least two). */
    public int readMapHeader() {
        long at = offset();
        int b = peek();
        long n;
        if (b >= 0x80 && b <= 0x8f) {
            n = b & 0x0f;
            pos += 1;
        } else if (b == 0xde) {
            needHeader(2, "map");
            n = u16(pos + 1);
            pos += 3;
        } else if (b == 0xdf) {
            needHeader(4, "map");
            n = u32(pos + 1);
            pos += 5;
        } else {
            throw unexpected(b, "a map", offset());
        }
        if (2 * n > remaining()) {
            throw error("msgpack map declares " + n + " entries but only " + remaining()
                    + " bytes follow in the in-band", at);
        }
        return (int) n;
    }

    /** True and consumes it when the next value is nil. */
    public boolean tryReadNil() {
        if (peek() != 0xc0) {
            return false;
        }
        pos++;
        return true;
    }

    /** Format of the next value, without consuming it. */
    public MessageFormat nextFormat() {
        int b = peek();
        if (b == 0xc1) {
            throw error("byte 0xc1 is not a msgpack value (msgpack never uses it)", offset());
        }
        return FORMATS[b];
    }

    /** The next OOB buffer of the frame; {@code what} names it in the error if there is none. */
    public ByteBuffer nextOutOfBand(String what) {
        if (!outOfBand.hasNext()) {
            throw error("the frame has no OOB buffer left for " + what, offset());
        }
        return outOfBand.next();
    }

    /** Checks that the whole in-band was read: a serializer's in-band is exactly one msgpack value. */
    public void expectEnd() {
        if (pos < limit) {
            throw error((limit - pos) + " unexpected bytes after the msgpack value", offset());
        }
    }

    /** The error for a value of the wrong type (or the never-used byte 0xc1) where {@code what} was expected. */
    private DeserializationException unexpected(int b, String what, long at) {
        return b == 0xc1 ? error("byte 0xc1 is not a msgpack value (msgpack never uses it)", at)
                : error("expected " + what + ", found msgpack " + FORMATS[b], at);
    }

    public DeserializationException error(String what, long offset) {
        return new DeserializationException(what, offset);
    }
}
