package serreg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import serreg.fixture.Main;
import serreg.types.NDArray;
import serreg.types.OpaqueValue;
import serreg.types.PyByteArray;
import serreg.types.Tuple;
import serreg.wire.ClassIdHash;

/** Bad input: whatever bytes reach deserialize give a value or a DeserializationException that says where. */
public class HostileFramesTest {
    private static final SerializerRegistry REGISTRY = Main.fixtureRegistry();

    static byte[] frameOf(Object value) {
        return TestFiles.bytes(REGISTRY.serializeToFrame(value));
    }

    /** A well-formed frame around arbitrary in-band bytes and buffers. */
    public static byte[] rawFrame(String classId, byte[] inBand, byte[]... buffers) {
        ByteBuffer section = ByteBuffer.allocate(8 + inBand.length).put(ClassIdHash.of(classId).toBytes()).put(inBand).flip();
        List<ByteBuffer> oob = Arrays.stream(buffers).map(ByteBuffer::wrap).toList();
        return TestFiles.bytes(new SerializationResult(section, oob).toFrame());
    }

    interface Packing {
        void pack(MessageBufferPacker p) throws IOException;
    }

    static byte[] msgpack(Packing packing) {
        try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
            packing.pack(p);
            return p.toByteArray();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    public static byte[] concat(byte[]... parts) {
        ByteBuffer out = ByteBuffer.allocate(Arrays.stream(parts).mapToInt(p -> p.length).sum());
        for (byte[] p : parts) {
            out.put(p);
        }
        return out.array();
    }

    public static byte[] repeat(byte[] unit, int times) {
        byte[] out = new byte[unit.length * times];
        for (int i = 0; i < times; i++) {
            System.arraycopy(unit, 0, out, i * unit.length, unit.length);
        }
        return out;
    }

    /** The DeserializationException the frame must raise (anything else fails the test). */
    static DeserializationException error(byte[] frame, String what) {
        Object outcome = Hostile.decode(REGISTRY, frame, what);
        return assertInstanceOf(DeserializationException.class, outcome, what + ": decoded to " + outcome);
    }

    private static long allocatedBytes(Runnable r) {
        com.sun.management.ThreadMXBean bean = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = bean.getCurrentThreadAllocatedBytes();
        r.run();
        return bean.getCurrentThreadAllocatedBytes() - before;
    }

    /** Runs {@code task} on a thread with a small stack (256 KiB), as a stand-in for a busy server thread. */
    public static <T> T onSmallStack(Supplier<T> task) throws InterruptedException {
        AtomicReference<Object> out = new AtomicReference<>();
        Thread t = new Thread(null, () -> {
            try {
                out.set(task.get());
            } catch (Throwable e) {
                out.set(e);
            }
        }, "small-stack", 256 * 1024);
        t.start();
        t.join();
        if (out.get() instanceof Throwable e && !(e instanceof DeserializationException)) {
            throw new AssertionError("threw " + e, e);
        }
        @SuppressWarnings("unchecked")
        T result = (T) out.get();
        return result;
    }

    private static Object small() {
        Map<Object, Object> map = new LinkedHashMap<>();
        map.put("a", new ArrayList<>(List.of(1L, 2.5, "x")));
        ByteBuffer data = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN).putLong(0).putLong(1).putLong(2).flip();
        map.put("t", Tuple.of(new NDArray("<i8", new long[] {3}, 'C', data), "raw".getBytes()));
        map.put("b", new PyByteArray(ByteBuffer.wrap(new byte[] {1, 2})));
        return map;
    }

    private static List<String> realFrames() {
        return List.of("python/nested_oob_order.frame", "python/arrow_table.frame", "python/ndarray_c16_3d.frame",
                "python/pickle5_with_buffer_then_array.frame", "python/dict_any_keys.frame", "python/datetime_zone.frame",
                "python/memoryview_2d.frame", "signed/signed_ndarray.frame", "canonical/arrow_nested_table.srg");
    }

    private static byte[] golden(String name) throws IOException {
        String[] parts = name.split("/");
        return TestFiles.read(TestFiles.vectors(parts[0]).resolve(parts[1]));
    }

