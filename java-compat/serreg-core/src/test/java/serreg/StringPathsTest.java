package serreg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import serreg.wire.ClassIdHash;

/**
 * The fast paths of strings: short ASCII text written without a loop (up to 8 chars) or with one
 * (longer), and lists read with runs of short ASCII strs in one loop. At the edge of each path
 * (lengths 0 to 9, 31/32, 255/256, 65535/65536; ASCII, Latin-1, BMP, surrogate pairs, lone
 * surrogates; strs at the end of the array; invalid UTF-8 inside a run) the bytes must be those
 * of msgpack with strict UTF-8 worked out here independently, and errors must name the index or
 * the offset.
 */
class StringPathsTest {
    private static final SerializerRegistry REGISTRY = new SerializerRegistry();

    /** msgpack's shortest str header for {@code n} bytes, then the bytes: the reference the writer is held to. */
    static byte[] referenceStr(byte[] utf8) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int n = utf8.length;
        if (n < 32) {
            out.write(0xa0 | n);
        } else if (n < 0x100) {
            out.write(0xd9);
            out.write(n);
        } else if (n < 0x10000) {
            out.write(0xda);
            out.write(n >> 8);
            out.write(n);
        } else {
            out.write(0xdb);
            out.write(n >>> 24);
            out.write(n >> 16);
            out.write(n >> 8);
            out.write(n);
        }
        out.writeBytes(utf8);
        return out.toByteArray();
    }

    private static byte[] written(InBandWriter w) {
        ByteBuffer b = w.finish().inBand();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    /** Strings of every length in {@code lengths}, each all ASCII and with one char of each kind at each of a few places. */
    static List<String> edgeStrings(int... lengths) {
        String[] others = {"\u00e9", "\u00ff", "\u0080", "\u20ac", "\u0100", "\uffff", "\ud83d\ude00"};
        List<String> out = new ArrayList<>();
        for (int n : lengths) {
            StringBuilder ascii = new StringBuilder();
            for (int i = 0; i < n; i++) {
                ascii.append((char) (i % 2 == 0 ? 'a' + i % 26 : 0x7f - i % 3)); // up to DEL, the last ASCII char
            }
            out.add(ascii.toString());
            if (n == 0) {
                continue;
            }
            for (String other : others) {
                for (int at : new int[] {0, n / 2, n - 1}) {
                    // Same char count: the multi-char ones (surrogate pairs) replace two ASCII chars when there is room.
                    int cut = Math.min(n, at + other.length());
                    if (cut - at == other.length()) {
                        out.add(ascii.substring(0, at) + other + ascii.substring(cut));
                    }
                }
            }
        }
        return out;
    }

    @Test
    void stringsAtTheEdgesOfEachPathHaveTheReferenceBytesAndReadBack() {
        List<String> all = edgeStrings(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 30, 31, 32, 33, 254, 255, 256, 257,
                65535, 65536);
        for (String s : all) {
            InBandWriter w = new InBandWriter(REGISTRY);
            w.writeString(s);
            byte[] bytes = written(w);
            assertArrayEquals(referenceStr(s.getBytes(StandardCharsets.UTF_8)), bytes, () -> "bytes of a str of "
                    + s.length() + " chars: " + s.chars().limit(12).mapToObj(Integer::toHexString).toList());
            InBandReader r = new InBandReader(REGISTRY, ByteBuffer.wrap(bytes), Collections.emptyIterator());
            assertEquals(s, r.readString());
            r.expectEnd();
        }
        // UTF-8 byte counts at the header boundaries: 31 and 32, 255 and 256, 65535 and 65536 bytes of
        // two-byte chars (and an odd one made up with an ASCII char).
        for (int bytes : new int[] {31, 32, 255, 256, 65535, 65536}) {
            String s = "\u00e9".repeat(bytes / 2) + "x".repeat(bytes % 2);
            InBandWriter w = new InBandWriter(REGISTRY);
            w.writeString(s);
            assertArrayEquals(referenceStr(s.getBytes(StandardCharsets.UTF_8)), written(w), "str of " + bytes + " UTF-8 bytes");
        }
    }

    @Test
    void loneSurrogatesAreRefusedNamingTheIndexAndWriteNothing() {
        for (int n = 1; n <= 12; n++) {
            for (int at = 0; at < n; at++) {
                for (char lone : new char[] {'\ud800', '\udbff', '\udc00', '\udfff'}) {
                    char[] chars = "abcdefghijkl".substring(0, n).toCharArray();
                    chars[at] = lone;
                    if (Character.isHighSurrogate(lone) && at + 1 < n) {
                        chars[at + 1] = 'z'; // a high surrogate followed by anything but a low one is lone
                    }
                    String s = new String(chars);
                    InBandWriter w = new InBandWriter(REGISTRY);
                    w.writeString("ok");
                    SerializationException e = assertThrows(SerializationException.class, () -> w.writeString(s));
                    assertTrue(e.getMessage().contains("lone surrogate at index " + at), e.getMessage());
                    assertArrayEquals(new byte[] {(byte) 0xa2, 'o', 'k'}, written(w), "nothing of the refused str is kept");
                }
            }
        }
        SerializationException e = assertThrows(SerializationException.class, () -> REGISTRY.serialize(List.of("a", "b\udc00")));
        assertTrue(e.getMessage().contains("index 1"), e.getMessage());
    }

    /** A value of every kind the list reader may meet between and inside runs of short ASCII strs. */
    private static List<Object> mixedList() {
        List<Object> list = new ArrayList<>();
        list.add("");
        list.add("a");
        list.add("s12345678"); // 9 chars: the loop, not the unrolled copy
        list.add("\u00e9t\u00e9"); // a fixstr that is not ASCII ends a run
        list.add("x".repeat(31));
        list.add("y".repeat(32)); // str 8 ends a run
        list.add(7L);
        list.add("after an int");
        list.add(null);
        list.add(List.of("nested", "run", 1L));
        list.add(new LinkedHashMap<>(Map.of("k", "v")));
        list.add(2.5);
        list.add(Boolean.TRUE);
        list.add("\ud83d\ude00");
        list.add("last");
        return list;
    }

    @Test
    void listsWithRunsOfStrsReadBackFromEveryKindOfBuffer() {
        List<List<Object>> lists = List.of(mixedList(), new LinkedList<>(mixedList()), Arrays.asList("a", "b", "c"),
                List.of(), List.of("only"));
        for (List<Object> list : lists) {
            byte[] frame = TestFiles.bytes(REGISTRY.serializeToFrame(list));
            assertEquals(list, REGISTRY.deserialize(ByteBuffer.wrap(frame)), "heap");
            ByteBuffer direct = ByteBuffer.allocateDirect(frame.length).put(frame).flip();
            assertEquals(list, REGISTRY.deserialize(direct), "direct buffer: no array, no runs");
            byte[] padded = new byte[frame.length + 7];
            System.arraycopy(frame, 0, padded, 3, frame.length);
            assertEquals(list, REGISTRY.deserialize(ByteBuffer.wrap(padded, 3, frame.length).slice()),
                    "heap buffer at an array offset, with bytes after the frame");
        }
        List<Object> strings = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            strings.add("s" + i);
        }
        assertEquals(strings, REGISTRY.deserialize(REGISTRY.serializeToFrame(strings)));
    }

    @Test
    void listBytesAreTheItemsOneAfterTheOther() {
        List<Object> list = List.of("a", "", "s9999", "abcdefgh", "abcdefghi", "\u00e9");
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        expected.write(0x90 | list.size());
        for (Object s : list) {
            expected.writeBytes(referenceStr(((String) s).getBytes(StandardCharsets.UTF_8)));
        }
        byte[] section = TestFiles.bytes(REGISTRY.serialize(list).inBand());
        assertArrayEquals(expected.toByteArray(), Arrays.copyOfRange(section, 8, section.length));
    }

    /** The frame of a list whose in-band is {@code items} after an array header of {@code count}. */
    private static ByteBuffer listFrame(int count, byte[] items) {
        ByteBuffer section = ByteBuffer.allocate(8 + 1 + items.length);
        ClassIdHash.of("list").writeTo(section);
        section.put((byte) (0x90 | count)).put(items).flip();
        return new SerializationResult(section).toFrame();
    }

    @Test
    void invalidUtf8InsideARunIsRefusedAtItsOffset() {
        byte[][] bad = {
            {(byte) 0xa2, (byte) 0xc3, 0x28}, // a lead byte without its continuation
            {(byte) 0xa2, (byte) 0xc0, (byte) 0x80}, // overlong NUL
            {(byte) 0xa3, (byte) 0xed, (byte) 0xa0, (byte) 0x80}, // an encoded surrogate
            {(byte) 0xa1, (byte) 0x80}, // a lone continuation byte
            {(byte) 0xa4, (byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, // above U+10FFFF
        };
        for (byte[] str : bad) {
            ByteArrayOutputStream items = new ByteArrayOutputStream();
            items.writeBytes(new byte[] {(byte) 0xa1, 'a', (byte) 0xa2, 'b', 'c'});
            int at = 32 + 8 + 1 + items.size(); // frame header, ClassIDHash, array header, two strs
            items.writeBytes(str);
            items.writeBytes(new byte[] {(byte) 0xa1, 'z'});
            DeserializationException e = assertThrows(DeserializationException.class,
                    () -> REGISTRY.deserialize(listFrame(4, items.toByteArray())));
            assertTrue(e.getMessage().contains("not valid UTF-8"), e.getMessage());
            assertEquals(at, e.offset(), "offset of the bad str in the frame");
        }
    }

    @Test
    void aStrCutShortInsideARunIsRefusedAtItsOffset() {
        // Three items declared; the third says 5 bytes but the in-band ends after 2.
        byte[] items = {(byte) 0xa1, 'a', (byte) 0xa1, 'b', (byte) 0xa5, 'c', 'd'};
        DeserializationException e = assertThrows(DeserializationException.class,
                () -> REGISTRY.deserialize(listFrame(3, items)));
        assertTrue(e.getMessage().contains("runs past the end"), e.getMessage());
        assertEquals(32 + 8 + 1 + 4, e.offset());
        // Fewer items than declared: the reader asks for a value where the in-band has ended.
        DeserializationException missing = assertThrows(DeserializationException.class,
                () -> REGISTRY.deserialize(listFrame(3, new byte[] {(byte) 0xa1, 'a', (byte) 0xa1, 'b'})));
        assertEquals(32 + 8 + 1 + 4, missing.offset());
    }

    @Test
    void readAsciiStringsStopsAtTheCountAskedAndBeforeAnyOtherValue() {
        InBandWriter w = new InBandWriter(REGISTRY);
        w.writeString("a").writeString("bc").writeString("d").writeLong(3).writeString("\u00e9").writeString("e")
                .writeString("x".repeat(32));
        ByteBuffer in = w.finish().inBand();
        InBandReader r = new InBandReader(REGISTRY, in, Collections.emptyIterator());
        List<Object> read = new ArrayList<>();
        assertEquals(2, r.readAsciiStrings(read, 2), "the count asked");
        assertEquals(1, r.readAsciiStrings(read, 5), "stops before the int");
        assertEquals(List.of("a", "bc", "d"), read);
        assertEquals(7, r.offset());
        assertEquals(0, r.readAsciiStrings(read, 5), "an int is not a str");
        assertEquals(3L, r.readValue());
        assertEquals(0, r.readAsciiStrings(read, 5), "a str that is not ASCII is left to readValue");
        assertEquals("\u00e9", r.readValue());
        assertEquals(1, r.readAsciiStrings(read, 5), "a str 8 is not a fixstr");
        assertEquals("x".repeat(32), r.readValue());
        r.expectEnd();
        DeserializationException end = assertThrows(DeserializationException.class, () -> r.readAsciiStrings(read, 5));
        assertEquals(47, end.offset(), "a value asked for past the end, as readValue");
        assertEquals(List.of("a", "bc", "d", "e"), read);
    }

    /**
     * The list reader's word path (one 8-byte read for a str of up to 7 bytes): every length, a
     * byte at or above 0x80 at every place in the str, and bytes above 0x80 right after it (which
     * the word holds and must not count); a str crossing the reader's bound while the array goes
     * on is not read by the run, whatever the bytes after the bound.
     */
    @Test
    void theWordPathChecksOnlyTheStrsOwnBytesAndStopsAtTheBound() {
        for (int n = 0; n <= 9; n++) {
            for (int bad = -1; bad < n; bad++) {
                byte[] a = new byte[1 + n + 16];
                Arrays.fill(a, (byte) 0xff);
                a[0] = (byte) (0xa0 | n);
                for (int i = 0; i < n; i++) {
                    a[1 + i] = (byte) (i == bad ? 0xc3 : 'a' + i);
                }
                InBandReader r = new InBandReader(REGISTRY, ByteBuffer.wrap(a), Collections.emptyIterator());
                List<Object> read = new ArrayList<>();
                int got = r.readAsciiStrings(read, 1);
                String where = "length " + n + ", byte " + bad + " not ASCII";
                if (bad < 0) {
                    assertEquals(1, got, where);
                    assertEquals("abcdefghi".substring(0, n), read.get(0), where);
                    assertEquals(1 + n, r.offset(), where);
                } else {
                    assertEquals(0, got, where);
                    assertEquals(0, r.offset(), where);
                }
            }
            if (n == 0) {
                continue;
            }
            // The same str with the reader's bound one byte short of its end; the array goes on.
            byte[] a = new byte[1 + n + 16];
            a[0] = (byte) (0xa0 | n);
            for (int i = 0; i < n + 16; i++) {
                a[1 + i] = (byte) ('a' + i % 26);
            }
            InBandReader r = new InBandReader(REGISTRY, ByteBuffer.wrap(a, 0, n), Collections.emptyIterator());
            List<Object> read = new ArrayList<>();
            assertEquals(0, r.readAsciiStrings(read, 1), "a str past the bound, length " + n);
            DeserializationException e = assertThrows(DeserializationException.class, r::readValue);
            assertTrue(e.getMessage().contains("runs past the end"), e.getMessage());
        }
        // Lists read as values inside other containers start with the same run.
        List<Object> inner = new ArrayList<>(List.of("a", "bc", "def", "\u00e9", "g"));
        Map<String, Object> outer = new LinkedHashMap<>();
        outer.put("names", inner);
        outer.put("more", new ArrayList<>(List.of(inner, List.of("x", 1L, "y"))));
        assertEquals(outer, REGISTRY.deserialize(REGISTRY.serializeToFrame(outer)));
    }
}
