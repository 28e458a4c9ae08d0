package serreg.wire;

import java.nio.ByteBuffer;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import serreg.SignatureException;

/**
 * HMAC-SHA256 signed frames (docs/FORMAT.md section 4.2): flag bit 0x01 in the header and a
 * 32-byte trailer holding the HMAC, under the shared key, of every frame byte before it.
 */
public final class FrameSignature {
    /** The header flag bit of a signed frame. */
    public static final int FLAG_SIGNED = 0x01;
    /** Bytes of the HMAC-SHA256 trailer. */
    public static final int SIZE = 32;
    /** The shortest key accepted. */
    public static final int MIN_KEY_SIZE = 16;
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

    private static Mac mac(byte[] key) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
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
