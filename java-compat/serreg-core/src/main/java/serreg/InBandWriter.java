package serreg;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/**
 * Writes one serializer's in-band msgpack document and collects its OOB buffers.
 *
 * <p>{@link #writeValue} writes any value: natively when its serializer is an
 * {@link InlineSerializer}, otherwise as ext 0 holding the nested value's in-band section, whose
 * OOB buffers are appended to this writer's list at that moment (docs/FORMAT.md section 3).
 * Every integer and length gets msgpack's shortest encoding; text is strict UTF-8.
 * Not thread-safe; one writer per serialize call.
 */
public final class InBandWriter {
    private final SerializerRegistry registry;
    private final ValueEncoder encoder;
    private final MessageBufferPacker packer = MessagePack.newDefaultBufferPacker();
    private final List<ByteBuffer> outOfBand = new ArrayList<>();

    public InBandWriter(SerializerRegistry registry) {
        this.registry = registry;
        this.encoder = registry.encoder();
    }

    public SerializerRegistry registry() {
        return registry;
    }

    /** Writes any value (native msgpack or ext 0). */
    public InBandWriter writeValue(Object value) {
        if (encoder.serializerFor(value) instanceof InlineSerializer<?> inline && writesInline(inline, value)) {
            writeInline(inline, value);
        } else {
            writeExtNested(encoder.serialize(value));
        }
        return this;
    }

    @SuppressWarnings("unchecked")
    private static <T> boolean writesInline(InlineSerializer<T> serializer, Object value) {
        return serializer.writesInline((T) value);
    }

    @SuppressWarnings("unchecked")
    private <T> void writeInline(InlineSerializer<T> serializer, Object value) {
        serializer.writeInline((T) value, this);
    }

    /** Writes an in-band section as ext 0 and takes its OOB buffers (section 3). */
    private void writeExtNested(SerializationResult section) {
        ByteBuffer payload = section.inBand();
        try {
            packer.packExtensionTypeHeader((byte) 0, payload.remaining());
            packer.writePayload(toArray(payload));
        } catch (IOException e) {
            throw fail(e);
        }
        outOfBand.addAll(section.outOfBand());
    }

    public InBandWriter writeNil() {
        try {
            packer.packNil();
        } catch (IOException e) {
            throw fail(e);
        }
        return this;
    }

    public InBandWriter writeBoolean(boolean v) {
        try {
            packer.packBoolean(v);
        } catch (IOException e) {
            throw fail(e);
        }
        return this;
    }

    public InBandWriter writeLong(long v) {
        try {
            packer.packLong(v);
        } catch (IOException e) {
            throw fail(e);
        }
        return this;
    }

    /** Writes an integer in [-2^63, 2^64) as a msgpack int. */
    public InBandWriter writeInteger(BigInteger v) {
        try {
            packer.packBigInteger(v);
        } catch (IOException | IllegalArgumentException e) {
            throw new SerializationException("integer " + v + " is outside the msgpack int range", e);
        }
        return this;
    }

    /** Writes a u64 held in a long's bits. */
    public InBandWriter writeUnsignedLong(long bits) {
        return bits >= 0 ? writeLong(bits) : writeInteger(new BigInteger(Long.toUnsignedString(bits)));
    }

    public InBandWriter writeDouble(double v) {
        try {
            packer.packDouble(v);
        } catch (IOException e) {
            throw fail(e);
        }
        return this;
    }

    /** msgpack float 32: only numpy.float32 and numpy.complex64 use it (section 3). */
    public InBandWriter writeFloat(float v) {
        try {
            packer.packFloat(v);
        } catch (IOException e) {
            throw fail(e);
        }
        return this;
    }

    /** Writes a msgpack str; refuses text that is not valid UTF-16 (lone surrogates). */
    public InBandWriter writeString(String s) {
        byte[] utf8 = strictUtf8(s);
        try {
            packer.packRawStringHeader(utf8.length);
            packer.writePayload(utf8);
        } catch (IOException e) {
            throw fail(e);
        }
        return this;
    }

    public InBandWriter writeBinary(byte[] bytes) {
        return writeBinary(ByteBuffer.wrap(bytes));
    }

    public InBandWriter writeBinary(ByteBuffer bytes) {
        try {
            packer.packBinaryHeader(bytes.remaining());
            packer.writePayload(toArray(bytes));
        } catch (IOException e) {
            throw fail(e);
        }
        return this;
    }

    public InBandWriter writeArrayHeader(int size) {
        try {
            packer.packArrayHeader(size);
        } catch (IOException e) {
            throw fail(e);
        }
        return this;
    }

    public InBandWriter writeMapHeader(int size) {
        try {
            packer.packMapHeader(size);
        } catch (IOException e) {
            throw fail(e);
        }
        return this;
    }

    /** Appends raw, already-encoded msgpack bytes (used for sorted set elements). */
    public InBandWriter writeEncoded(byte[] msgpack) {
        try {
            packer.writePayload(msgpack);
        } catch (IOException e) {
            throw fail(e);
        }
        return this;
    }

    /** Appends an OOB buffer (held by reference, not copied). */
    public InBandWriter addOutOfBand(ByteBuffer buffer) {
        outOfBand.add(buffer);
        return this;
    }

    /** The document written so far as a serializer result. */
    public SerializationResult finish() {
        return new SerializationResult(ByteBuffer.wrap(packer.toByteArray()), List.copyOf(outOfBand));
    }

    static byte[] strictUtf8(String s) {
        CharsetEncoder encoder = StandardCharsets.UTF_8.newEncoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        try {
            ByteBuffer encoded = encoder.encode(CharBuffer.wrap(s));
            return toArray(encoded);
        } catch (CharacterCodingException e) {
            throw new SerializationException("string is not valid Unicode text (lone surrogate?) and cannot be sent as a msgpack str", e);
        }
    }

    static byte[] toArray(ByteBuffer buffer) {
        ByteBuffer b = buffer.duplicate();
        if (b.hasArray() && b.arrayOffset() == 0 && b.position() == 0 && b.remaining() == b.array().length) {
            return b.array();
        }
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    private static SerializationException fail(IOException e) {
        return new SerializationException("msgpack packing failed", e);
    }
}