    @Test
    void truncationAtEveryOffsetIsAnErrorWithAnOffset() throws IOException {
        List<byte[]> frames = new ArrayList<>();
        frames.add(frameOf(small()));
        for (String name : realFrames()) {
            frames.add(golden(name));
        }
        for (byte[] frame : frames) {
            for (int cut = 0; cut < frame.length; cut++) {
                DeserializationException e = error(Arrays.copyOf(frame, cut), "cut at " + cut);
                assertTrue(e.offset() >= 0, "cut at " + cut + ": no offset in " + e.getMessage());
            }
        }
    }

    @Test
    void everyFlippedByteGivesAValueThatWritesBackOrAnError() throws IOException {
        List<byte[]> frames = new ArrayList<>();
        frames.add(frameOf(small()));
        for (String name : realFrames()) {
            frames.add(golden(name));
        }
        int values = 0;
        int errors = 0;
        for (byte[] frame : frames) {
            for (int position = 0; position < Math.min(frame.length, 2048); position++) {
                for (int mask : new int[] {0x01, 0x80, 0xff}) {
                    byte[] mutated = frame.clone();
                    mutated[position] ^= (byte) mask;
                    ByteBuffer direct = TestFiles.direct(mutated);
                    String what = "byte " + position + " ^ " + mask;
                    Object value;
                    try {
                        value = REGISTRY.deserialize(direct);
                    } catch (DeserializationException e) {
                        Hostile.checkDeliberate(e, what);
                        errors++;
                        continue;
                    }
                    values++;
                    // A value Java accepted is a value Java can write and read again.
                    Hostile.release(Hostile.decode(REGISTRY, REGISTRY.serializeToFrame(value), what + ", written back"));
                    Hostile.release(value);
                }
            }
        }
        assertTrue(errors > values, errors + " errors, " + values + " values");
    }

    @Test
    void unknownVersionFlagsAndReservedFields() {
        byte[] frame = frameOf(new ArrayList<>(List.of(1L)));
        int[][] cases = {{4, 2, 4}, {4, 0, 4}, {5, 0x02, 5}, {5, 0x80, 5}, {6, 1, 6}, {7, 1, 6}, {12, 1, 12}, {15, 1, 12}, {0, 'X', 0}};
        for (int[] c : cases) {
            byte[] mutated = frame.clone();
            mutated[c[0]] = (byte) c[1];
            DeserializationException e = error(mutated, "byte " + c[0] + " = " + c[1]);
            assertInstanceOf(FrameFormatException.class, e);
            assertEquals(c[2], e.offset(), e.getMessage());
        }
        byte[] v2 = frame.clone();
        v2[4] = 2;
        assertTrue(error(v2, "version 2").getMessage().contains("version 2"));
    }

