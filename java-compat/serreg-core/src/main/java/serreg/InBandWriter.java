package serreg;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
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
 * reserved ext 8 one). Strings are encoded straight into the array (ASCII byte for byte).
 * Not thread-safe; one writer per serialize call.
 */
public final class InBandWriter {
    /** The ext 8 header (0xc7, length, type) reserved before a nested value. */
    private static final int RESERVED_EXT_HEADER = 3;
    /** The msgpack ext type of a struct instance (docs/FORMAT.md section 10.3). */
    private static final int STRUCT_EXT_TYPE = 1;

    private final SerializerRegistry registry;
    private final ValueEncoder encoder;
    private byte[] buf;
    private int pos;
    private List<ByteBuffer> outOfBand;
    /** Whether {@link #buf} came from {@link ScratchBuffers} and goes back there on {@link #release}. */
    private final boolean pooled;
    /** The classes met last and their registrations (replaced round-robin). */
    private static final int SEEN = 4;
    private Class<?>[] seenClasses;
    private RegistrationTable.Registration[] seenRegistrations;
    private int nextSeen;
    /** The class of the last value written (and its registration): lists are mostly of one class. */
    private Class<?> lastClass;
    private RegistrationTable.Registration lastRegistration;

    /**
     * A writer for one document.
     *
     * @param registry the registry nested values are looked up in
     */
    public InBandWriter(SerializerRegistry registry) {
        this(registry, new byte[64], false);
    }

    private InBandWriter(SerializerRegistry registry, byte[] buf, boolean pooled) {
        this.registry = registry;
        this.encoder = registry.encoder();
        this.buf = buf;
        this.pooled = pooled;
    }

    /** A writer on this thread's scratch array; call {@link #release} when its bytes are no longer needed. */
    static InBandWriter pooled(SerializerRegistry registry) {
        return new InBandWriter(registry, ScratchBuffers.take(), true);
    }

    /** Hands the scratch array back (a pooled writer); the writer must not be used afterwards. */
    void release() {
        if (pooled) {
            ScratchBuffers.give(buf);
            buf = null;
        }
    }

    public SerializerRegistry registry() {
        return registry;
    }

    /** Writes any value (native msgpack or ext 0). */
    public InBandWriter writeValue(Object value) {
        if (value instanceof OpaqueValue opaque) {
            int headerAt = reserveExtHeader();
            int start = pos;
            writeSectionOf(opaque);
            patchExtHeader(headerAt, start, 0);
            return this;
        }
        RegistrationTable.Registration registration = registrationFor(value);
        InlineSerializer<Object> inline = registration.inline();
        if (inline != null && inline.writesInline(value)) {
            inline.writeInline(value, this);
        } else if (registration.struct()) {
            // A struct instance: ext 1 holding [definition index, fields...] (section 10.3), no ClassIDHash.
            int headerAt = reserveExtHeader();
            int start = pos;
            encoder.writeBody(registration, value, this);
            patchExtHeader(headerAt, start, STRUCT_EXT_TYPE);
        } else {
            int headerAt = reserveExtHeader();
            int start = pos;
            Bytes.putLongLE(buf, pos, registration.hash().toLong()); // reserveExtHeader made room for it
            pos += 8;
            encoder.writeBody(registration, value, this);
            patchExtHeader(headerAt, start, 0);
        }
        return this;
    }

    /**
     * The registration of a value's class, from a few classes this writer met last (a document
     * mostly repeats a few classes), else from the registry. Values that name their own class
     * ID ({@link HasClassId}) and null are never cached.
     */
    private RegistrationTable.Registration registrationFor(Object value) {
        if (value == null) {
            return encoder.registrationFor(null);
        }
        Class<?> cls = value.getClass();
        if (cls == lastClass) {
            return lastRegistration;
        }
        return registrationOfOther(value, cls);
    }

    private RegistrationTable.Registration registrationOfOther(Object value, Class<?> cls) {
        if (seenClasses == null) {
            seenClasses = new Class<?>[SEEN];
            seenRegistrations = new RegistrationTable.Registration[SEEN];
        }
        Class<?>[] classes = seenClasses;
        for (int i = 0; i < SEEN; i++) {
            if (classes[i] == cls) {
                lastClass = cls;
                lastRegistration = seenRegistrations[i];
                return lastRegistration;
            }
        }
        RegistrationTable.Registration found = encoder.registrationFor(value);
        if (!(value instanceof HasClassId)) {
            int slot = nextSeen;
            classes[slot] = cls;
            seenRegistrations[slot] = found;
            nextSeen = (slot + 1) & (SEEN - 1);
            lastClass = cls;
            lastRegistration = found;
        }
        return found;
    }

    /** Writes an opaque value's in-band section (its ClassIDHash and in-band, as received) and takes its buffers. */
    void writeSectionOf(OpaqueValue opaque) {
        writeHash(opaque.classIdHash().toLong());
        writeRaw(opaque.inBand());
        for (ByteBuffer b : opaque.outOfBand()) {
            addOutOfBand(b);
        }
    }

