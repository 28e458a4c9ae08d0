package serreg.canonical;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The canonical float rule of docs/FORMAT.md sections 9.1 and 9.4: -0.0 becomes 0.0 and every
 * NaN (any sign, quiet or signaling, any payload) becomes the one quiet NaN of its width
 * (binary16 {@code 7e00}, binary32 {@code 7fc00000}, binary64 {@code 7ff8000000000000}).
 * Shared by the standard types, numpy arrays and Arrow float columns.
 */
public final class CanonicalFloats {
    private static final long CANONICAL_NAN64 = 0x7FF8000000000000L;
    private static final int CANONICAL_NAN32 = 0x7FC00000;
    private static final int CANONICAL_NAN16 = 0x7E00;

    private CanonicalFloats() {
    }

    public static double canonicalDouble(double d) {
        if (Double.isNaN(d)) {
            return Double.longBitsToDouble(CANONICAL_NAN64);
        }
        return d == 0.0 ? 0.0 : d;
    }

    public static float canonicalFloat(float f) {
        if (Float.isNaN(f)) {
            return Float.intBitsToFloat(CANONICAL_NAN32);
        }
        return f == 0.0f ? 0.0f : f;
    }

    /** The canonical bit pattern of the IEEE binary16 value {@code bits} (low 16 bits used). */
    public static int canonicalHalfBits(int bits) {
        bits &= 0xFFFF;
        if ((bits & 0x7C00) == 0x7C00 && (bits & 0x03FF) != 0) {
            return CANONICAL_NAN16;
        }
        return bits == 0x8000 ? 0 : bits;
    }

    /** Whether the little-endian float of {@code width} bytes (2, 4 or 8) at {@code bits} is already canonical. */
    public static boolean isCanonical(long bits, int width) {
        return switch (width) {
            case 2 -> canonicalHalfBits((int) bits) == (bits & 0xFFFF);
            case 4 -> Float.floatToRawIntBits(canonicalFloat(Float.intBitsToFloat((int) bits))) == (int) bits;
            case 8 -> Double.doubleToRawLongBits(canonicalDouble(Double.longBitsToDouble(bits))) == bits;
            default -> throw new IllegalArgumentException("no float is " + width + " bytes wide");
        };
    }

    /** Makes the little-endian float of {@code width} bytes (2, 4 or 8) at {@code at} in {@code data} canonical, in place. */
    public static void normalize(byte[] data, int at, int width) {
        ByteBuffer view = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
        switch (width) {
            case 2 -> view.putShort(at, (short) canonicalHalfBits(view.getShort(at)));
            case 4 -> view.putFloat(at, canonicalFloat(view.getFloat(at)));
            case 8 -> view.putDouble(at, canonicalDouble(view.getDouble(at)));
            default -> throw new IllegalArgumentException("no float is " + width + " bytes wide");
        }
    }

    /** Makes every little-endian float of {@code width} bytes (2, 4 or 8) in {@code data} canonical, in place. */
    public static void normalize(byte[] data, int width) {
        ByteBuffer view = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
        for (int at = 0; at + width <= data.length; at += width) {
            switch (width) {
                case 2 -> view.putShort(at, (short) canonicalHalfBits(view.getShort(at)));
                case 4 -> view.putFloat(at, canonicalFloat(view.getFloat(at)));
                case 8 -> view.putDouble(at, canonicalDouble(view.getDouble(at)));
                default -> throw new IllegalArgumentException("no float is " + width + " bytes wide");
            }
        }
    }
}