    @Test
    void lengthsAndCountsPastTheEndAreUnsignedAndRejectedWhereTheyAre() {
        byte[] frame = frameOf(Map.of("k", new PyByteArray(ByteBuffer.wrap(new byte[10]))));
        long[][] cases = {
            {24, Long.MIN_VALUE, 24}, {24, -1, 24}, {24, frame.length + 1, 24}, {24, 31, 24}, {24, 0, 24},
            {16, Long.MIN_VALUE, 16}, {16, -1, 16}, {16, 7, 16}, {16, frame.length, 16},
        };
        for (long[] c : cases) {
            byte[] mutated = frame.clone();
            ByteBuffer.wrap(mutated).order(ByteOrder.LITTLE_ENDIAN).putLong((int) c[0], c[1]);
            assertEquals(c[2], error(mutated, "field " + c[0] + " = " + c[1]).offset(), "field " + c[0] + " = " + c[1]);
        }
        // A total shorter than the parts: the frame may be followed by other data, so the part that runs past it is at fault.
        byte[] shorter = frame.clone();
        ByteBuffer.wrap(shorter).order(ByteOrder.LITTLE_ENDIAN).putLong(24, frame.length - 1);
        assertEquals(40, error(shorter, "total one short").offset());
        int afterInBand = 32 + (int) ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN).getLong(16);
        for (int[] k : new int[][] {{-1, 8}, {1 << 20, 8}, {2, 48}, {0, afterInBand}}) {
            byte[] mutated = frame.clone();
            ByteBuffer.wrap(mutated).order(ByteOrder.LITTLE_ENDIAN).putInt(8, k[0]);
            assertEquals(k[1], error(mutated, "K = " + k[0]).offset(), "K = " + k[0]);
        }
        byte[] hugeK = frame.clone();
        ByteBuffer.wrap(hugeK).order(ByteOrder.LITTLE_ENDIAN).putInt(8, -1);
        assertInstanceOf(LimitExceededException.class, error(hugeK, "K = 2^32 - 1"));
    }

    @Test
    void bufferOffsetsPastTheEndOverlappingOrMisaligned() {
        byte[] frame = frameOf(Tuple.of(new PyByteArray(ByteBuffer.wrap(new byte[4])), new PyByteArray(ByteBuffer.wrap(new byte[5]))));
        ByteBuffer header = ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN);
        long first = header.getLong(32);
        long firstLength = header.getLong(40);
        long[][] cases = {
            {40, 1L << 40, 40}, {40, Long.MIN_VALUE, 40}, {40, -1, 40},
            {48, first, 48}, {48, first + firstLength + 1, 48}, {48, 1L << 62, 48}, {48, Long.MIN_VALUE, 48},
            {56, frame.length, 56}, {56, -8, 56}, {32, first - 64, 32}, {32, 0, 32},
        };
        for (long[] c : cases) {
            byte[] mutated = frame.clone();
            ByteBuffer.wrap(mutated).order(ByteOrder.LITTLE_ENDIAN).putLong((int) c[0], c[1]);
            DeserializationException e = error(mutated, "table field " + c[0] + " = " + c[1]);
            assertEquals(c[2], e.offset(), e.getMessage());
        }
    }

    @Test
    void nonZeroPaddingIsRejectedAtItsOffset() {
        byte[] frame = frameOf(new PyByteArray(ByteBuffer.wrap(new byte[3])));
        int offset = (int) ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN).getLong(32);
        frame[offset - 1] = 1;
        DeserializationException e = error(frame, "padding");
        assertTrue(e.getMessage().contains("padding"), e.getMessage());
        assertEquals(offset - 1, e.offset());
    }

    @Test
    void outOfBandCountMismatchBothWays() {
        SerializationResult one = REGISTRY.serialize(new PyByteArray(ByteBuffer.wrap(new byte[] {9})));
        List<ByteBuffer> two = new ArrayList<>(one.outOfBand());
        two.addAll(one.outOfBand());
        DeserializationException extra = error(TestFiles.bytes(new SerializationResult(one.inBand(), two).toFrame()), "extra buffer");
        assertTrue(extra.getMessage().contains("did not use the last 1"), extra.getMessage());
        DeserializationException missing = error(TestFiles.bytes(new SerializationResult(one.inBand()).toFrame()), "missing buffer");
        assertTrue(missing.getMessage().contains("no OOB buffer left"), missing.getMessage());
        assertEquals(List.of("bytearray"), missing.classIdPath());
        assertTrue(missing.offset() >= 32, missing.getMessage());
    }

    @Test
    void unknownClassIdsAreOpaqueAtTheTopAndNamedInsideADocument() {
        Object top = Hostile.decode(REGISTRY, rawFrame("no.such.ClassID", new byte[] {1}, new byte[] {2}), "unknown");
        assertInstanceOf(OpaqueValue.class, top);
        byte[] nested = msgpack(p -> {
            p.packArrayHeader(2);
            byte[] payload = concat(ClassIdHash.of("no.such.ClassID").toBytes(), new byte[] {(byte) 0xc0});
            p.packExtensionTypeHeader((byte) 0, payload.length).writePayload(payload);
            p.packExtensionTypeHeader((byte) 0, 9).writePayload(concat(ClassIdHash.of("bytearray").toBytes(), new byte[] {(byte) 0xc0}));
        });
        DeserializationException e = error(rawFrame("list", nested, new byte[] {1}), "unknown nested before a buffer");
        assertTrue(e.getMessage().contains(ClassIdHash.of("no.such.ClassID").toHex()), e.getMessage());
        assertEquals(List.of("list"), e.classIdPath());
    }

    @Test
    void msgpackNested100000DeepIsALimitNotAStackOverflow() throws InterruptedException {
        byte[] frame = rawFrame("list", concat(repeat(new byte[] {(byte) 0x91}, 100_000), new byte[] {(byte) 0xc0}));
        DeserializationException e = onSmallStack(() -> error(frame, "100,000 nested arrays"));
        assertInstanceOf(LimitExceededException.class, e);
        assertTrue(e.getMessage().contains("maxMsgpackNesting=1024"), e.getMessage());
        byte[] maps = rawFrame("dict", concat(repeat(new byte[] {(byte) 0x81, (byte) 0xc0}, 100_000), new byte[] {(byte) 0xc0}));
        assertInstanceOf(LimitExceededException.class, onSmallStack(() -> error(maps, "100,000 nested maps")));
    }

    /** tuple(tuple(...(None))) {@code levels} deep, each level an ext 0 inside the one above. */
    public static byte[] nestedTuples(int levels) {
        byte[] tuple = ClassIdHash.of("tuple").toBytes();
        byte[] none = concat(ClassIdHash.of("None").toBytes(), new byte[] {(byte) 0xc0});
        ByteBuffer section = ByteBuffer.allocate(15 * levels + none.length);
        for (int k = levels; k > 0; k--) {
            int inner = 15 * (k - 1) + none.length;
            section.put(tuple).put((byte) 0x91).put((byte) 0xc9).putInt(inner).put((byte) 0);
        }
        section.put(none).flip();
        return TestFiles.bytes(new SerializationResult(section).toFrame());
    }

    @Test
    void nestedValues100000DeepStopAtMaxDepth() throws InterruptedException {
        byte[] frame = nestedTuples(100_000);
        DeserializationException e = onSmallStack(() -> error(frame, "100,000 nested tuples"));
        assertInstanceOf(LimitExceededException.class, e);
        assertTrue(e.getMessage().contains("maxDepth=100"), e.getMessage());
        assertEquals(100, e.classIdPath().size());
        assertEquals(32 + 100 * 15, e.offset(), "the offset of the section one level too deep");
        assertInstanceOf(Tuple.class, REGISTRY.deserialize(ByteBuffer.wrap(nestedTuples(99))));
        assertInstanceOf(LimitExceededException.class, error(nestedTuples(100), "100 tuples and a None"));
    }

    /**
     * 99 nested lists (the most maxDepth=100 allows, with the list that holds them), each holding
     * 1,024 nested arrays (the most maxMsgpackNesting allows) around the next.
     */
    public static byte[] deepestAllowedFrame() {
        return deepFrame(99);
    }

    /** {@code levels} nested lists, each holding 1,024 nested arrays around the next. */
    static byte[] deepFrame(int levels) {
        byte[] section = concat(ClassIdHash.of("list").toBytes(), repeat(new byte[] {(byte) 0x91}, 1024), new byte[] {(byte) 0xc0});
        for (int k = 0; k < levels; k++) {
            byte[] inner = section;
            byte[] doc = msgpack(p -> {
                for (int i = 0; i < 1024; i++) {
                    p.packArrayHeader(1);
                }
                p.packExtensionTypeHeader((byte) 0, inner.length).writePayload(inner);
            });
            section = concat(ClassIdHash.of("list").toBytes(), new byte[] {(byte) 0x91}, doc);
        }
        return TestFiles.bytes(new SerializationResult(ByteBuffer.wrap(section)).toFrame());
    }

    @Test
    void theDeepestFrameTheLimitsAllowFitsASmallStack() throws InterruptedException {
        byte[] frame = deepestAllowedFrame();
        // (Not released or printed: walking a value this deep by recursion would need a big stack itself.)
        Object value = onSmallStack(() -> REGISTRY.deserialize(ByteBuffer.wrap(frame)));
        assertInstanceOf(List.class, value);
    }

    @Test
    void containersDeclaringBillionsOfItemsAreRejectedWithoutAllocating() {
        byte[][] headers = {
            {(byte) 0xdd, -1, -1, -1, -1}, {(byte) 0xdf, -1, -1, -1, -1}, {(byte) 0xdb, -1, -1, -1, -1},
            {(byte) 0xc6, -1, -1, -1, -1}, {(byte) 0xc9, -1, -1, -1, -1, 0}, {(byte) 0xdd, 0x7f, -1, -1, -1},
            {(byte) 0xdf, 0x7f, -1, -1, -1}, {(byte) 0xc6, 0x7f, -1, -1, -1}, {(byte) 0xdb, 0x7f, -1, -1, -1},
        };
        for (String classId : new String[] {"list", "dict", "tuple", "set", "str", "bytes", "numpy.ndarray"}) {
            for (byte[] header : headers) {
                byte[] frame = rawFrame(classId, concat(header, new byte[16]));
                long allocated = allocatedBytes(() -> error(frame, classId + " " + Arrays.toString(header)));
                assertTrue(allocated < 200_000, classId + " " + Arrays.toString(header) + " allocated " + allocated);
            }
        }
    }

    @Test
    void nestedContainersEachDeclaringTheWholeDocumentAllocateLittle() {
        // 1,000 nested arrays each declaring as many items as the in-band has bytes.
        int size = 1 << 20;
        byte[] header = ByteBuffer.allocate(5).put((byte) 0xdd).putInt(size).array();
        byte[] inBand = Arrays.copyOf(repeat(header, 1000), size);
        Arrays.fill(inBand, 5000, size, (byte) 0xc0);
        byte[] frame = rawFrame("list", inBand);
        long allocated = allocatedBytes(() -> error(frame, "1,000 nested arrays of 2^20"));
        assertTrue(allocated < 4L * frame.length, "allocated " + allocated + " for a frame of " + frame.length);
    }

    @Test
    void ndarrayShapeThatDoesNotMatchItsBuffer() {
        Object[][] cases = {
            {new long[] {3, 4}, new byte[8 * 11]}, {new long[] {1L << 62, 1L << 62}, new byte[8]},
            {new long[] {0, Long.MAX_VALUE}, new byte[1]}, {new long[] {1L << 61}, new byte[0]},
            {new long[] {1L << 60, 16}, new byte[0]}, {new long[] {-1}, new byte[0]},
        };
        for (Object[] c : cases) {
            long[] shape = (long[]) c[0];
            byte[] inBand = msgpack(p -> {
                p.packArrayHeader(3).packString("<i8").packArrayHeader(shape.length);
                for (long d : shape) {
                    p.packLong(d);
                }
                p.packString("C");
            });
            DeserializationException e = error(rawFrame("numpy.ndarray", inBand, (byte[]) c[1]), Arrays.toString(shape));
            assertEquals(List.of("numpy.ndarray"), e.classIdPath(), e.getMessage());
        }
        byte[] manyDims = msgpack(p -> {
            p.packArrayHeader(3).packString("<i8").packArrayHeader(100_000);
            for (int i = 0; i < 100_000; i++) {
                p.packLong(1);
            }
            p.packString("C");
        });
        assertTrue(error(rawFrame("numpy.ndarray", manyDims, new byte[8]), "100,000 dims").getMessage().contains("dimensions"));
        for (String dtype : new String[] {"O", "<U4", "V8", "(3,)i4", "x".repeat(10_000), "<i3", "|i2"}) {
            byte[] inBand = msgpack(p -> p.packArrayHeader(3).packString(dtype).packArrayHeader(1).packLong(1).packString("C"));
            DeserializationException e = error(rawFrame("numpy.ndarray", inBand, new byte[16]), dtype);
            assertTrue(e.getMessage().contains("dtype"), e.getMessage());
        }
    }

    @Test
    void memoryviewShapeWhoseByteCountOverflows() {
        for (long[] shape : new long[][] {{1L << 61}, {1L << 62, 4}, {3}}) {
            byte[] inBand = msgpack(p -> {
                p.packArrayHeader(2).packString("d").packArrayHeader(shape.length);
                for (long d : shape) {
                    p.packLong(d);
                }
            });
            DeserializationException e = error(rawFrame("memoryview", inBand, new byte[0]), Arrays.toString(shape));
            assertEquals(List.of("memoryview"), e.classIdPath(), e.getMessage());
        }
    }

    @Test
    void theNeverUsedByteIsAMsgpackErrorNotACrash() {
        for (String classId : new String[] {"datetime", "time", "bytes", "list", "None", "int", "decimal"}) {
            DeserializationException e = error(rawFrame(classId, new byte[] {(byte) 0xc1}), classId);
            assertTrue(e.getMessage().contains("0xc1"), e.getMessage());
        }
        byte[] tz = msgpack(p -> {
            p.packArrayHeader(9);
            for (long v : new long[] {2020, 1, 2, 3, 4, 5, 6, 0}) {
                p.packLong(v);
            }
        });
        assertTrue(error(rawFrame("datetime", concat(tz, new byte[] {(byte) 0xc1})), "tz 0xc1").getMessage().contains("0xc1"));
    }

    @Test
    void keysChosenToCollideAreRefusedQuickly() {
        // Tuples (i, 31 (n - i)) all have the same Java hash code: building a map of them is
        // quadratic. The frames are written item by item (a Java map of them would itself take minutes).
        int n = 20_000;
        assertEquals(Tuple.of(1L, 31L * (n - 1)).hashCode(), Tuple.of(2L, 31L * (n - 2)).hashCode());
        InBandWriter map = new InBandWriter(REGISTRY).writeMapHeader(n);
        InBandWriter set = new InBandWriter(REGISTRY).writeArrayHeader(n);
        for (long i = 0; i < n; i++) {
            map.writeValue(Tuple.of(i, 31 * (n - i))).writeLong(0);
            set.writeValue(Tuple.of(i, 31 * (n - i)));
        }
        byte[] mapBytes = TestFiles.bytes(map.finish().inBand());
        byte[] nestedMap = concat(msgpack(p -> p.packMapHeader(1).packString("inner").packArrayHeader(1)), mapBytes);
        String[][] cases = {{"dict", "map"}, {"set", "set"}, {"frozenset", "set"}, {"dict", "nested"}};
        for (String[] c : cases) {
            byte[] inBand = c[1].equals("map") ? mapBytes : c[1].equals("set") ? TestFiles.bytes(set.finish().inBand()) : nestedMap;
            byte[] frame = rawFrame(c[0], inBand);
            long started = System.nanoTime();
            DeserializationException e = error(frame, "flooded " + c[0] + " " + c[1]);
            long millis = (System.nanoTime() - started) / 1_000_000;
            assertInstanceOf(LimitExceededException.class, e);
            assertTrue(e.getMessage().contains("hash code"), e.getMessage());
            assertTrue(millis < 1000, millis + " ms");
        }
        // Ordinary keys, many of them, and keys with some collisions (a grid of small pairs) are fine.
        Map<Object, Object> ordinary = new LinkedHashMap<>();
        for (long i = 0; i < 20_000; i++) {
            ordinary.put(i, Long.toString(i));
        }
        assertEquals(ordinary, REGISTRY.deserialize(ByteBuffer.wrap(frameOf(ordinary))));
        Map<Object, Object> grid = new LinkedHashMap<>();
        for (long x = 0; x < 200; x++) {
            for (long y = 0; y < 200; y++) {
                grid.put(Tuple.of(x, y), x * y);
            }
        }
        assertEquals(grid, REGISTRY.deserialize(ByteBuffer.wrap(frameOf(grid))));
    }

    @Test
    void keysTooDeepToHashAreALimitNotAStackOverflow() throws InterruptedException {
        // {key: 1} where the key is as deep as the limits allow under the dict: hashing it recurses ~100,000 levels.
        byte[] deepest = deepFrame(98);
        byte[] key = Arrays.copyOfRange(deepest, 32, deepest.length);
        for (String classId : new String[] {"dict", "set"}) {
            byte[] inBand = msgpack(p -> {
                if (classId.equals("dict")) {
                    p.packMapHeader(1);
                } else {
                    p.packArrayHeader(1);
                }
                p.packExtensionTypeHeader((byte) 0, key.length).writePayload(key);
                if (classId.equals("dict")) {
                    p.packLong(1);
                }
            });
            DeserializationException e = onSmallStack(() -> error(rawFrame(classId, inBand), "deep " + classId + " key"));
            assertInstanceOf(LimitExceededException.class, e);
            assertTrue(e.getMessage().contains("too deeply for Java to hash"), e.getMessage());
        }
    }

    @Test
    void decimalsOfMillionsOfDigitsAreRefusedBeforeParsing() {
        byte[] huge = msgpack(p -> p.packString("1".repeat(1_000_000) + "E-5"));
        long started = System.nanoTime();
        DeserializationException e = error(rawFrame("decimal", huge), "a million digits");
        assertTrue((System.nanoTime() - started) / 1_000_000 < 1000, "refused at once, not after parsing");
        assertInstanceOf(LimitExceededException.class, e);
        assertTrue(e.getMessage().contains("maxDecimalDigits=4300"), e.getMessage());
        // Digits in another script count too (BigDecimal reads them).
        assertInstanceOf(LimitExceededException.class, error(rawFrame("decimal", msgpack(p -> p.packString("\u0661".repeat(5000)))), "arabic"));
        byte[] most = msgpack(p -> p.packString("-" + "7".repeat(4300) + "E+12"));
        assertEquals(new java.math.BigDecimal("-" + "7".repeat(4300) + "E+12"), REGISTRY.deserialize(ByteBuffer.wrap(rawFrame("decimal", most))));
        assertEquals(new java.math.BigDecimal("1".repeat(5000)), REGISTRY.deserialize(
                ByteBuffer.wrap(rawFrame("decimal", msgpack(p -> p.packString("1".repeat(5000))))), Limits.DEFAULT.withMaxDecimalDigits(5000)));
    }

    @Test
    void frameSizeBufferCountAndDepthLimitsAreConfigurable() {
        byte[] frame = frameOf(new ArrayList<>(List.of(1L, 2L, 3L)));
        LimitExceededException size = assertThrows(LimitExceededException.class,
                () -> REGISTRY.deserialize(ByteBuffer.wrap(frame), Limits.DEFAULT.withMaxFrameSize(frame.length - 1)));
        assertTrue(size.getMessage().contains("maxFrameSize=" + (frame.length - 1)), size.getMessage());
        assertEquals(24, size.offset());
        assertEquals(List.of(1L, 2L, 3L), REGISTRY.deserialize(ByteBuffer.wrap(frame), Limits.DEFAULT.withMaxFrameSize(frame.length)));

        List<Object> arrays = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            arrays.add(new PyByteArray(ByteBuffer.wrap(new byte[] {(byte) i})));
        }
        byte[] many = frameOf(arrays);
        LimitExceededException buffers = assertThrows(LimitExceededException.class,
                () -> REGISTRY.deserialize(ByteBuffer.wrap(many), Limits.DEFAULT.withMaxBuffers(9)));
        assertTrue(buffers.getMessage().contains("maxBuffers=9"), buffers.getMessage());
        assertEquals(10, ((List<?>) REGISTRY.deserialize(ByteBuffer.wrap(many), Limits.DEFAULT.withMaxBuffers(10))).size());

        byte[] deep = frameOf(Tuple.of(Tuple.of(Tuple.of(Tuple.of(Tuple.of(Tuple.of(1L)))))));
        SerializerRegistry shallow = Main.fixtureRegistry();
        shallow.setLimits(Limits.DEFAULT.withMaxDepth(5));
        assertThrows(LimitExceededException.class, () -> shallow.deserialize(ByteBuffer.wrap(deep)));
        assertEquals(Tuple.of(Tuple.of(Tuple.of(1L))), shallow.deserialize(ByteBuffer.wrap(frameOf(Tuple.of(Tuple.of(Tuple.of(1L)))))));
        assertThrows(LimitExceededException.class, () -> REGISTRY.deserialize(REGISTRY.serialize(
                Tuple.of(Tuple.of(Tuple.of(1L)))), Limits.DEFAULT.withMaxDepth(2)));

        byte[] nestedLists = frameOf(new ArrayList<>(List.of(new ArrayList<>(List.of(new ArrayList<>(List.of(1L)))))));
        assertThrows(LimitExceededException.class,
                () -> REGISTRY.deserialize(ByteBuffer.wrap(nestedLists), Limits.DEFAULT.withMaxMsgpackNesting(1)));
        assertEquals(1, ((List<?>) REGISTRY.deserialize(ByteBuffer.wrap(nestedLists), Limits.DEFAULT.withMaxMsgpackNesting(2))).size());
        assertThrows(IllegalArgumentException.class, () -> Limits.DEFAULT.withMaxDepth(-1));
    }

    @Test
    void theDepthCountIsPerCallAndPerThread() {
        byte[] deep = nestedTuples(60);
        for (int i = 0; i < 5; i++) {
            assertInstanceOf(Tuple.class, REGISTRY.deserialize(ByteBuffer.wrap(deep)), "a finished call leaves no depth behind");
        }
        error(nestedTuples(150), "too deep");
        assertInstanceOf(Tuple.class, REGISTRY.deserialize(ByteBuffer.wrap(deep)), "nor does a failed one");
        assertEquals(null, DecodeState.current());
    }
}