    /** Writes the 8 wire bytes of a ClassIDHash (its u64 little-endian reading). */
    void writeHash(long hash) {
        ensure(8);
        Bytes.putLongLE(buf, pos, hash);
        pos += 8;
    }

    /** Appends bytes as they are (another serializer's in-band). */
    void writeRaw(ByteBuffer bytes) {
        int n = bytes.remaining();
        ensure(n);
        bytes.duplicate().get(buf, pos, n);
        pos += n;
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
        int size = length == 1 || length == 2 || length == 4 || length == 8 || length == 16 ? 2
                : length <= 0xff ? 3 : length <= 0xffff ? 4 : 6;
        if (size != RESERVED_EXT_HEADER) {
            ensure(size - RESERVED_EXT_HEADER);
            System.arraycopy(buf, start, buf, headerAt + size, length);
            pos = headerAt + size + length;
        }
        byte[] b = buf;
        switch (size) {
            case 2 -> b[headerAt] = (byte) (length == 1 ? 0xd4 : length == 2 ? 0xd5 : length == 4 ? 0xd6 : length == 8 ? 0xd7 : 0xd8);
            case 3 -> {
                b[headerAt] = (byte) 0xc7;
                b[headerAt + 1] = (byte) length;
            }
            case 4 -> {
                b[headerAt] = (byte) 0xc8;
                Bytes.putShortBE(b, headerAt + 1, (short) length);
            }
            default -> {
                b[headerAt] = (byte) 0xc9;
                Bytes.putIntBE(b, headerAt + 1, length);
            }
        }
        b[headerAt + size - 1] = (byte) type;
    }

    public InBandWriter writeNil() {
        ensure(1);
        buf[pos++] = (byte) 0xc0;
        return this;
    }

    public InBandWriter writeBoolean(boolean v) {
        ensure(1);
        buf[pos++] = (byte) (v ? 0xc3 : 0xc2);
        return this;
    }

    public InBandWriter writeLong(long v) {
        ensure(9);
        byte[] b = buf;
        int p = pos;
        if (v >= 0) {
            if (v < 0x80) {
                b[p++] = (byte) v;
            } else if (v <= 0xff) {
                b[p++] = (byte) 0xcc;
                b[p++] = (byte) v;
            } else if (v <= 0xffff) {
                b[p] = (byte) 0xcd;
                Bytes.putShortBE(b, p + 1, (short) v);
                p += 3;
            } else if (v <= 0xffffffffL) {
                b[p] = (byte) 0xce;
                Bytes.putIntBE(b, p + 1, (int) v);
                p += 5;
            } else {
                b[p] = (byte) 0xcf;
                Bytes.putLongBE(b, p + 1, v);
                p += 9;
            }
        } else if (v >= -32) {
            b[p++] = (byte) v;
        } else if (v >= Byte.MIN_VALUE) {
            b[p++] = (byte) 0xd0;
            b[p++] = (byte) v;
        } else if (v >= Short.MIN_VALUE) {
            b[p] = (byte) 0xd1;
            Bytes.putShortBE(b, p + 1, (short) v);
            p += 3;
        } else if (v >= Integer.MIN_VALUE) {
            b[p] = (byte) 0xd2;
            Bytes.putIntBE(b, p + 1, (int) v);
            p += 5;
        } else {
            b[p] = (byte) 0xd3;
            Bytes.putLongBE(b, p + 1, v);
            p += 9;
        }
        pos = p;
        return this;
    }

    /** Writes an integer in [-2^63, 2^64) as a msgpack int. */
    public InBandWriter writeInteger(BigInteger v) {
        if (v.bitLength() < 64) {
            return writeLong(v.longValue());
        }
        if (v.signum() < 0 || v.bitLength() > 64) {
            throw new SerializationException("integer " + v + " is outside the msgpack int range");
        }
        ensure(9);
        buf[pos] = (byte) 0xcf;
        Bytes.putLongBE(buf, pos + 1, v.longValue());
        pos += 9;
        return this;
    }

    /** Writes a u64 held in a long's bits. */
    public InBandWriter writeUnsignedLong(long bits) {
        if (bits >= 0) {
            return writeLong(bits);
        }
        ensure(9);
        buf[pos] = (byte) 0xcf;
        Bytes.putLongBE(buf, pos + 1, bits);
        pos += 9;
        return this;
    }

    public InBandWriter writeDouble(double v) {
        ensure(9);
        buf[pos] = (byte) 0xcb;
        Bytes.putLongBE(buf, pos + 1, Double.doubleToRawLongBits(v));
        pos += 9;
        return this;
    }

