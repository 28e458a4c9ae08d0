package serreg.types;

import java.nio.ByteBuffer;

/**
 * Python's {@code bytearray} (class ID {@code bytearray}): mutable bytes sent out-of-band.
 * Decoded from a frame, {@link #data()} is a view of the frame (no copy); writes through it
 * change the frame's memory.
 */
public final class PyByteArray {
    private final ByteBuffer data;

    public PyByteArray(ByteBuffer data) {
        this.data = Buffers.view(data);
    }

    public static PyByteArray of(byte[] bytes) {
        return new PyByteArray(ByteBuffer.wrap(bytes.clone()));
    }

    /** A view of the bytes (position 0, limit = length). */
    public ByteBuffer data() {
        return data.duplicate();
    }

    public byte[] toByteArray() {
        byte[] out = new byte[data.remaining()];
        data.duplicate().get(out);
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PyByteArray b && b.data.equals(data);
    }

    @Override
    public int hashCode() {
        return data.hashCode();
    }

    @Override
    public String toString() {
        return "PyByteArray(" + Buffers.hex(data, 64) + ")";
    }
}
