package serreg;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.Collection;
import serreg.types.OpaqueValue;
import serreg.wire.ClassIdHash;
import serreg.wire.FrameLayout;
import serreg.wire.FrameReader;
import serreg.wire.FrameSignature;
import serreg.wire.FrameView;

/**
 * Reads values: a frame (checked whole by {@link FrameReader} first), an in-process result, and
 * each in-band section inside them, within {@link Limits} held per call in a {@link DecodeState}.
 * An unknown ClassIDHash becomes an {@link OpaqueValue}. {@link InBandReader} calls
 * {@link #readSection} directly for ext 0 values. Package-private: it holds the registry's
 * default limits, which the registry's {@code limits()} and {@code setLimits} expose.
 */
final class ValueDecoder {
    private static final long PYOBJECTS_HASH = ClassIdHash.of(Trust.PYOBJECTS_CLASS_ID).toLong();
    private final RegistrationTable table;
    private volatile Limits limits = Limits.DEFAULT;
    private volatile boolean trusted = true;
    private volatile Set<String> allowedIds = Trust.dataClassIds();
    private volatile long[] allowedHashes = Trust.allowedHashes(Trust.dataClassIds());

    ValueDecoder(RegistrationTable table) {
        this.table = table;
    }

    boolean trusted() {
        return trusted;
    }

    void setTrusted(boolean trusted) {
        this.trusted = trusted;
    }

    Set<String> allowedClassIds() {
        return allowedIds;
    }

    synchronized void allow(Collection<String> classIds) {
        for (String classId : classIds) {
            Trust.checkAllowable(classId);
        }
        Set<String> ids = new TreeSet<>(allowedIds);
        ids.addAll(classIds);
        allowedIds = Set.copyOf(ids);
        allowedHashes = Trust.allowedHashes(ids);
    }

    /** The allow-list of a call in the registry's default mode (null when the registry is trusted). */
    long[] defaultAllowed() {
        return trusted ? null : allowedHashes;
    }

    /** The allow-list of a call: null when trusted. */
    long[] allowed(boolean trustedCall) {
        return trustedCall ? null : allowedHashes;
    }

    /** The refusal of an untrusted call for this ClassIDHash (u64 little-endian), at {@code offset}. */
    UntrustedClassIdException refusal(long hash, long offset) {
        RegistrationTable.Registration registration = table.byHash(hash);
        String classId = registration != null ? registration.classId() : null;
        if (classId == null) {
            for (String codeLoading : Trust.CODE_LOADING_CLASS_IDS) {
                if (ClassIdHash.of(codeLoading).toLong() == hash) {
                    classId = codeLoading;
                }
            }
        }
        return Trust.refusal(hash, classId, offset);
    }

    Limits limits() {
        return limits;
    }

    void setLimits(Limits limits) {
        this.limits = Objects.requireNonNull(limits, "limits");
    }

