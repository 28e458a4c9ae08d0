package serreg.types;

import java.nio.ByteBuffer;

/** Small helpers for the ByteBuffer-backed value classes. */
final class Buffers {
    private Buffers() {
    }

    /** A read-only view of the buffer's remaining bytes (no copy). */
    static ByteBuffer view(ByteBuffer buffer) {
        return buffer.slice();
    }

    static String hex(ByteBuffer buffer, int max) {
        ByteBuffer b = buffer.duplicate();
        StringBuilder sb = new StringBuilder();
        int n = Math.min(b.remaining(), max);
        for (int i = 0; i < n; i++) {
            int v = b.get(b.position() + i) & 0xff;
            sb.append(Character.forDigit(v >> 4, 16)).append(Character.forDigit(v & 0xf, 16));
        }
        if (b.remaining() > max) {
            sb.append("...(").append(b.remaining()).append(" bytes)");
        }
        return sb.toString();
    }
}