    /** msgpack float 32: only numpy.float32 and numpy.complex64 use it (section 3). */
    public InBandWriter writeFloat(float v) {
        ensure(5);
        buf[pos] = (byte) 0xca;
        Bytes.putIntBE(buf, pos + 1, Float.floatToRawIntBits(v));
        pos += 5;
        return this;
    }

    /** Writes a msgpack str; refuses text that is not valid UTF-16 (lone surrogates). */
    public InBandWriter writeString(String s) {
        int n = s.length();
        int start = pos;
        ensure(5 + n);
        writeStrHeader(n);
        byte[] b = buf;
        int at = pos;
        int i = 0;
        for (; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x80) {
                break;
            }
            b[at + i] = (byte) c;
        }
        if (i == n) {
            pos = at + n;
            return this;
        }
        pos = start;
        long length = Utf8.encodedLength(s);
        if (length < 0) {
            throw new SerializationException("string is not valid Unicode text (lone surrogate at index " + (-1 - length)
                    + ") and cannot be sent as a msgpack str");
        }
        if (length > Integer.MAX_VALUE - 16) {
            throw new SerializationException("a string of " + length + " UTF-8 bytes does not fit in one Java array");
        }
        ensure(5 + (int) length);
        writeStrHeader((int) length);
        pos = Utf8.encode(s, buf, pos);
        return this;
    }

    private void writeStrHeader(int n) {
        byte[] b = buf;
        if (n < 32) {
            b[pos++] = (byte) (0xa0 | n);
        } else if (n <= 0xff) {
            b[pos++] = (byte) 0xd9;
            b[pos++] = (byte) n;
        } else if (n <= 0xffff) {
            b[pos] = (byte) 0xda;
            Bytes.putShortBE(b, pos + 1, (short) n);
            pos += 3;
        } else {
            b[pos] = (byte) 0xdb;
            Bytes.putIntBE(b, pos + 1, n);
            pos += 5;
        }
    }

    public InBandWriter writeBinary(byte[] bytes) {
        writeBinaryHeader(bytes.length);
        System.arraycopy(bytes, 0, buf, pos, bytes.length);
        pos += bytes.length;
        return this;
    }

    public InBandWriter writeBinary(ByteBuffer bytes) {
        int n = bytes.remaining();
        writeBinaryHeader(n);
        bytes.duplicate().get(buf, pos, n);
        pos += n;
        return this;
    }

    /** Writes a bin header and makes room for its {@code n} bytes. */
    private void writeBinaryHeader(int n) {
        ensure(5 + n);
        byte[] b = buf;
        if (n <= 0xff) {
            b[pos++] = (byte) 0xc4;
            b[pos++] = (byte) n;
        } else if (n <= 0xffff) {
            b[pos] = (byte) 0xc5;
            Bytes.putShortBE(b, pos + 1, (short) n);
            pos += 3;
        } else {
            b[pos] = (byte) 0xc6;
            Bytes.putIntBE(b, pos + 1, n);
            pos += 5;
        }
    }

    public InBandWriter writeArrayHeader(int size) {
        return writeContainerHeader(size, 0x90, 0xdc);
    }

    public InBandWriter writeMapHeader(int size) {
        return writeContainerHeader(size, 0x80, 0xde);
    }

    private InBandWriter writeContainerHeader(int size, int fix, int wide) {
        if (size < 0) {
            throw new SerializationException("a msgpack container cannot hold " + size + " items");
        }
        ensure(5);
        if (size < 16) {
            buf[pos++] = (byte) (fix | size);
        } else if (size <= 0xffff) {
            buf[pos] = (byte) wide;
            Bytes.putShortBE(buf, pos + 1, (short) size);
            pos += 3;
        } else {
            buf[pos] = (byte) (wide + 1);
            Bytes.putIntBE(buf, pos + 1, size);
            pos += 5;
        }
        return this;
    }

    /** Appends raw, already-encoded msgpack bytes (used for sorted set elements). */
    public InBandWriter writeEncoded(byte[] msgpack) {
        ensure(msgpack.length);
        System.arraycopy(msgpack, 0, buf, pos, msgpack.length);
        pos += msgpack.length;
        return this;
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
        return ByteBuffer.wrap(buf, 0, pos);
    }

    /** The OOB buffers collected so far (the writer's own list, or an empty one). */
    List<ByteBuffer> outOfBand() {
        return outOfBand == null ? List.of() : outOfBand;
    }

    private void ensure(int n) {
        if (n > buf.length - pos) {
            grow(n);
        }
    }

    private void grow(int n) {
        long needed = (long) pos + n;
        if (needed > Integer.MAX_VALUE - 16) {
            throw new SerializationException("an in-band of " + needed + " bytes does not fit in one Java array;"
                    + " large data belongs in OOB buffers (an NDArray, a bytearray)");
        }
        int size = (int) Math.max(needed, Math.min((long) buf.length * 2, Integer.MAX_VALUE - 16));
        buf = java.util.Arrays.copyOf(buf, Math.max(size, 64));
    }
}
