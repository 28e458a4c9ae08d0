package serreg;

import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import serreg.canonical.Canonical;

/**
 * The canonical form and content digest of docs/FORMAT.md section 9, on the default registry
 * or a given one: {@code Serreg.digest(value)} is the same 32 bytes as Python's
 * {@code serreg.digest(value)} for the same value.
 */
public final class Serreg {
    private Serreg() {
    }

    /** The canonical serialization result of {@code value} (its frame is one byte string per value). */
    public static SerializationResult serializeCanonical(Object value) {
        return serializeCanonical(SerializerRegistry.getDefault(), value);
    }

    /**
     * The canonical serialization result of {@code value} on {@code registry}: structs inside
     * have the table sorted by their definitions' bytes (docs/FORMAT.md section 10.5).
     */
    public static SerializationResult serializeCanonical(SerializerRegistry registry, Object value) {
        return registry.serializeCanonical(() -> Canonical.of(value, registry));
    }

    /** SHA-256 of the canonical frame of {@code value}; buffers are hashed in place, never joined. */
    public static byte[] digest(Object value) {
        return digest(SerializerRegistry.getDefault(), value);
    }

    public static byte[] digest(SerializerRegistry registry, Object value) {
        return digestOf(serializeCanonical(registry, value));
    }

    /** SHA-256 of the contiguous frame of {@code result}, fed piece by piece. */
    public static byte[] digestOf(SerializationResult result) {
        MessageDigest sha256;
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
        result.writeTo(new WritableByteChannel() {
            @Override
            public int write(ByteBuffer src) {
                int n = src.remaining();
                sha256.update(src);
                return n;
            }

            @Override
            public boolean isOpen() {
                return true;
            }

            @Override
            public void close() {
            }
        });
        return sha256.digest();
    }
}
