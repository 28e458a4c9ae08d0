package serreg;

import java.util.List;
import serreg.wire.ClassIdHash;

/**
 * Reads the ext values of a document for an {@link InBandReader} (docs/FORMAT.md section 3):
 * ext 0, a nested value (its ClassIDHash and its serializer's in-band), and ext 1, a struct
 * instance (section 10.3); any other ext type is refused. A nested value whose serializer is a
 * {@link MsgpackSerializer} is read in place by the same reader, bounded to its payload; any
 * other goes through the decoder with a view of its section. The registration of the last
 * ClassIDHash met is kept (lists are mostly of one class). Each level counts against
 * {@link Limits#maxDepth()}; in untrusted mode the allow-list is checked before a serializer
 * runs. Package-private; one per reader, not thread-safe.
 */
final class NestedReader {
    /** How a payload of ext type 0, 1 and 2 is named in an error (the only types read). */
    private static final String[] PAYLOAD_NAMES = {"ext 0 payload", "ext 1 payload", "ext 2 payload"};
    private final InBandReader in;
    private ValueDecoder decoder;
    private DecodeState state;
    private long lastHash;
    private RegistrationTable.Registration lastRegistration;
    /** The last registration's MsgpackSerializer when it has one (then {@link #read} takes its short way). */
    private MsgpackSerializer<Object> lastMsgpack;
    /** The end and ext type of the payload {@link #openPayload} met last. */
    private int payloadEnd;
    private int payloadType;

    NestedReader(InBandReader in, ValueDecoder decoder, DecodeState state) {
        this.in = in;
        this.decoder = decoder;
        this.state = state;
    }

    /** Readies this reader for its reader's next call: the last class met is forgotten (its trust was checked in the last call). */
    void reset(ValueDecoder decoder, DecodeState state) {
        if (this.decoder != decoder) {
            this.decoder = decoder;
        }
        if (this.state != state) {
            this.state = state;
        }
        lastHash = 0;
        if (lastRegistration != null) {
            lastRegistration = null;
            lastMsgpack = null;
        }
    }

    /**
     * Reads the ext value at the reader's position. A value of the class met last with an ext 8
     * header (a payload of 17 to 255 bytes: most small values in a list) takes a short way, its
     * header and ClassIDHash checked in one go ({@link #knownPayload}); any other has its header
     * read and its serializer looked up by {@link #openPayload} and {@link #inPlaceSerializer}.
     * The frame that stays on the stack while a nested value is read holds few locals (values may
     * nest {@code maxDepth} deep, and a thread of 256 KiB must read the deepest the limits
     * allow): the header and the lookup are read by methods that have returned by then.
     */
    Object read() {
        MsgpackSerializer<Object> msgpack = lastMsgpack;
        int start = msgpack != null ? knownPayload() : -1;
        if (start < 0) {
            start = openPayload();
            if (payloadType == InBandLayout.STRUCT_EXT_TYPE) {
                return readStruct(start, payloadEnd, false);
            }
            if (payloadType == InBandLayout.STRUCT_LIST_EXT_TYPE) {
                return readStruct(start, payloadEnd, true);
            }
            msgpack = inPlaceSerializer(start, payloadEnd);
            if (msgpack == null) {
                return readSection(start, payloadEnd);
            }
        }
        RegistrationTable.Registration registration = lastRegistration; // the one msgpack is of
        int end = payloadEnd;
        state.enterValue(in.offsetOf(start));
        int savedLimit = in.bound(start + ClassIdHash.SIZE, end);
        int savedNesting = in.enterDocument();
        try {
            Object value = msgpack.read(in);
            in.expectEnd();
            return value;
        } catch (DeserializationException e) {
            throw e.enclosedIn(registration.classId()); // offsets are already from this reader's start
        } catch (SerregException e) {
            throw e;
        } catch (RuntimeException e) {
            throw DeserializationException.serializerFailed(e, registration.classId());
        } finally {
            state.exitValue();
            in.exitDocument(savedNesting);
            in.unbound(savedLimit, end);
        }
    }

