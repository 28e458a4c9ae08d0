package serreg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The string paths of a struct list's str column (docs/FORMAT.md section 10.3): a column written
 * in one loop ({@link InBandWriter#writeStrings}) and a run of short ASCII strs handed over as
 * bytes ({@link InBandReader#readAsciiStrRun}), to be made into strings as instances are built. At
 * the edges of the word-at-a-time checks (0, 1, 7, 8, 9, 15, 16 and 31 bytes; a str at the very
 * end of the array, where no 8-byte read fits) the bytes must be msgpack's with strict UTF-8
 * worked out independently, and any str that is not short ASCII (one byte at or above 0x80 at the
 * first, middle or last place, bytes that are not UTF-8, a str 8 header) must leave the run to be
 * read value by value, with the same errors.
 */
class StringColumnsTest {
    private static final SerializerRegistry REGISTRY = new SerializerRegistry();
    private static final int[] EDGES = {0, 1, 7, 8, 9, 15, 16, 31};

    private static byte[] written(InBandWriter w) {
        ByteBuffer b = w.finish().inBand();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    private static byte[] references(List<?> strings) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object s : strings) {
            out.writeBytes(StringPathsTest.referenceStr(((String) s).getBytes(StandardCharsets.UTF_8)));
        }
        return out.toByteArray();
    }

    private static InBandReader reader(byte[] bytes) {
        return new InBandReader(REGISTRY, ByteBuffer.wrap(bytes), Collections.emptyIterator());
    }

    /** An ASCII text of {@code n} chars (up to DEL, the last ASCII char) that differs with {@code seed}. */
    private static String ascii(int n, int seed) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append((char) (i % 2 == 0 ? 'a' + (i + seed) % 26 : 0x7f - (i + seed) % 3));
        }
        return b.toString();
    }

    @Test
    void writeStringsWritesEachValueAsWriteStringAndStopsBeforeTheFirstOtherValue() {
        List<String> edge = StringPathsTest.edgeStrings(0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 255, 256);
        List<Object> values = new ArrayList<>();
        values.add("not written: before from");
        values.addAll(edge);
        values.add(42L);
        values.add("not written: after the Long");
        InBandWriter w = new InBandWriter(REGISTRY);
        assertEquals(edge.size(), w.writeStrings(values.toArray(), 1, values.size() - 1), "stops at the Long");
        assertArrayEquals(references(edge), written(w));

        w = new InBandWriter(REGISTRY);
        assertEquals(3, w.writeStrings(values.toArray(), 1, 3), "at most count values");
        assertArrayEquals(references(edge.subList(0, 3)), written(w));

        w = new InBandWriter(REGISTRY);
        assertEquals(1, w.writeStrings(new Object[] {"a", null, "b"}, 0, 3), "null is not a String");
        assertEquals("a161", java.util.HexFormat.of().formatHex(written(w)));

        InBandWriter refusing = new InBandWriter(REGISTRY);
        SerializationException e = assertThrows(SerializationException.class,
                () -> refusing.writeStrings(new Object[] {"ok", "ab\ud800"}, 0, 2));
        assertTrue(e.getMessage().contains("lone surrogate at index 2"), e.getMessage());
    }

    /** Three strs of {@code n} ASCII bytes, then {@code tail} (nothing: the last str ends the array). */
    private static byte[] threeStrs(int n, byte... tail) {
        byte[] strs = references(List.of(ascii(n, 0), ascii(n, 1), ascii(n, 2)));
        byte[] out = Arrays.copyOf(strs, strs.length + tail.length);
        System.arraycopy(tail, 0, out, strs.length, tail.length);
        return out;
    }

    @Test
    void aRunOfShortAsciiStrsIsHandedOverAsItsBytes() {
        for (int n : EDGES) {
            for (byte[] tail : new byte[][] {{}, {(byte) 0xc0}, new byte[9]}) {
                byte[] bytes = threeStrs(n, tail);
                int run = 3 * (1 + n);
                InBandReader r = reader(bytes);
                ByteBuffer view = r.readAsciiStrRun(3);
                assertNotNull(view, "a run of strs of " + n + " bytes");
                byte[] got = new byte[view.remaining()];
                view.duplicate().get(got);
                assertArrayEquals(Arrays.copyOf(bytes, run), got, "strs of " + n + " bytes, tail " + tail.length);
                assertTrue(view.hasArray(), "a heap in-band gives a view with an array");
                assertEquals(run, r.offset(), "the position moves past the run");

                r = reader(bytes);
                assertEquals(2 * (1 + n), r.readAsciiStrRun(2).remaining(), "count values, no more");
                assertEquals(2 * (1 + n), r.offset());
                assertEquals(ascii(n, 2), r.readString());
            }
        }
    }

    @Test
    void anyValueThatIsNotAShortAsciiStrLeavesTheRunUnread() {
        for (int n : EDGES) {
            if (n == 0) {
                continue;
            }
            for (int at : new int[] {0, n / 2, n - 1}) {
                for (boolean atEnd : new boolean[] {true, false}) {
                    byte[] tail = atEnd ? new byte[0] : new byte[] {(byte) 0xc0};
                    // Value 2 (the last) with one byte at or above 0x80: alone, not UTF-8.
                    byte[] bad = threeStrs(n, tail);
                    int value2 = 2 * (1 + n);
                    bad[value2 + 1 + at] = (byte) 0xe9;
                    InBandReader r = reader(bad);
                    assertNull(r.readAsciiStrRun(3), "byte 0xe9 at " + at + " of " + n);
                    assertEquals(0, r.offset(), "nothing read");
                    DeserializationException e = assertThrows(DeserializationException.class,
                            () -> r.readStrings(new Object[3], 0, 3));
                    assertEquals("str is not valid UTF-8 (at byte offset " + value2 + ")", e.getMessage());
                    assertEquals(value2, e.offset(), "read value by value, refused where the str starts");
                }
            }
            if (n >= 2) {
                byte[] utf8 = threeStrs(n);
                utf8[1] = (byte) 0xc3; // value 0 starts with U+00E9 (c3 a9): valid, not ASCII
                utf8[2] = (byte) 0xa9;
                InBandReader r = reader(utf8);
                assertNull(r.readAsciiStrRun(3));
                Object[] out = new Object[3];
                assertEquals(3, r.readStrings(out, 0, 3));
                assertEquals("\u00e9" + ascii(n, 0).substring(2), out[0]);
            }
        }
        byte[] str8 = HexBytes.of("a161" + "d9026263" + "a164");
        assertNull(reader(str8).readAsciiStrRun(3), "a str 8 header, even of ASCII text");
        assertNull(reader(HexBytes.of("a161" + "01" + "a164")).readAsciiStrRun(3), "an int");
        assertNull(reader(HexBytes.of("a161" + "a36263")).readAsciiStrRun(2), "a str one byte past the end");
        InBandReader bounded = new InBandReader(REGISTRY, ByteBuffer.wrap(HexBytes.of("a161" + "a26263"), 0, 4),
                Collections.emptyIterator());
        assertNull(bounded.readAsciiStrRun(2), "a str past the in-band's end, though not the array's");
        assertNull(reader(HexBytes.of("a161" + "a162")).readAsciiStrRun(3), "fewer values than asked");
        byte[] heap = threeStrs(3);
        ByteBuffer direct = ByteBuffer.allocateDirect(heap.length).put(heap).flip();
        InBandReader fromDirect = new InBandReader(REGISTRY, direct, Collections.emptyIterator());
        assertNull(fromDirect.readAsciiStrRun(3), "a direct in-band has no array to make strings from");
        assertEquals(0, fromDirect.offset());
    }

    @Test
    void aShortAsciiStrIsReadAloneAndAnythingElseIsLeftUnread() {
        // Every fixstr length (the texts of up to 6 chars are made another way than longer ones).
        for (int n = 0; n < 32; n++) {
            byte[] bytes = threeStrs(n, (byte) 0xc0);
            InBandReader r = reader(bytes);
            for (int i = 0; i < 3; i++) {
                assertEquals(ascii(n, i), r.readAsciiFixStr(), "value " + i + " of " + n + " bytes");
                assertEquals((i + 1) * (1 + n), r.offset(), "the position moves past it");
            }
            assertNull(r.readAsciiFixStr(), "nil is not a str");
            assertEquals(3 * (1 + n), r.offset(), "nothing read");
            byte[] last = threeStrs(n);
            InBandReader atEnd = reader(last);
            atEnd.readAsciiFixStr();
            atEnd.readAsciiFixStr();
            assertEquals(ascii(n, 2), atEnd.readAsciiFixStr(), "a str ending the array, of " + n + " bytes");
            assertNull(atEnd.readAsciiFixStr(), "nothing left");
        }
        for (int n = 1; n < 32; n++) {
            for (int at : new int[] {0, n / 2, n - 1}) {
                byte[] bad = threeStrs(n);
                bad[1 + at] = (byte) 0xe9;
                InBandReader r = reader(bad);
                assertNull(r.readAsciiFixStr(), "byte 0xe9 at " + at + " of " + n);
                assertEquals(0, r.offset(), "nothing read");
            }
        }
        assertNull(reader(HexBytes.of("d9026263")).readAsciiFixStr(), "a str 8 header, even of ASCII text");
        assertNull(reader(HexBytes.of("a36263")).readAsciiFixStr(), "a str one byte past the end");
        InBandReader bounded = new InBandReader(REGISTRY, ByteBuffer.wrap(HexBytes.of("a26263"), 0, 2),
                Collections.emptyIterator());
        assertNull(bounded.readAsciiFixStr(), "a str past the in-band's end, though not the array's");
        assertEquals(0, bounded.offset());
        byte[] heap = threeStrs(3);
        ByteBuffer direct = ByteBuffer.allocateDirect(heap.length).put(heap).flip();
        InBandReader fromDirect = new InBandReader(REGISTRY, direct, Collections.emptyIterator());
        assertNull(fromDirect.readAsciiFixStr(), "a direct in-band: read by readString");
        assertEquals(ascii(3, 0), fromDirect.readString());
    }

    /** Hex to bytes. */
    private static final class HexBytes {
        static byte[] of(String hex) {
            return java.util.HexFormat.of().parseHex(hex);
        }
    }
}
