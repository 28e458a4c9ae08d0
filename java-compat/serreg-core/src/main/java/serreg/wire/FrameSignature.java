package serreg.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import serreg.LimitExceededException;
import serreg.Limits;
import serreg.SignatureException;

/**
 * HMAC-SHA256 signed frames v2 (docs/FORMAT.md section 4.2): flag bit 0x02 in the header and a
 * 32-byte trailer holding the HMAC of every frame byte before it, under a key derived from the
 * shared key: {@code SHA-256("serreg-frame-key-v2" || u64 big-endian key length || key)}, so no
 * two keys sign alike (with the key as given, a key equals itself plus zero bytes). Frames of the
 * retired scheme (flag 0x01, the key as given) are refused.
 */
public final class FrameSignature {
    /** The header flag bit of a signed frame (signed frames v2). */
    public static final int FLAG_SIGNED = 0x02;
    /** The header flag bit of the retired signed frames v1 (HMAC under the key as given): refused. */
    public static final int FLAG_SIGNED_V1 = 0x01;
    /** Bytes of the HMAC-SHA256 trailer. */
    public static final int SIZE = 32;
    /** The shortest key accepted. */
    public static final int MIN_KEY_SIZE = 16;
    private static final byte[] KEY_CONTEXT = "serreg-frame-key-v2".getBytes(StandardCharsets.US_ASCII);
    private static final String ALGORITHM = "HmacSHA256";

    private FrameSignature() {
    }

    /** A private copy of {@code key}, or IllegalArgumentException saying what a key must be. */
    public static byte[] checkKey(byte[] key) {
        if (key == null) {
            throw new IllegalArgumentException("a signing key is required here (got null); use the overload"
                    + " without a key to read or write unsigned frames");
        }
        if (key.length < MIN_KEY_SIZE) {
            throw new IllegalArgumentException("a signing key must be at least " + MIN_KEY_SIZE + " bytes (it is "
                    + key.length + "); use 32 random bytes, e.g. from java.security.SecureRandom");
        }
        return key.clone();
    }

    /** The HMAC key of signed frames v2 for the shared {@code key}. */
    static byte[] macKey(byte[] key) {
        try {
            MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
            sha256.update(KEY_CONTEXT);
            sha256.update(ByteBuffer.allocate(8).putLong(key.length).array());
            sha256.update(key);
            return sha256.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    private static Mac mac(byte[] key) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(macKey(key), ALGORITHM));
            return mac;
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("every Java runtime has " + ALGORITHM, e);
        }
    }

    /** The HMAC of the pieces, in order, fed one by one (nothing is joined or moved). */
    public static byte[] sign(byte[] key, List<ByteBuffer> pieces) {
        Mac mac = mac(key);
        for (ByteBuffer piece : pieces) {
            mac.update(piece.duplicate());
        }
        return mac.doFinal();
    }

    /**
     * Checks the trailer at {@code frame[signedEnd, signedEnd + 32)} against the HMAC of
     * {@code frame[0, signedEnd)}, comparing in constant time.
     */
    public static void verify(byte[] key, ByteBuffer frame, int signedEnd) {
        Mac mac = mac(key);
        mac.update(frame.duplicate().position(0).limit(signedEnd));
        byte[] trailer = new byte[SIZE];
        frame.duplicate().position(signedEnd).get(trailer);
        if (!MessageDigest.isEqual(mac.doFinal(), trailer)) {
            throw new SignatureException("the frame's signature does not match: it was signed with another key or"
                    + " altered after signing; nothing was decoded", signedEnd);
        }
    }

    static SignatureException retiredV1() {
        return new SignatureException("the frame is signed with serreg's retired signature scheme (flag 0x01:"
                + " HMAC-SHA256 under the key as given, which let different keys sign alike); this reader accepts only"
                + " signed frames v2 (flag 0x02, docs/FORMAT.md section 4.2). Have the writer upgrade serreg and sign"
                + " again", 5);
    }

    /**
     * The frame itself when no other process can change its memory (a heap buffer: the Java heap
     * is this process's own), else a heap copy of it, so the bytes verified are the bytes decoded.
     * The copy holds the frame the header announces (at most what was given, and at most
     * {@code maxFrameSize}: a stream's later frames are not copied); whatever the header said, the
     * reader then checks the copy.
     */
    public static ByteBuffer privateCopy(ByteBuffer frame, Limits limits) {
        if (!frame.isDirect()) {
            return frame;
        }
        long length = frame.remaining();
        if (length >= FrameLayout.HEADER_SIZE) {
            long total = frame.duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(frame.position() + 24);
            if (Long.compareUnsigned(total, limits.maxFrameSize()) > 0) {
                throw new LimitExceededException("the frame is " + Long.toUnsignedString(total)
                        + " bytes, more than maxFrameSize=" + limits.maxFrameSize()
                        + "; raise it with Limits.withMaxFrameSize(...) if such frames are expected", 24);
            }
            if (Long.compareUnsigned(total, length) < 0 && total >= FrameLayout.HEADER_SIZE) {
                length = total;
            }
        }
        ByteBuffer copy = ByteBuffer.allocate((int) length);
        copy.put(frame.duplicate().limit(frame.position() + (int) length)).flip();
        return frame.isReadOnly() ? copy.asReadOnlyBuffer() : copy;
    }

    public static SignatureException notSigned() {
        return new SignatureException("the frame is not signed, but a key was given: refusing to decode it. Have the"
                + " writer sign it with the shared key (serialize(value, key)), or deserialize without a key if"
                + " unsigned frames are acceptable", 5);
    }

    /** Keys compared in constant time (an in-process result is checked by its key, not its bytes). */
    public static boolean sameKey(byte[] a, byte[] b) {
        return a != null && b != null && MessageDigest.isEqual(a, b);
    }
}
