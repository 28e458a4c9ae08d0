package serreg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.List;
import serreg.wire.FrameSignature;
import serreg.wire.FrameWriter;

/**
 * An in-band byte string plus an ordered list of out-of-band buffers.
 *
 * <p>Results returned by {@link SerializerRegistry#serialize} have an in-band that starts with
 * the value's ClassIDHash (an "in-band section"); results returned by a {@link Serializer} do
 * not. The buffers are held by reference, never copied: OOB buffers are usually views of the
 * value's own memory (an NDArray's data, an Arrow vector's buffers), so keep that value alive
 * and unchanged until the result has been written.
 *
 * <p>A result made by {@link #signed(byte[])} (or {@link SerializerRegistry#serialize(Object, byte[])})
 * writes signed frames (docs/FORMAT.md section 4.2): flag 0x01 and a 32-byte HMAC-SHA256 trailer.
 */
public final class SerializationResult {
    private final ByteBuffer inBand;
    private final List<ByteBuffer> outOfBand;
    /** The key its frames are signed with (a private copy), or null for unsigned frames. */
    private final byte[] signingKey;

    public SerializationResult(ByteBuffer inBand, List<ByteBuffer> outOfBand) {
        this.inBand = inBand.slice();
        this.outOfBand = slices(outOfBand);
        this.signingKey = null;
    }

    private static List<ByteBuffer> slices(List<ByteBuffer> buffers) {
        int n = buffers.size();
        if (n == 0) {
            return List.of();
        }
        ByteBuffer[] out = new ByteBuffer[n];
        for (int i = 0; i < n; i++) {
            out[i] = buffers.get(i).slice();
        }
        return List.of(out);
    }

    private SerializationResult(SerializationResult unsigned, byte[] key) {
        this.inBand = unsigned.inBand;
        this.outOfBand = unsigned.outOfBand;
        this.signingKey = key;
    }

    /**
     * The same in-band and buffers (shared, not copied), written as frames signed with
     * {@code key}: at least 16 bytes, 32 random bytes recommended. The key is copied.
     *
     * @throws IllegalArgumentException if the key is null or shorter than 16 bytes
     */
    public SerializationResult signed(byte[] key) {
        return new SerializationResult(this, FrameSignature.checkKey(key));
    }

    /** Whether this result writes signed frames. */
    public boolean isSigned() {
        return signingKey != null;
    }

    byte[] signingKey() {
        return signingKey;
    }

    public SerializationResult(ByteBuffer inBand) {
        this(inBand, List.of());
    }

    /** The in-band bytes (a fresh view each call: position 0, limit = length). */
    public ByteBuffer inBand() {
        return inBand.duplicate();
    }

    /** The in-band bytes as held (for the writer, which copies them without moving the position). */
    ByteBuffer inBandHeld() {
        return inBand;
    }

    /** The OOB buffers as held (for the writer, whose own result makes views of them again). */
    List<ByteBuffer> outOfBandHeld() {
        return outOfBand;
    }

    /** The OOB buffers in order (fresh views). */
    public List<ByteBuffer> outOfBand() {
        int n = outOfBand.size();
        if (n == 0) {
            return List.of();
        }
        ByteBuffer[] out = new ByteBuffer[n];
        for (int i = 0; i < n; i++) {
            out[i] = outOfBand.get(i).duplicate();
        }
        return List.of(out);
    }

    /** Size in bytes of the contiguous frame for this result (section 4), the trailer of a signed one included. */
    public long frameLength() {
        return FrameWriter.frameLength(inBand, outOfBand, isSigned());
    }

    /** The contiguous frame as one heap buffer (copies every buffer once). */
    public ByteBuffer toFrame() {
        return FrameWriter.toFrame(inBand, outOfBand, signingKey);
    }

    /**
     * Writes the contiguous frame to {@code channel}, handing the OOB buffers to the channel
     * without copying them first (a gathering write where the channel supports it).
     *
     * @return the number of bytes written, always {@link #frameLength()}
     */
    public long writeTo(WritableByteChannel channel) {
        try {
            return FrameWriter.writeTo(inBand, outOfBand, signingKey, channel);
        } catch (IOException e) {
            throw new UncheckedIOException("writing a serreg frame failed", e);
        }
    }

    @Override
    public String toString() {
        return "SerializationResult(inBand=" + inBand.remaining() + " bytes, outOfBand="
                + outOfBand.stream().map(b -> Integer.toString(b.remaining())).toList() + (isSigned() ? ", signed" : "") + ")";
    }
}