    /**
     * Reads the run of ext values at the reader's position into {@code into}, at most {@code max}
     * of them, and stops before the first value that is not an ext value (left unread). A value
     * of the class met last with an ext 8 header takes the short way of {@link #read}; a run of
     * them (a list of one class's values, the common case) is read by {@link #readKnownRun} in
     * one loop that opens the level and the document once. Any other ext value is read by
     * {@link #read}, with every check, and its class becomes the one met last.
     *
     * @return how many values were read
     */
    int readRun(List<Object> into, int max) {
        int read = 0;
        while (read < max && in.index() < in.end() && InBandLayout.isExt(in.u8(in.index()))) {
            MsgpackSerializer<Object> msgpack = lastMsgpack;
            int start = msgpack != null ? knownPayload() : -1;
            if (start < 0) {
                into.add(read());
                read++;
            } else {
                read += readKnownRun(into, max - read, msgpack, start);
            }
        }
        return read;
    }

    /**
     * Reads consecutive values of the class met last (each with an ext 8 header, see
     * {@link #knownPayload}), the first's payload at {@code start}, at most {@code max}: the
     * depth limit is checked once for the run (its values are siblings, at one level) and each
     * value is read in place, bounded to its payload, exactly as {@link #read} reads it. The
     * class and its serializer are taken once, when the run starts: a value
     * whose serializer reads nested values of another class changes the class met last, which
     * then ends the run (the next value is read by {@link #read}), and never hands a value of
     * that other class to this run's serializer. The run ends at the end of its last value's
     * payload, kept here ({@link #payloadEnd} is the last payload met, which may be one nested
     * inside that value).
     */
    private int readKnownRun(List<Object> into, int max, MsgpackSerializer<Object> msgpack, int start) {
        RegistrationTable.Registration registration = lastRegistration; // the one msgpack is of
        long hash = lastHash;
        int outer = in.end();
        int end = payloadEnd; // the payload end of the value being read (a nested read inside it moves payloadEnd)
        state.enterValue(in.offsetOf(start));
        int savedNesting = in.enterDocument();
        int read = 0;
        try {
            do {
                end = payloadEnd;
                in.bound(start + ClassIdHash.SIZE, end);
                Object value = msgpack.read(in);
                in.expectEnd();
                in.unbound(outer, end);
                into.add(value);
                read++;
            } while (read < max && in.index() < outer && lastHash == hash && (start = knownPayload()) >= 0);
            return read;
        } catch (DeserializationException e) {
            throw e.enclosedIn(registration.classId()); // offsets are already from this reader's start
        } catch (SerregException e) {
            throw e;
        } catch (RuntimeException e) {
            throw DeserializationException.serializerFailed(e, registration.classId());
        } finally {
            state.exitValue();
            in.exitDocument(savedNesting);
            in.unbound(outer, end);
        }
    }

    /**
     * The payload start of an ext 0 value at the position whose header is ext 8 and whose
     * ClassIDHash is the last one met (whose trust was checked then, in this same call), its
     * end in {@link #payloadEnd}; -1 for any other value (whose header {@link #openPayload} then
     * reads with every check).
     */
    private int knownPayload() {
        int p = in.index();
        int start = p + 3;
        if (in.u8(p) != 0xc7 || in.end() - start < ClassIdHash.SIZE) {
            return -1;
        }
        int length = in.u8(p + 1);
        if (in.u8(p + 2) != InBandLayout.NESTED_EXT_TYPE || length < ClassIdHash.SIZE || length > in.end() - start
                || in.hashAt(start) != lastHash) {
            return -1;
        }
        payloadEnd = start + length;
        return start;
    }

    /**
     * Reads an ext header (ext 0 or ext 1; any other type is refused) and moves past its payload,
     * checked against the bytes left; returns the payload's start, its end and type in
     * {@link #payloadEnd} and {@link #payloadType}.
     */
    private int openPayload() {
        long at = in.offset();
        int p = in.index();
        int b = in.u8(p);
        long length;
        int header;
        if (b >= 0xd4 && b <= 0xd8) {
            in.needHeader(1, "ext");
            length = 1L << (b - 0xd4);
            header = 2;
        } else if (b == 0xc7) {
            in.needHeader(2, "ext");
            length = in.u8(p + 1);
            header = 3;
        } else if (b == 0xc8) {
            in.needHeader(3, "ext");
            length = in.u16(p + 1);
            header = 4;
        } else {
            in.needHeader(5, "ext");
            length = in.u32(p + 1);
            header = 6;
        }
        byte type = (byte) in.u8(p + header - 1);
        if (type != InBandLayout.NESTED_EXT_TYPE && type != InBandLayout.STRUCT_EXT_TYPE
                && type != InBandLayout.STRUCT_LIST_EXT_TYPE) {
            throw in.error("msgpack ext type " + type + " is reserved; serreg uses only ext 0, ext 1 (struct) and"
                    + " ext 2 (struct columns)", at);
        }
        in.seek(p + header);
        int n = in.payloadLength(length, at, PAYLOAD_NAMES[type]); // a constant: no text made per value
        int start = p + header;
        payloadEnd = start + n;
        payloadType = type;
        in.seek(payloadEnd);
        return start;
    }

