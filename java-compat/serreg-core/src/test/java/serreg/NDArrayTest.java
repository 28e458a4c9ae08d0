package serreg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.ReadOnlyBufferException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import serreg.types.DType;
import serreg.types.MaskedArray;
import serreg.types.NumpyGenericScalar;
import serreg.types.NDArray;

/** NDArray values read through the Java API (docs/FORMAT.md 6.2): byte order, dtypes, strides, read-only, fields. */
class NDArrayTest {
    private static final SerializerRegistry REGISTRY = new SerializerRegistry();

    private static NDArray roundTrip(NDArray a) {
        return (NDArray) REGISTRY.deserialize(REGISTRY.serializeToFrame(a));
    }

    private static ByteBuffer doubles(ByteOrder order, double... values) {
        ByteBuffer b = ByteBuffer.allocate(8 * values.length).order(order);
        for (double v : values) {
            b.putDouble(v);
        }
        return b.flip();
    }

    @Test
    void dataIsInTheDtypesByteOrder() {
        for (String dtype : new String[] {"<f8", ">f8"}) {
            ByteOrder order = dtype.charAt(0) == '<' ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
            NDArray a = roundTrip(new NDArray(dtype, new long[] {2, 2}, 'C', doubles(order, 1.5, -2.25, 3e300, 0.1)));
            assertEquals(order, a.data().order());
            assertEquals(-2.25, a.data().getDouble(a.byteOffset(0, 1)));
            assertEquals(0.1, a.data().getDouble(a.byteOffset(1, 1)));
        }
        NDArray f = roundTrip(new NDArray("<f8", new long[] {2, 2}, 'F', doubles(ByteOrder.LITTLE_ENDIAN, 1, 2, 3, 4)));
        assertEquals(2.0, f.data().getDouble(f.byteOffset(1, 0)), "F order: the second element is row 1, column 0");
        assertArrayEquals(new long[] {8, 16}, f.strides());
    }

    @Test
    void datetimeUnitsAndStringKinds() {
        DType t = DType.of(">M8[25s]");
        assertEquals('M', t.kind());
        assertEquals("s", t.unit());
        assertEquals(25, t.unitCount());
        assertEquals(ByteOrder.BIG_ENDIAN, t.byteOrder());
        assertEquals("", DType.of("<m8").unit());
        assertEquals(12, DType.of("<U3").itemSize());
        assertEquals(5, DType.of("|S5").itemSize());
        assertEquals(7, DType.of("|V7").itemSize());
        for (String bad : new String[] {"<f16", "<c32", "<M8[1s]", "<M8[xs]", "|U3", "<S3", "|S0", "<V2", "<O8"}) {
            assertThrows(IllegalArgumentException.class, () -> DType.of(bad), bad);
        }
        ByteBuffer ns = ByteBuffer.allocate(16).order(ByteOrder.BIG_ENDIAN).putLong(1_700_000_000_000_000_000L).putLong(Long.MIN_VALUE).flip();
        NDArray dates = roundTrip(new NDArray(">M8[ns]", new long[] {2}, 'C', ns));
        assertEquals(1_700_000_000_000_000_000L, dates.data().getLong(0));
        assertEquals(Long.MIN_VALUE, dates.data().getLong(8), "NaT");
        ByteBuffer text = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt('h').putInt(0x1F600).flip();
        NDArray u = roundTrip(new NDArray("<U2", new long[] {}, 'C', text));
        assertEquals(0x1F600, u.data().getInt(4));
    }

    @Test
    void structuredArraysAreRecordsOfFields() {
        DType inner = DType.structured(6, List.of(new DType.Field("a", null, 0, DType.of("<i2"), new long[] {}),
                new DType.Field("b", "B title", 2, DType.of(">f4"), new long[] {})), false);
        DType dtype = DType.structured(16, List.of(new DType.Field("name", null, 0, DType.of("|S4"), new long[] {}),
                new DType.Field("pt", null, 4, inner, new long[] {}),
                new DType.Field("v", null, 10, DType.of("<u2"), new long[] {2})), false);
        ByteBuffer data = ByteBuffer.allocate(32);
        for (int i = 0; i < 2; i++) {
            int at = 16 * i;
            data.put(at, ("ab" + i).getBytes(StandardCharsets.US_ASCII));
            data.order(ByteOrder.LITTLE_ENDIAN).putShort(at + 4, (short) (10 + i));
            data.order(ByteOrder.BIG_ENDIAN).putFloat(at + 6, 0.5f + i);
            data.order(ByteOrder.LITTLE_ENDIAN).putShort(at + 10, (short) 7).putShort(at + 12, (short) (8 + i));
        }
        NDArray a = roundTrip(new NDArray(dtype, new long[] {2}, 'C', data));
        assertEquals(dtype, a.descr());
        NDArray b = a.field("pt").field("B title");
        assertEquals(">f4", b.dtype());
        assertEquals(1.5f, b.data().getFloat(b.byteOffset(1)));
        NDArray v = a.field("v");
        assertArrayEquals(new long[] {2, 2}, v.shape());
        assertEquals(9, v.data().getShort(v.byteOffset(1, 1)));
        assertEquals((short) 11, a.field("pt").field("a").data().getShort(a.field("pt").field("a").byteOffset(1)));
        assertEquals("B title", a.descr().field("pt").dtype().fields().get(1).title());
        assertNull(a.descr().fields().get(0).title());
        assertThrows(IllegalArgumentException.class, () -> DType.structured(8, List.of(
                new DType.Field("x", null, 0, DType.of("<i4"), new long[] {}),
                new DType.Field("y", null, 2, DType.of("<i4"), new long[] {})), false), "fields overlap");
    }

