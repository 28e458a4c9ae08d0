package serreg;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePackException;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

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
 * <p>Hostile input: a str, bin or ext that declares more bytes than follow, and an array or map
 * that declares more items than the bytes left could hold (every item takes at least one byte),
 * are rejected before anything is allocated for them; arrays and maps nested deeper than
 * {@link Limits#maxMsgpackNesting()} are refused. Lists are never pre-sized from a declared count
 * beyond a small bound, so memory grows only with the items actually present.
 */
public final class InBandReader {
    private final ValueDecoder decoder;
    private final ByteBuffer inBand;
    private final Iterator<ByteBuffer> outOfBand;
    private final MessageUnpacker unpacker;
    private final DecodeState state;
    /** Arrays and maps open in this document. */
    private int nesting;

    /** Initial capacity of a decoded list: a declared count is not trusted beyond this. */
    private static final int MAX_PRESIZE = 1024;

    public InBandReader(SerializerRegistry registry, ByteBuffer inBand, Iterator<ByteBuffer> outOfBand) {
        this.decoder = registry.decoder();
        this.inBand = onHeap(inBand);
        this.outOfBand = outOfBand;
        this.unpacker = MessagePack.newDefaultUnpacker(this.inBand.duplicate());
        DecodeState current = DecodeState.current();
        this.state = current != null ? current : DecodeState.detached(registry.limits(), this.inBand.remaining());
    }

    /** A list for {@code declared} items, pre-sized no further than the bytes and a small bound allow. */
    public static <T> List<T> newList(int declared) {
        return new ArrayList<>(Math.min(declared, MAX_PRESIZE));
    }

    /**
     * Accounts for {@code bytes} a serializer must allocate that the frame does not hold (for
     * example a bitmap Arrow Java builds itself): the total of such allocations in one
     * deserialize call may not exceed the frame's size plus 1 MiB, so a small frame cannot cost
     * much memory.
     *
     * @throws LimitExceededException naming {@code what} when the total would exceed it
     */
    public void reserveAllocation(long bytes, String what, long at) {
        state.allocateBeyondFrame(bytes, what, at);
    }

    /** The limits of the deserialize call this reader is part of. */
    public Limits limits() {
        return state.limits;
    }

    /** Bytes of this in-band not read yet. */
    public long remaining() {
        return inBand.limit() - offset();
    }

    /**
     * msgpack-core reads direct memory through JDK internals that Java 17 does not export, so a
     * direct in-band is copied to the heap once (nested readers then slice that copy). In-band
     * bytes are small by design: the large data travels in the OOB buffers, which stay views.
     */
    private static ByteBuffer onHeap(ByteBuffer inBand) {
        if (!inBand.isDirect()) {
            return inBand.slice();
        }
        ByteBuffer copy = ByteBuffer.allocate(inBand.remaining());
        copy.put(inBand.duplicate()).flip();
        return copy;
    }

    /** Offset of the next unread byte, from the start of this reader's in-band bytes. */
    public long offset() {
        return unpacker.getTotalReadBytes();
    }

    /**
     * Reads any value. Arrays and maps are built with an explicit stack of open containers, not
     * by recursion, so their nesting costs no thread stack (it is bounded by
     * {@link Limits#maxMsgpackNesting()}); only nested values (ext 0) recurse, at most
     * {@link Limits#maxDepth()} deep.
     */
    public Object readValue() {
        ValueType type = nextFormat().getValueType();
        if (type == ValueType.ARRAY || type == ValueType.MAP) {
            return readContainer();
        }
        return type == ValueType.EXTENSION ? readNested() : readScalar();
    }

    /** An array or map being filled. */
    private static final class Open {
        final List<Object> list;
        final Map<Object, Object> map;
        final KeyCollisionGuard guard;
        int left;
        Object key;
        boolean haveKey;

        Open(List<Object> list, Map<Object, Object> map, KeyCollisionGuard guard, int left) {
            this.list = list;
            this.map = map;
            this.guard = guard;
            this.left = left;
        }

        /** Adds an item (a map's key, then its value); true when the container is complete. */
        boolean add(Object item) {
            if (list != null) {
                list.add(item);
                return --left == 0;
            }
            if (!haveKey) {
                key = item;
                haveKey = true;
                return false;
            }
            guard.put(map, key, item);
            key = null;
            haveKey = false;
            return --left == 0;
        }

        Object value() {
            return list != null ? list : map;
        }
    }

    private void enterContainer(long at) {
        if (nesting >= state.limits.maxMsgpackNesting()) {
            throw new LimitExceededException("msgpack arrays and maps are nested more than maxMsgpackNesting="
                    + state.limits.maxMsgpackNesting() + " deep in one in-band; raise it with"
                    + " Limits.withMaxMsgpackNesting(...) if such values are expected", at);
        }
        nesting++;
    }

    private Object readContainer() {
        java.util.ArrayDeque<Open> open = new java.util.ArrayDeque<>();
        try {
            while (true) {
                long at = offset();
                ValueType type = nextFormat().getValueType();
                Object value;
                if (type == ValueType.ARRAY || type == ValueType.MAP) {
                    int n = type == ValueType.ARRAY ? readArrayHeader() : readMapHeader();
                    enterContainer(at);
                    Open container = type == ValueType.ARRAY ? new Open(newList(n), null, null, n)
                            : new Open(null, new LinkedHashMap<>(), new KeyCollisionGuard(n, "map", at), n);
                    if (n > 0) {
                        open.push(container);
                        continue;
                    }
                    nesting--;
                    value = container.value();
                } else {
                    value = type == ValueType.EXTENSION ? readNested() : readScalar();
                }
                while (true) {
                    Open top = open.peek();
                    if (top == null) {
                        return value;
                    }
                    if (!top.add(value)) {
                        break;
                    }
                    open.pop();
                    nesting--;
                    value = top.value();
                }
            }
        } finally {
            nesting -= open.size();
        }
    }

    private Object readScalar() {
        long at = offset();
        MessageFormat format = nextFormat();
        try {
            switch (format.getValueType()) {
                case NIL:
                    unpacker.unpackNil();
                    return null;
                case BOOLEAN:
                    return unpacker.unpackBoolean();
                case INTEGER:
                    return readInteger();
                case FLOAT:
                    return readDouble();
                case STRING:
                    return readString();
                case BINARY:
                    return readBinary();
                default:
                    throw error("unexpected msgpack format " + format, at);
            }
        } catch (IOException | MessagePackException e) {
            throw new DeserializationException("malformed msgpack: " + e.getMessage(), at, e);
        }
    }

    /** Reads an ext 0 nested value (section 3). */
    private Object readNested() {
        long at = offset();
        org.msgpack.core.ExtensionTypeHeader header;
        try {
            header = unpacker.unpackExtensionTypeHeader();
        } catch (IOException | MessagePackException e) {
            throw new DeserializationException("malformed msgpack ext: " + e.getMessage(), at, e);
        }
        if (header.getType() != 0) {
            throw error("msgpack ext type " + header.getType() + " is reserved; serreg uses only ext 0", at);
        }
        int start = (int) offset();
        int length = header.getLength();
        if (length < 0 || start + (long) length > inBand.limit()) {
            throw error("ext 0 payload of " + Integer.toUnsignedString(length) + " bytes runs past the end of the in-band", at);
        }
        try {
            unpacker.readPayloadAsReference(length);
        } catch (IOException | MessagePackException e) {
            throw new DeserializationException("malformed msgpack ext: " + e.getMessage(), at, e);
        }
        ByteBuffer section = inBand.slice(start, length);
        try {
            return decoder.readSection(section, outOfBand, false);
        } catch (DeserializationException e) {
            throw e.shiftOffset(start);
        }
    }

    public Object readInteger() {
        long at = offset();
        MessageFormat format = nextFormat();
        try {
            if (format == MessageFormat.UINT64) {
                BigInteger v = unpacker.unpackBigInteger();
                return v.bitLength() < 64 ? (Object) v.longValue() : v;
            }
            if (format.getValueType() != ValueType.INTEGER) {
                throw error("expected an int, found " + format, at);
            }
            return unpacker.unpackLong();
        } catch (IOException | MessagePackException e) {
            throw new DeserializationException("malformed msgpack int: " + e.getMessage(), at, e);
        }
    }

    /** Reads an int that must fit in a long. */
    public long readLong() {
        long at = offset();
        Object v = readInteger();
        if (v instanceof Long l) {
            return l;
        }
        throw error("integer " + v + " does not fit in 64 signed bits", at);
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
        long at = offset();
        expect(ValueType.BOOLEAN, "a bool");
        try {
            return unpacker.unpackBoolean();
        } catch (IOException | MessagePackException e) {
            throw new DeserializationException("malformed msgpack bool", at, e);
        }
    }

    /** Reads a float 64; a float 32 is an error here (section 3). */
    public double readDouble() {
        long at = offset();
        MessageFormat format = nextFormat();
        if (format != MessageFormat.FLOAT64) {
            throw error("expected a float 64, found " + format
                    + (format == MessageFormat.FLOAT32 ? " (float 32 is only valid inside numpy.float32/complex64)" : ""), at);
        }
        try {
            return unpacker.unpackDouble();
        } catch (IOException | MessagePackException e) {
            throw new DeserializationException("malformed msgpack float", at, e);
        }
    }

    /** Reads a float 32 (numpy.float32 and numpy.complex64 only). */
    public float readFloat() {
        long at = offset();
        if (nextFormat() != MessageFormat.FLOAT32) {
            throw error("expected a float 32, found " + nextFormat(), at);
        }
        try {
            return unpacker.unpackFloat();
        } catch (IOException | MessagePackException e) {
            throw new DeserializationException("malformed msgpack float", at, e);
        }
    }

    /** Reads a msgpack str as strict UTF-8. */
    public String readString() {
        long at = offset();
        expect(ValueType.STRING, "a str");
        ByteBuffer bytes = readPayload(() -> unpacker.unpackRawStringHeader(), at);
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(bytes).toString();
        } catch (CharacterCodingException e) {
            throw new DeserializationException("str is not valid UTF-8", at, e);
        }
    }

    /** Reads a msgpack bin as a view of the in-band bytes (no copy). */
    public ByteBuffer readBinaryView() {
        long at = offset();
        expect(ValueType.BINARY, "a bin");
        return readPayload(() -> unpacker.unpackBinaryHeader(), at);
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
        expect(ValueType.ARRAY, "an array");
        int n;
        try {
            n = unpacker.unpackArrayHeader();
        } catch (IOException | MessagePackException e) {
            throw new DeserializationException("malformed msgpack array: " + e.getMessage(), at, e);
        }
        if (n > remaining()) {
            throw error("msgpack array declares " + Integer.toUnsignedString(n) + " items but only " + remaining()
                    + " bytes follow in the in-band", at);
        }
        return n;
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
        expect(ValueType.MAP, "a map");
        int n;
        try {
            n = unpacker.unpackMapHeader();
        } catch (IOException | MessagePackException e) {
            throw new DeserializationException("malformed msgpack map: " + e.getMessage(), at, e);
        }
        if (2L * n > remaining()) {
            throw error("msgpack map declares " + Integer.toUnsignedString(n) + " entries but only " + remaining()
                    + " bytes follow in the in-band", at);
        }
        return n;
    }

    /** True and consumes it when the next value is nil. */
    public boolean tryReadNil() {
        if (nextFormat() != MessageFormat.NIL) {
            return false;
        }
        try {
            unpacker.unpackNil();
        } catch (IOException e) {
            throw new DeserializationException("malformed msgpack nil", offset(), e);
        }
        return true;
    }

    /** Format of the next value, without consuming it. */
    public MessageFormat nextFormat() {
        MessageFormat format;
        try {
            if (!unpacker.hasNext()) {
                throw error("the in-band ends before the value is complete", offset());
            }
            format = unpacker.getNextFormat();
        } catch (IOException | MessagePackException e) {
            throw new DeserializationException("malformed msgpack", offset(), e);
        }
        if (format == MessageFormat.NEVER_USED) {
            throw error("byte 0xc1 is not a msgpack value (msgpack never uses it)", offset());
        }
        return format;
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
        try {
            if (unpacker.hasNext()) {
                throw error((inBand.limit() - offset()) + " unexpected bytes after the msgpack value", offset());
            }
        } catch (IOException e) {
            throw new DeserializationException("malformed msgpack", offset(), e);
        }
    }

    public DeserializationException error(String what, long offset) {
        return new DeserializationException(what, offset);
    }

    private void expect(ValueType type, String what) {
        MessageFormat format = nextFormat();
        if (format.getValueType() != type) {
            throw error("expected " + what + ", found msgpack " + format, offset());
        }
    }

    private interface HeaderRead {
        int read() throws IOException;
    }

    private ByteBuffer readPayload(HeaderRead header, long at) {
        try {
            int length = header.read();
            int start = (int) offset();
            if (length < 0 || start + (long) length > inBand.limit()) {
                throw error("payload of " + Integer.toUnsignedString(length) + " bytes runs past the end of the in-band", at);
            }
            unpacker.readPayloadAsReference(length);
            return inBand.slice(start, length);
        } catch (IOException | MessagePackException e) {
            throw new DeserializationException("malformed msgpack: " + e.getMessage(), at, e);
        }
    }
}
