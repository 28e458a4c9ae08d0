package serreg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.io.ByteArrayOutputStream;
import org.junit.jupiter.api.Test;

/**
 * The bins of a struct list's integer columns written straight into the document
 * ({@link InBandWriter#writeVarintBin}, docs/FORMAT.md section 10.3): the kind byte (0, or 1 when
 * a signed column holds a value below 0, every value then zigzagged), the LEB128 varints, under
 * msgpack's shortest bin header, also where the room left for the longest possible column needed
 * a longer header than the column took (the varints moved back), worked out here independently,
 * between what the writer held before and after.
 */
class VarintBinsTest {
    private static final SerializerRegistry REGISTRY = new SerializerRegistry();

    private static byte[] expected(long[] values, int count, boolean unsigned) {
        boolean negative = false;
        for (int i = 0; i < count && !unsigned; i++) {
            negative |= values[i] < 0;
        }
        ByteArrayOutputStream payload = new ByteArrayOutputStream();
        payload.write(negative ? 1 : 0);
        for (int i = 0; i < count; i++) {
            long v = negative ? (values[i] << 1) ^ (values[i] >> 63) : values[i];
            while (Long.compareUnsigned(v, 128) >= 0) {
                payload.write((int) Long.remainderUnsigned(v, 128) + 128);
                v = Long.divideUnsigned(v, 128);
            }
            payload.write((int) v);
        }
        int n = payload.size();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0xc0);
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
        out.writeBytes(payload.toByteArray());
        out.write(0xc0);
        return out.toByteArray();
    }

    private static void check(long[] values, int count, boolean unsigned, String what) {
        InBandWriter w = new InBandWriter(REGISTRY);
        w.writeNil().writeVarintBin(values, count, unsigned).writeNil();
        assertArrayEquals(expected(values, count, unsigned), TestFiles.bytes(w.finish().inBand()),
                what + ", " + count + " values, unsigned " + unsigned);
    }

    @Test
    void integerColumnsHoldTheKindByteAndMinimalVarintsUnderTheShortestHeader() {
        // 25 / 26 values: room for bin 8 / bin 16 (10 bytes a value at most); 6553 / 6554: bin 16 / bin 32.
        for (int count : new int[] {0, 1, 25, 26, 200, 254, 255, 256, 6553, 6554, 20000, 70000}) {
            long[] small = new long[count + 2]; // longer than count: only count are written
            long[] wide = new long[count + 2];
            long[] signed = new long[count + 2];
            for (int i = 0; i < small.length; i++) {
                small[i] = i % 128;
                wide[i] = i % 3 == 0 ? -1L - i : Long.MAX_VALUE - i; // 10-byte varints, as unsigned
                signed[i] = i == count - 1 ? -1 : i * 37L;
            }
            for (boolean unsigned : new boolean[] {false, true}) {
                check(small, count, unsigned, "one-byte values");
                check(wide, count, unsigned, "values of every size");
                check(signed, count, unsigned, "the last value below 0");
            }
        }
    }
}
