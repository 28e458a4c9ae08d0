package serreg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * {@link InBandReader#readStrings}, a run of str values read in one loop (the str columns of
 * struct lists), and {@link InBandWriter#writeEncoded(byte[], int, int)}: the same strings and
 * errors as {@link InBandReader#readString} one by one, stopping before the first value that is
 * not a str, in a heap array and in a direct buffer.
 */
class ReadStringsTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final SerializerRegistry REGISTRY = new SerializerRegistry();

    private static InBandReader reader(String hex, boolean direct) {
        byte[] bytes = HEX.parseHex(hex);
        ByteBuffer b = direct ? ByteBuffer.allocateDirect(bytes.length).put(bytes).flip() : ByteBuffer.wrap(bytes);
        return new InBandReader(REGISTRY, b, Collections.emptyIterator());
    }

    @Test
    void aRunOfStrValuesStopsBeforeTheFirstOtherValue() {
        String str16 = "da012c" + "7a".repeat(300);
        String hex = "a26162" + "a0" + "a2c3a9" + "d920" + "79".repeat(32) + str16 + "c0" + "a178";
        for (boolean direct : new boolean[] {false, true}) {
            InBandReader in = reader(hex, direct);
            Object[] out = new Object[8];
            assertEquals(5, in.readStrings(out, 1, 7));
            assertArrayEquals(new Object[] {null, "ab", "", "\u00e9", "y".repeat(32), "z".repeat(300), null, null}, out);
            assertTrue(in.tryReadNil(), "the nil is left unread");
            assertEquals(1, in.readStrings(out, 0, 1), "at most max values");
            assertEquals("x", out[0]);
            assertEquals(0, in.readStrings(out, 0, 3), "none at the end of the in-band");
            assertNull(out[1 + 5]);
        }
    }

    @Test
    void badTextIsRefusedAtItsOffsetAsReadStringRefusesIt() {
        for (boolean direct : new boolean[] {false, true}) {
            DeserializationException e = assertThrows(DeserializationException.class,
                    () -> reader("a161" + "a2c328", direct).readStrings(new Object[2], 0, 2));
            assertTrue(e.getMessage().contains("not valid UTF-8"), e.getMessage());
            assertEquals(2, e.offset());
            e = assertThrows(DeserializationException.class,
                    () -> reader("a161" + "a56162", direct).readStrings(new Object[2], 0, 2));
            assertTrue(e.getMessage().contains("runs past the end"), e.getMessage());
            assertEquals(2, e.offset());
            e = assertThrows(DeserializationException.class,
                    () -> reader("d9", direct).readStrings(new Object[1], 0, 1));
            assertTrue(e.getMessage().contains("ends inside its header"), e.getMessage());
        }
    }

    @Test
    void writeEncodedAppendsTheGivenRange() {
        InBandWriter out = new InBandWriter(REGISTRY);
        out.writeArrayHeader(2).writeEncoded(HEX.parseHex("ffa161a162ff"), 1, 4);
        ByteBuffer b = out.finish().inBand();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        assertEquals("92a161a162", HEX.formatHex(bytes));
    }
}