    @Test
    void broadcastStridesAndReadOnlyComeBack() {
        ByteBuffer row = doubles(ByteOrder.LITTLE_ENDIAN, 1, 2, 3);
        NDArray b = roundTrip(new NDArray(DType.of("<f8"), new long[] {1000, 3}, 'C', new long[] {0, 8}, true, row));
        assertTrue(b.isReadOnly() && b.hasExplicitStrides());
        assertArrayEquals(new long[] {0, 8}, b.strides());
        assertEquals(24, b.data().remaining(), "only the memory that exists");
        assertEquals(3.0, b.data().getDouble(b.byteOffset(999, 2)));
        assertThrows(ReadOnlyBufferException.class, () -> b.data().putDouble(0, 1));
        NDArray ro = roundTrip(new NDArray(DType.of("|u1"), new long[] {2}, 'C', null, true, ByteBuffer.wrap(new byte[] {1, 2})));
        assertTrue(ro.isReadOnly());
        assertFalse(ro.hasExplicitStrides());
        assertThrows(IllegalArgumentException.class,
                () -> new NDArray(DType.of("<f8"), new long[] {2, 3}, 'C', new long[] {0, 8}, false, doubles(ByteOrder.LITTLE_ENDIAN, 1, 2)));
    }

    @Test
    void digestIgnoresByteOrderLayoutAndPadding() {
        byte[] little = Serreg.digest(new NDArray("<f8", new long[] {3}, 'C', doubles(ByteOrder.LITTLE_ENDIAN, 1, -0.0, 2)));
        byte[] big = Serreg.digest(new NDArray(">f8", new long[] {3}, 'C', doubles(ByteOrder.BIG_ENDIAN, 1, 0.0, 2)));
        assertArrayEquals(little, big);
        byte[] full = Serreg.digest(new NDArray("<f8", new long[] {2, 2}, 'C', doubles(ByteOrder.LITTLE_ENDIAN, 5, 6, 5, 6)));
        byte[] broadcast = Serreg.digest(new NDArray(DType.of("<f8"), new long[] {2, 2}, 'C', new long[] {0, 8}, true,
                doubles(ByteOrder.LITTLE_ENDIAN, 5, 6)));
        assertArrayEquals(full, broadcast);
        DType padded = DType.structured(4, List.of(new DType.Field("x", null, 1, DType.of("|u1"), new long[] {})), false);
        byte[] one = Serreg.digest(new NDArray(padded, new long[] {1}, 'C', ByteBuffer.wrap(new byte[] {9, 5, 9, 9})));
        byte[] two = Serreg.digest(new NDArray(padded, new long[] {1}, 'C', ByteBuffer.wrap(new byte[] {0, 5, 1, 2})));
        assertArrayEquals(one, two);
    }

    @Test
    void maskedArraysAndGenericScalarsRoundTrip() {
        NDArray data = new NDArray("<f8", new long[] {3}, 'C', doubles(ByteOrder.LITTLE_ENDIAN, 1, 2, 3));
        NDArray mask = new NDArray("|b1", new long[] {3}, 'C', ByteBuffer.wrap(new byte[] {0, 1, 0}));
        MaskedArray m = new MaskedArray(data, mask, doubles(ByteOrder.LITTLE_ENDIAN, 1e20), true);
        MaskedArray back = (MaskedArray) REGISTRY.deserialize(REGISTRY.serializeToFrame(m));
        assertEquals(m, back);
        assertEquals(1e20, back.fillValue().getDouble(0));
        assertEquals(1, back.mask().data().get(1));
        assertThrows(IllegalArgumentException.class, () -> new MaskedArray(data, mask, ByteBuffer.allocate(3), false));
        ByteBuffer day = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, 19_000);
        NumpyGenericScalar date = new NumpyGenericScalar("datetime64", new NDArray("<M8[D]", new long[0], 'C', day));
        NumpyGenericScalar again = (NumpyGenericScalar) REGISTRY.deserialize(REGISTRY.serializeToFrame(date));
        assertEquals(date, again);
        assertEquals("numpy.datetime64", again.classId());
        assertEquals(19_000, again.value().data().getLong(0));
        assertThrows(IllegalArgumentException.class, () -> new NumpyGenericScalar("str_", again.value()));
    }
}
