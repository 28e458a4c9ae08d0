package serreg;

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
    private final InBandReader in;
    private final ValueDecoder decoder;
    private final DecodeState state;
    private long lastHash;
    private RegistrationTable.Registration lastRegistration;
    /** The end and ext type of the payload {@link #openPayload} met last. */
    private int payloadEnd;
    private int payloadType;

    NestedReader(InBandReader in, ValueDecoder decoder, DecodeState state) {
        this.in = in;
        this.decoder = decoder;
        this.state = state;
    }

    /**
     * Reads the ext value at the reader's position. The frame that stays on the stack while a
     * nested value is read holds few locals (values may nest {@code maxDepth} deep, and a thread
     * of 256 KiB must read the deepest the limits allow): the header and the lookup are read by
     * methods that have returned by then.
     */
    Object read() {
        int start = openPayload();
        int end = payloadEnd;
        if (payloadType == InBandLayout.STRUCT_EXT_TYPE) {
            return readStruct(start, end, false);
        }
        if (payloadType == InBandLayout.STRUCT_LIST_EXT_TYPE) {
            return readStruct(start, end, true);
        }
        MsgpackSerializer<Object> msgpack = inPlaceSerializer(start, end);
        if (msgpack == null) {
            return readSection(start, end);
        }
        state.enterValue(in.offsetOf(start));
        int savedLimit = in.bound(start + 8, end);
        int savedNesting = in.enterDocument();
        try {
            Object value = msgpack.read(in);
            in.expectEnd();
            return value;
        } catch (DeserializationException e) {
            throw e.enclosedIn(lastRegistration.classId()); // offsets are already from this reader's start
        } catch (SerregException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new DeserializationException("serializer failed: " + e, -1, e).enclosedIn(lastRegistration.classId());
        } finally {
            state.exitValue();
            in.exitDocument(savedNesting);
            in.unbound(savedLimit, end);
        }
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
        int n = in.payloadLength(length, at, "ext " + type + " payload");
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
        RegistrationTable.Registration registration =
                lastRegistration != null && hash == lastHash ? lastRegistration : decoder.registration(hash);
        if (registration == null) {
            return null;
        }
        lastHash = hash;
        lastRegistration = registration;
        MsgpackSerializer<Object> msgpack = registration.msgpack();
        if (msgpack != null && state.allowed != null && !state.allows(hash)) {
            throw decoder.refusal(hash, in.offsetOf(start));
        }
        return msgpack;
    }

    /** An ext 0 payload read through the decoder, with a view of its section. */
    private Object readSection(int start, int end) {
        try {
            return decoder.readSection(in.view(start, end - start), in.outOfBand(), false, state);
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
