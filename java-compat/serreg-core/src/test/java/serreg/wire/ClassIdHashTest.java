package serreg.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ClassIdHashTest {
    @Test
    void matchesTheTableInFormatMd() {
        assertEquals("6ab47d70854a8c69", ClassIdHash.of("dict").toHex());
        assertEquals("cc11f08d1d3a3138", ClassIdHash.of("ArrowTable").toHex());
    }

    @Test
    void wireBytesAreTheFirstEightBytesOfSha256() throws Exception {
        byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest("example.Point".getBytes("UTF-8"));
        assertEquals(java.util.HexFormat.of().formatHex(digest, 0, 8), ClassIdHash.of("example.Point").toHex());
        assertEquals(java.util.HexFormat.of().formatHex(ClassIdHash.of("example.Point").toBytes()),
                ClassIdHash.of("example.Point").toHex());
    }

    @Test
    void longValueIsTheWireBytesReadLittleEndian() {
        ClassIdHash h = ClassIdHash.of("dict");
        assertEquals(0x698c4a85707db46aL, h.toLong());
        assertEquals(h, ClassIdHash.fromLong(h.toLong()));
        assertEquals(h, ClassIdHash.readFrom(java.nio.ByteBuffer.wrap(h.toBytes()), 0));
    }

    @Test
    void nonAsciiIdsHashTheirUtf8() {
        assertNotEquals(ClassIdHash.of("caf\u00e9"), ClassIdHash.of("cafe"));
        assertThrows(IllegalArgumentException.class, () -> ClassIdHash.of(""));
    }
}
