package serreg;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads one serializer's in-band msgpack document, resolving ext 0 nested values through the
 * registry in document order with the one OOB iterator shared by the whole frame.
 *
 * <p>Natively decoded types: nil to {@code null}, bool to {@code Boolean}, int to {@code Long}
 * ({@code BigInteger} above 2^63-1), float 64 to {@code Double}, str to {@code String}, bin to a
 * fresh {@code byte[]}, array to {@code ArrayList}, map to {@code LinkedHashMap}. Float 32 and
 * ext types other than 0 and 1 are rejected (section 3). Errors carry the byte offset inside the
 * in-band bytes this reader was given. Not thread-safe.
 *
 * <p>Decoding reads the given buffer where it lies (its backing array, or the buffer itself when
 * it is direct or read-only): nothing is copied first. A nested value whose serializer is a
 * {@link MsgpackSerializer} is read in place by this same reader, bounded to its ext 0 payload.
 * The parts: the bytes ({@link InBandBytes}), nil, bool and number reads ({@link NumberReader}),
 * str, bin and header reads ({@link ScalarReader}), arrays and maps
 * ({@link ContainerReader}), ext values ({@link NestedReader}).
 *
 * <p>Hostile input: a str, bin or ext that declares more bytes than follow, and an array or map
 * that declares more items than the bytes left could hold (every item takes at least one byte),
 * are rejected before anything is allocated for them; arrays and maps nested deeper than
 * {@link Limits#maxMsgpackNesting()} are refused. Lists are never pre-sized from a declared count
 * beyond a small bound, so memory grows only with the items actually present.
 */
public final class InBandReader extends ScalarReader {
    /** The OOB iterator of a frame without OOB buffers (holds nothing, so a pooled reader may keep it). */
    static final Iterator<ByteBuffer> NO_BUFFERS = java.util.Collections.emptyIterator();
    /** Initial capacity of a decoded list or map: a declared count is not trusted beyond this. */
    static final int MAX_PRESIZE = 1024;

    private ValueDecoder decoder;
    private Iterator<ByteBuffer> outOfBand;
    private DecodeState state;
    /** The thread whose {@link ReaderPool} this reader goes back to on {@link #release}, or null when it is not pooled. */
    private final PerThread home;
    /** Made when the document has an array or map, and an ext value. */
    private ContainerReader containers;
    private NestedReader nested;

    public InBandReader(SerializerRegistry registry, ByteBuffer inBand, Iterator<ByteBuffer> outOfBand) {
        this(registry.decoder(), inBand, 0, outOfBand, null);
    }

    /**
     * A reader of {@code inBand} from its position + {@code skip}, within a deserialize call whose
     * state the caller already holds (null: look it up).
     */
    InBandReader(ValueDecoder decoder, ByteBuffer inBand, int skip, Iterator<ByteBuffer> outOfBand, DecodeState state) {
        super(inBand, skip);
        this.decoder = decoder;
        this.outOfBand = outOfBand;
        this.home = null;
        DecodeState current = state != null ? state : DecodeState.current();
        this.state = current != null ? current
                : DecodeState.detached(decoder.limits(), inBand.remaining() - skip, decoder.defaultAllowed());
    }

    /** A reader of the {@code length} bytes at index {@code from} of {@code inBand}, within the call {@code state}. */
    InBandReader(ValueDecoder decoder, ByteBuffer inBand, int from, int length, Iterator<ByteBuffer> outOfBand,
            DecodeState state) {
        super(inBand, from, length);
        this.decoder = decoder;
        this.outOfBand = outOfBand;
        this.state = state;
        this.home = state.thread();
    }

    /**
     * Readies a pooled reader for the {@code length} bytes at index {@code from} of {@code inBand},
     * within the call {@code state}, as if new: its ext values reader forgets what it met in
     * the last call (a registration found in a trusted call is looked up again in an untrusted one).
     * A reference field is stored only when it changes: the pooled reader soon lives in the old
     * generation, where every reference stored costs a GC write barrier (the thread's call state
     * and the registry's decoder are the same call after call; the frame's bytes are not).
     */
    void reuse(ValueDecoder decoder, ByteBuffer inBand, int from, int length, Iterator<ByteBuffer> outOfBand,
            DecodeState state) {
        point(inBand, from, length);
        if (this.decoder != decoder) {
            this.decoder = decoder;
        }
        if (this.outOfBand != outOfBand) {
            this.outOfBand = outOfBand;
        }
        if (this.state != state) {
            this.state = state;
        }
        if (nested != null) {
            nested.reset(decoder, state);
        }
        if (containers != null) {
            containers.reset();
        }
    }

    /**
     * Ends the use of a reader made for one document read in place ({@link ReaderPool#take}),
     * normally or not: it lets go of the frame (its bytes and OOB buffers; the thread's call state
     * and the registry's decoder stay, as a pooled writer keeps its registry) and goes back to its
     * thread's pool when it came from one. The caller must not use it afterwards.
     */
    void release() {
        if (home == null) {
            return;
        }
        forget();
        if (outOfBand != NO_BUFFERS) {
            outOfBand = null;
        }
        ReaderPool.give(this, home);
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

    /**
     * Reads any value. Arrays and maps are built with an explicit stack of open containers, not
     * by recursion, so their nesting costs no thread stack (it is bounded by
     * {@link Limits#maxMsgpackNesting()}); only nested values (ext 0) recurse, at most
     * {@link Limits#maxDepth()} deep.
     */
    public Object readValue() {
        int b = peek();
        // Ext values go through readScalar's rarer branch: the nested reader inlined here would make
        // this method too big to inline where values are read in a loop (measured: structs1k).
        return InBandLayout.isContainer(b) ? containers().read() : readScalar(b);
    }

    /**
     * Reads the run of short ASCII strs (fixstr, at most 31 bytes) at the position, at most
     * {@code max} of them, into {@code into}, in one loop without a call per str; stops before
     * any other value (a longer or non-ASCII str, anything else), which {@link #readValue} reads
     * (with its checks and errors). A list reader calls it first: a list of names or labels is
     * then read in one call, a list of anything else costs one check.
     *
     * @param into the list the strs are added to, in order
     * @param max the most strs to read
     * @return how many strs were read (0 when the next value is not a short ASCII str)
     */
    public int readAsciiStrings(List<Object> into, int max) {
        return max > 0 && InBandLayout.isFixStr(peek()) ? readAsciiRun(into, max) : 0;
    }

    /**
     * Reads the next {@code count} values when each is a short ASCII str (a fixstr of bytes below
     * 0x80: its text is its bytes) and returns a view of their bytes, msgpack headers included,
     * for a caller that makes the strings as it needs them (a struct list's str column, read by
     * the pass that builds the instances); otherwise reads nothing and returns null (the values
     * are then read one by one, with their checks and errors). The view shares the in-band's
     * memory; it has an array whenever this reader reads an array.
     */
    public ByteBuffer readAsciiStrRun(int count) {
        return asciiRun(count);
    }

    /**
     * A view of the bytes from the position to the end of what this reader may read now, nothing
     * read: it shares the in-band's memory and has an array whenever this reader reads an array.
     * For a caller that scans values itself (a struct list's last str column, read as its
     * instances are built) and then {@link #skip}s the bytes it took.
     *
     * @return the view
     */
    public ByteBuffer remainingView() {
        return view(index(), end() - index());
    }

    /**
     * Reads the next value when it is a short ASCII str (a fixstr of bytes below 0x80: its text
     * is its bytes) and returns its text; otherwise reads nothing and returns null (the value is
     * then read by {@link #readString} or {@link #readValue}, with their checks and errors). For a
     * caller that reads strs one at a time between other work (a struct list's last column, read
     * as its instances are built), the twin of {@link #readAsciiStrRun}.
     *
     * @return the text, or null
     */
    public String readAsciiFixStr() {
        return asciiFixStr();
    }

    /**
     * Reads the run of nested values (ext 0, and struct instances) at the position, at most
     * {@code max} of them, into {@code into}, and stops before any other value, which
     * {@link #readValue} reads. Values of one class in a row (a list of points) are read in one
     * loop, without going through {@link #readValue} for each; each is checked and limited as
     * {@link #readValue} would. A list reader calls it before its loop, as it calls
     * {@link #readAsciiStrings}: a list of anything else costs one check.
     *
     * @param into the list the values are added to, in order
     * @param max the most values to read
     * @return how many values were read (0 when the next value is not a nested value)
     */
    public int readNestedValues(List<Object> into, int max) {
        return max > 0 && remaining() > 0 && InBandLayout.isExt(u8(index())) ? nested().readRun(into, max) : 0;
    }

    /**
     * Reads a map key: any value, as {@link #readValue}, but a short ASCII str may be one read
     * before with the same bytes (keys repeat from record to record; strings are immutable).
     */
    public Object readMapKey() {
        return containers().readMapKey(peek());
    }

    /**
     * Reads the next value when it is an ext 2, a list of struct instances (docs/FORMAT.md section
     * 10.3), else reads nothing and returns null.
     */
    public List<Object> readStructList() {
        if (!InBandLayout.isExt(peek()) || nested().typeAt() != InBandLayout.STRUCT_LIST_EXT_TYPE) {
            return null;
        }
        @SuppressWarnings("unchecked")
        List<Object> list = (List<Object>) nested().read();
        return list;
    }

    /**
     * Whether the next {@code expected.length} bytes of this document are {@code expected}
     * (nothing is read; false when fewer bytes are left).
     *
     * @param expected the bytes
     * @return whether they come next
     */
    public boolean nextBytesAre(byte[] expected) {
        return sameBytes(index(), expected);
    }

    /**
     * A copy of the bytes of this document from offset {@code from} to the position (bytes
     * already read, for example one value's encoding).
     *
     * @param from an offset at most {@link #offset()}
     * @return the bytes
     */
    public byte[] copyReadSince(long from) {
        long n = offset() - from;
        if (from < 0 || n < 0) {
            throw new IllegalArgumentException("offset " + from + " is not before the position " + offset());
        }
        return copy(index() - (int) n, (int) n);
    }

    /**
     * Skips {@code n} bytes (ones {@link #nextBytesAre} has checked, or a ClassIDHash).
     *
     * @param n how many
     * @param what what they are, for the error when fewer are left
     */
    public void skip(int n, String what) {
        if (n < 0 || remaining() < n) {
            throw error("the document ends inside " + what, offset());
        }
        seek(index() + n);
    }

    /**
     * The ClassIDHash (8 bytes, little-endian) at the position, not read.
     *
     * @param what what the section is, for the error when fewer than 8 bytes are left
     * @return the hash
     */
    public long peekClassIdHash(String what) {
        if (remaining() < serreg.wire.ClassIdHash.SIZE) {
            throw error(what + " is too short to hold a ClassIDHash", offset());
        }
        return hashAt(index());
    }

    /**
     * Reads the in-band section (ClassIDHash + serializer in-band) that fills the rest of this
     * document, as a value nested one level down: in place, with this same reader, when its
     * serializer reads msgpack, else through the registry with a view of the section. What a
     * serializer that puts another value's whole section after its own bytes calls (the struct
     * table, for the value after it). Limits, depth and the allow-list of an untrusted call apply
     * as to any nested value; errors carry offsets from this document's start.
     *
     * @return the value
     */
    public Object readTrailingSection() {
        return nested().readTrailingSection();
    }

    @Override
    Object readExt() {
        return nested().read();
    }

    /** This reader's ext values reader. */
    NestedReader nested() {
        NestedReader n = nested;
        if (n == null) {
            n = nested = new NestedReader(this, decoder, state);
        }
        return n;
    }

    private ContainerReader containers() {
        ContainerReader c = containers;
        if (c == null) {
            c = containers = new ContainerReader(this, state.keys);
        }
        return c;
    }

    /**
     * Reads the header of the array a serializer reads item by item itself (its in-band's own
     * array: a list, tuple or set), and counts the array as open against
     * {@link Limits#maxMsgpackNesting()}, as the arrays and maps inside it are (docs/FORMAT.md
     * section 4.3 counts every array and map open at once in one in-band, the in-band's own one
     * too). Call {@link #closeContainer} once its items are read.
     *
     * @return the count the header declares, checked against the bytes left
     */
    public int openArray() {
        long at = offset();
        int n = readArrayHeader();
        containers().open(at);
        return n;
    }

    /**
     * {@link #openArray} of a map (a dict's own map).
     *
     * @return the count of entries the header declares, checked against the bytes left
     */
    public int openMap() {
        long at = offset();
        int n = readMapHeader();
        containers().open(at);
        return n;
    }

    /** Ends the array or map {@link #openArray} or {@link #openMap} opened. */
    public void closeContainer() {
        containers.close();
    }

    /** Starts a nested document read in place (see {@link ContainerReader#enterDocument}). */
    int enterDocument() {
        return containers == null ? 0 : containers.enterDocument();
    }

    void exitDocument(int saved) {
        if (containers != null) {
            containers.exitDocument(saved);
        }
    }

    /** The frame's OOB iterator (shared by every reader of the frame). */
    Iterator<ByteBuffer> outOfBand() {
        return outOfBand;
    }

    /** The next OOB buffer of the frame; {@code what} names it in the error if there is none. */
    public ByteBuffer nextOutOfBand(String what) {
        if (!outOfBand.hasNext()) {
            throw error("the frame has no OOB buffer left for " + what, offset());
        }
        return outOfBand.next();
    }
}
