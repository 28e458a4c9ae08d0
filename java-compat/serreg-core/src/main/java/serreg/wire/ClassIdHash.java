package serreg.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The 8-byte ClassIDHash of a class ID: the first 8 bytes of SHA-256 of its UTF-8 bytes
 * (docs/FORMAT.md section 2). Immutable; {@link #toLong()} reads the wire bytes as a u64
 * little-endian.
 */
public final class ClassIdHash {
    /** Size of a ClassIDHash on the wire. */
    public static final int SIZE = 8;

    private final long value;

    private ClassIdHash(long value) {
        this.value = value;
    }

    /** The hash of {@code classId}. */
    public static ClassIdHash of(String classId) {
        if (classId == null || classId.isEmpty()) {
            throw new IllegalArgumentException("a class ID is a non-empty string");
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(classId.getBytes(StandardCharsets.UTF_8));
            return new ClassIdHash(ByteBuffer.wrap(digest, 0, SIZE).order(ByteOrder.LITTLE_ENDIAN).getLong());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** Reads the hash stored at {@code index} of {@code buffer} (absolute; the position is not moved). */
    public static ClassIdHash readFrom(ByteBuffer buffer, int index) {
        return new ClassIdHash(buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN).getLong(index));
    }

    /** The hash whose wire bytes, read as u64 little-endian, are {@code value}. */
    public static ClassIdHash fromLong(long value) {
        return new ClassIdHash(value);
    }

    public long toLong() {
        return value;
    }

    /** The 8 wire bytes. */
    public byte[] toBytes() {
        return ByteBuffer.allocate(SIZE).order(ByteOrder.LITTLE_ENDIAN).putLong(value).array();
    }

    /** Writes the 8 wire bytes at the buffer's position, advancing it. */
    public void writeTo(ByteBuffer buffer) {
        buffer.put(toBytes());
    }

    /** Lower-case hex of the wire bytes, as in docs/FORMAT.md. */
    public String toHex() {
        StringBuilder sb = new StringBuilder(2 * SIZE);
        for (byte b : toBytes()) {
            sb.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
        }
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClassIdHash other && other.value == value;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(value);
    }

    @Override
    public String toString() {
        return "ClassIdHash(" + toHex() + ")";
    }
}