    /**
     * Reads the frame at {@code frame}'s position; errors carry offsets from the frame's start. A
     * frame without OOB buffers read without a key is checked and decoded where it lies (no view
     * of it is made); any other goes through {@link FrameReader#read}.
     */
    Object readFrame(ByteBuffer frame, Limits callLimits, byte[] key, boolean trustedCall) {
        try {
            if (key == null && FrameReader.check(frame, callLimits) == 0) {
                int at = frame.position();
                long inBandLength = le64(frame, at + 16); // checked: at most the frame's int-sized length
                try {
                    return readTopLevel(frame, at + FrameLayout.HEADER_SIZE, (int) inBandLength, List.of(), callLimits,
                            le64(frame, at + 24), trustedCall);
                } catch (DeserializationException e) {
                    throw e.shiftOffset(FrameLayout.HEADER_SIZE);
                }
            }
            if (key != null) {
                // Memory another process may change is copied once: what is verified is what is decoded.
                frame = FrameSignature.privateCopy(frame.slice(), callLimits);
            }
            FrameView view = FrameReader.read(frame, callLimits, key);
            List<ByteBuffer> buffers = view.outOfBand();
            long inBandOffset = FrameLayout.HEADER_SIZE + (long) FrameLayout.TABLE_ENTRY_SIZE * buffers.size();
            try {
                ByteBuffer inBand = view.inBand();
                return readTopLevel(inBand, inBand.position(), inBand.remaining(), buffers, callLimits,
                        le64(frame, frame.position() + 24), trustedCall); // checked by FrameReader.read
            } catch (DeserializationException e) {
                throw e.shiftOffset(inBandOffset);
            }
        } catch (DeserializationException e) {
            throw e;
        } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
            throw escaped(e);
        }
    }

    /** The u64 little-endian at an index of {@code b}, whatever its byte order. */
    private static long le64(ByteBuffer b, int i) {
        long v = b.getLong(i);
        return b.order() == ByteOrder.LITTLE_ENDIAN ? v : Long.reverseBytes(v);
    }

    /**
     * The last line of defence: whatever bytes were read, deserialize raises nothing but a
     * DeserializationException. Every check that can fail is made on purpose before this; an
     * exception or Error that still gets here (a check missing, a thread stack far smaller than
     * maxDepth needs, a heap too small for a frame within the limits) is turned into one that says
     * so, and the state of the call has already been released by the finally blocks it passed.
     */
    static DeserializationException escaped(Throwable e) {
        if (e instanceof StackOverflowError) {
            DeserializationException out = new LimitExceededException("the value is nested deeper than this thread's"
                    + " stack can decode (" + e + "); lower Limits.maxDepth or decode on a thread with a larger stack", -1);
            out.initCause(e);
            return out;
        }
        if (e instanceof OutOfMemoryError) {
            DeserializationException out = new LimitExceededException("decoding the frame needed more memory than the"
                    + " JVM could give (" + e + "); lower Limits.memoryPerByte or give the JVM more heap", -1);
            out.initCause(e);
            return out;
        }
        return new DeserializationException("the frame could not be read: an unchecked " + e + " escaped the reader",
                -1, e);
    }

    /** Reads an in-process result whose in-band is an in-band section. */
    Object readResult(SerializationResult result, Limits callLimits, boolean trustedCall) {
        List<ByteBuffer> buffers = result.outOfBand();
        long total = result.inBand().remaining();
        for (ByteBuffer b : buffers) {
            total += b.remaining();
        }
        try {
            ByteBuffer inBand = result.inBand();
            return readTopLevel(inBand, inBand.position(), inBand.remaining(), buffers, callLimits, total, trustedCall);
        } catch (DeserializationException e) {
            throw e;
        } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
            throw escaped(e);
        }
    }

    /** Reads the top-level section, the {@code length} bytes at index {@code from} of {@code inBand}. */
    private Object readTopLevel(ByteBuffer inBand, int from, int length, List<ByteBuffer> buffers, Limits callLimits,
            long frameBytes, boolean trustedCall) {
        DecodeState state = DecodeState.begin(callLimits, frameBytes, allowed(trustedCall));
        try {
            Iterator<ByteBuffer> oob = buffers.isEmpty() ? InBandReader.NO_BUFFERS : buffers.iterator();
            Object value = readSection(inBand, from, length, oob, true, state);
            int left = 0;
            while (oob.hasNext()) {
                oob.next();
                left++;
            }
            if (left > 0) {
                throw new DeserializationException("the value did not use the last " + left + " of the frame's "
                        + buffers.size() + " OOB buffers: no serializer used them");
            }
            return value;
        } finally {
            if (state != null) {
                state.end();
            }
        }
    }

    /**
     * Reads one in-band section (ClassIDHash + serializer in-band). {@code topLevel} tells whether
     * every remaining OOB buffer belongs to this value, which is how an unknown class ID's value
     * can be kept opaque with its buffers.
     */
    Object readSection(ByteBuffer section, Iterator<ByteBuffer> oob, boolean topLevel) {
        return readSection(section, oob, topLevel, null);
    }

    /** As {@link #readSection(ByteBuffer, Iterator, boolean)}, within the call {@code known} (null: look it up). */
    Object readSection(ByteBuffer section, Iterator<ByteBuffer> oob, boolean topLevel, DecodeState known) {
        return readSection(section, section.position(), section.remaining(), oob, topLevel, known);
    }

    /**
     * Reads the section that is the {@code length} bytes at index {@code from} of {@code buf}
     * (errors at offsets from there), within the call {@code known} (null: look it up).
     */
    private Object readSection(ByteBuffer buf, int from, int length, Iterator<ByteBuffer> oob, boolean topLevel,
            DecodeState known) {
        if (length < ClassIdHash.SIZE) {
            throw new DeserializationException("an in-band section starts with an 8-byte ClassIDHash but only "
                    + length + " bytes are there", 0);
        }
        long hash = le64(buf, from);
        // A serializer called directly (not through deserialize) still gets a depth count and the
        // registry's own trust.
        DecodeState started = known != null ? null : DecodeState.begin(limits, length, defaultAllowed());
        DecodeState state = known != null ? known : started != null ? started : DecodeState.current();
        try {
            if (!state.allows(hash)) {
                throw refusal(hash, 0);
            }
            RegistrationTable.Registration registration = registration(hash);
            if (registration == null) {
                ClassIdHash id = ClassIdHash.fromLong(hash);
                List<ByteBuffer> owned = takeOwnedBuffers(id, oob, topLevel);
                // serreg.pyobjects (Python only) has no serializer here but is named, as serreg.pickle5 is.
                return hash == PYOBJECTS_HASH ? OpaqueValue.of(Trust.PYOBJECTS_CLASS_ID, body(buf, from, length), owned)
                        : OpaqueValue.ofUnknown(id, body(buf, from, length), owned);
            }
            state.enterValue(0);
            try {
                MsgpackSerializer<Object> msgpack = registration.msgpack();
                return msgpack != null ? readInPlace(msgpack, buf, from, length, oob, state)
                        : registration.serializer().deserialize(body(buf, from, length), oob);
            } catch (DeserializationException e) {
                throw e.shiftOffset(ClassIdHash.SIZE).enclosedIn(registration.classId());
            } catch (SerregException e) {
                throw e;
            } catch (RuntimeException e) {
                throw DeserializationException.serializerFailed(e, registration.classId());
            } finally {
                state.exitValue();
            }
        } finally {
            if (started != null) {
                started.end();
            }
        }
    }

    /** A section's serializer in-band: the bytes after its ClassIDHash, as a view of its own. */
    private static ByteBuffer body(ByteBuffer buf, int from, int length) {
        return buf.slice(from + ClassIdHash.SIZE, length - ClassIdHash.SIZE);
    }

    /** What {@link MsgpackSerializer#deserialize} does, with the call's state handed over, reading the section where it lies. */
    private <T> T readInPlace(MsgpackSerializer<T> serializer, ByteBuffer buf, int from, int length,
            Iterator<ByteBuffer> oob, DecodeState state) {
        InBandReader in = ReaderPool.take(this, buf, from + ClassIdHash.SIZE, length - ClassIdHash.SIZE, oob, state);
        try {
            T value = serializer.read(in);
            in.expectEnd();
            return value;
        } finally {
            in.release();
        }
    }

    /**
     * A nested value's section, the {@code length} bytes at index {@code from} of {@code buf} (the
     * reader's own buffer: no view of the section is made), within the call {@code state}; errors
     * at offsets from the section's start.
     */
    Object readSectionAt(ByteBuffer buf, int from, int length, Iterator<ByteBuffer> oob, DecodeState state) {
        return readSection(buf, from, length, oob, false, state);
    }

    /**
     * A section that ends the document of the value being read ({@link InBandReader#readTrailingSection}),
     * the {@code length} bytes at index {@code from} of {@code buf}, within the call {@code state}:
     * the top-level one when that value is the outermost.
     */
    Object readTrailingSectionAt(ByteBuffer buf, int from, int length, Iterator<ByteBuffer> oob, DecodeState state) {
        return readSection(buf, from, length, oob, state.depth() <= 1, state);
    }

    /** A section inside a value being read (the top-level one when it is the outermost value). */
    Object readNestedSection(ByteBuffer section, Iterator<ByteBuffer> oob) {
        DecodeState state = DecodeState.current();
        return readSection(section, oob, state == null || state.depth() <= 1);
    }

    /** The registration under the ClassIDHash whose wire bytes read as this u64 little-endian, or null (no allocation). */
    RegistrationTable.Registration registration(long hash) {
        return table.byHash(hash);
    }

    /**
     * The OOB buffers a value of an unknown class ID owns. At the top level that is every buffer
     * left; inside a document it can only be known when none is left (docs/FORMAT.md section 3).
     */
    private static List<ByteBuffer> takeOwnedBuffers(ClassIdHash hash, Iterator<ByteBuffer> oob, boolean topLevel) {
        List<ByteBuffer> owned = new ArrayList<>();
        if (topLevel) {
            oob.forEachRemaining(owned::add);
        } else if (oob.hasNext()) {
            throw new DeserializationException("a nested value of unknown ClassIDHash " + hash.toHex()
                    + " is followed by OOB buffers, and without its serializer Java cannot tell how many"
                    + " of them it owns; register a serializer for its class ID", 0);
        }
        return owned;
    }
}