    /** The type of the ext value at the reader's position (its header checked to be there), not consumed. */
    int typeAt() {
        int p = in.index();
        int b = in.u8(p);
        int header = b >= 0xd4 && b <= 0xd8 ? 2 : b == 0xc7 ? 3 : b == 0xc8 ? 4 : 6;
        in.needHeader(header - 1, "ext");
        return (byte) in.u8(p + header - 1);
    }

    /**
     * The {@link MsgpackSerializer} of the ext 0 payload at {@code [start, end)}, refused when an
     * untrusted call does not allow it; null when its serializer is of another kind or unknown.
     */
    private MsgpackSerializer<Object> inPlaceSerializer(int start, int end) {
        if (end - start < 8) {
            return null;
        }
        long hash = in.hashAt(start);
        if (lastRegistration != null && hash == lastHash) {
            return lastRegistration.msgpack(); // its trust was checked when it was met
        }
        RegistrationTable.Registration registration = decoder.registration(hash);
        if (registration == null) {
            return null;
        }
        MsgpackSerializer<Object> msgpack = registration.msgpack();
        if (msgpack != null && state.allowed != null && !state.allows(hash)) {
            throw decoder.refusal(hash, in.offsetOf(start));
        }
        lastHash = hash;
        lastRegistration = registration;
        lastMsgpack = msgpack;
        return msgpack;
    }

    /**
     * Reads the in-band section from the reader's position to its end (see
     * {@link InBandReader#readTrailingSection}): as {@link #read} reads an ext 0 payload, in place
     * when its serializer reads msgpack (the allow-list checked first), else through the decoder,
     * which keeps an unknown class's value opaque with the OOB buffers left when the enclosing
     * value is the outermost.
     */
    Object readTrailingSection() {
        int start = in.index();
        int end = in.end();
        if (end - start < ClassIdHash.SIZE) {
            throw in.error("an in-band section starts with an 8-byte ClassIDHash but only " + (end - start)
                    + " bytes are there", in.offsetOf(start));
        }
        MsgpackSerializer<Object> msgpack = inPlaceSerializer(start, end);
        if (msgpack == null) {
            Object value;
            try {
                value = decoder.readTrailingSectionAt(in.source(), in.sourceIndex(start), end - start, in.outOfBand(), state);
            } catch (DeserializationException e) {
                throw e.shiftOffset(in.offsetOf(start));
            }
            in.seek(end);
            return value;
        }
        RegistrationTable.Registration registration = lastRegistration; // the one msgpack is of
        state.enterValue(in.offsetOf(start));
        int savedLimit = in.bound(start + ClassIdHash.SIZE, end);
        int savedNesting = in.enterDocument();
        try {
            Object value = msgpack.read(in);
            in.expectEnd();
            return value;
        } catch (DeserializationException e) {
            throw e.enclosedIn(registration.classId());
        } catch (SerregException e) {
            throw e;
        } catch (RuntimeException e) {
            throw DeserializationException.serializerFailed(e, registration.classId());
        } finally {
            state.exitValue();
            in.exitDocument(savedNesting);
            in.unbound(savedLimit, end);
        }
    }

    /** An ext 0 payload read through the decoder, where it lies in this reader's buffer (no view of the section made). */
    private Object readSection(int start, int end) {
        try {
            return decoder.readSectionAt(in.source(), in.sourceIndex(start), end - start, in.outOfBand(), state);
        } catch (DeserializationException e) {
            throw e.shiftOffset(in.offsetOf(start));
        }
    }

    /**
     * Reads an ext 1 struct instance or an ext 2 list of instances ({@code list}, section 10.3) in
     * place, bounded to its payload, through the table of the enclosing {@code serreg.structs}
     * section; it counts as a nested value.
     */
    private Object readStruct(int start, int end, boolean list) {
        state.enterValue(in.offsetOf(start));
        int savedLimit = in.bound(start, end);
        int savedNesting = in.enterDocument();
        try {
            Object value = list ? SerializerRegistry.STRUCTS.readInstances(in) : SerializerRegistry.STRUCTS.readInstance(in);
            in.expectEnd();
            return value;
        } finally {
            state.exitValue();
            in.exitDocument(savedNesting);
            in.unbound(savedLimit, end);
        }
    }
}
