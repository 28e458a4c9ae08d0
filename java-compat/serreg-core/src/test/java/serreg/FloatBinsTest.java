package serreg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * The bins of a struct list's float columns written straight into the document
 * ({@link InBandWriter#writeFloat64Bin}, {@link InBandWriter#writeFloat32Bin}, docs/FORMAT.md
 * section 10.3): msgpack's shortest bin header (bin 8, 16 and 32 at their edges) and each value's
 * bit pattern little-endian as it is (signed zeros, NaN payloads, infinities), worked out here
 * independently, after what the writer held before.
 */
class FloatBinsTest {
    private static final SerializerRegistry REGISTRY = new SerializerRegistry();

    private static byte[] bin(byte[] payload) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int n = payload.length;
        if (n < 0x100) {
            out.write(0xc4);
            out.write(n);
        } else if (n < 0x10000) {
            out.write(0xc5);
            out.write(n >> 8);
            out.write(n);
        } else {
            out.write(0xc6);
            out.write(n >>> 24);
            out.write(n >> 16);
            out.write(n >> 8);
            out.write(n);
        }
        out.writeBytes(payload);
        return out.toByteArray();
    }

    private static byte[] written(InBandWriter w) {
        return TestFiles.bytes(w.finish().inBand());
    }

    private static final double[] SPECIAL = {0.0, -0.0, 1.5, -2.25, Double.NaN, Double.longBitsToDouble(0x7ff0000000000123L),
        Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE, Double.MAX_VALUE};

    @Test
    void float64BinsHoldEachValuesBitsLittleEndian() {
        for (int count : new int[] {0, 1, 31, 32, 33, 8191, 8192, 8193}) {
            double[] values = new double[count + 3]; // longer than count: only count are written
            ByteBuffer expected = ByteBuffer.allocate(8 * count).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < values.length; i++) {
                values[i] = i < SPECIAL.length ? SPECIAL[i] : i * 0.75 - 3;
                if (i < count) {
                    expected.putLong(Double.doubleToRawLongBits(values[i]));
                }
            }
            InBandWriter w = new InBandWriter(REGISTRY);
            w.writeNil().writeFloat64Bin(values, count).writeNil();
            byte[] body = bin(expected.array());
            byte[] all = new byte[body.length + 2];
            all[0] = (byte) 0xc0;
            System.arraycopy(body, 0, all, 1, body.length);
            all[all.length - 1] = (byte) 0xc0;
            assertArrayEquals(all, written(w), count + " values");
        }
    }

    @Test
    void float32BinsHoldEachValuesBitsLittleEndian() {
        for (int count : new int[] {0, 1, 63, 64, 65, 16383, 16384, 16385}) {
            float[] values = new float[count + 2];
            ByteBuffer expected = ByteBuffer.allocate(4 * count).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < values.length; i++) {
                values[i] = i < SPECIAL.length ? (float) SPECIAL[i] : Float.intBitsToFloat(0x7fc00000 + i);
                if (i < count) {
                    expected.putInt(Float.floatToRawIntBits(values[i]));
                }
            }
            InBandWriter w = new InBandWriter(REGISTRY);
            w.writeFloat32Bin(values, count);
            assertArrayEquals(bin(expected.array()), written(w), count + " values");
        }
    }
}
