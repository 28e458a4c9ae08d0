package serreg.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.util.List;
import org.junit.jupiter.api.Test;
import serreg.FrameFormatException;
import serreg.SerializationResult;
import serreg.SignatureException;
import serreg.TestFiles;

class FrameTest {
    private static SerializationResult sample() {
        ByteBuffer inBand = ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
        return new SerializationResult(inBand, List.of(ByteBuffer.wrap(new byte[] {(byte) 0xaa, (byte) 0xbb, (byte) 0xcc}),
                ByteBuffer.allocate(0), ByteBuffer.wrap(new byte[100])));
    }

    @Test
    void headerAndLayoutFollowSection4() {
        ByteBuffer f = sample().toFrame().order(ByteOrder.LITTLE_ENDIAN);
        assertEquals('S', f.get(0));
        assertEquals('G', f.get(3));
        assertEquals(1, f.get(4));
        assertEquals(0, f.get(5));
        assertEquals(3, f.getInt(8));
        assertEquals(10, f.getLong(16));
        // in-band at 32 + 16*3 = 80, ends at 90; buffers at align64: 128, 192 (after 3 bytes), 192 (zero-length), 192+... 
        assertEquals(128, f.getLong(32));
        assertEquals(3, f.getLong(40));
        assertEquals(192, f.getLong(48));
        assertEquals(0, f.getLong(56));
        assertEquals(192, f.getLong(64));
        assertEquals(100, f.getLong(72));
        assertEquals(292, f.getLong(24));
        assertEquals(292, f.remaining());
        for (int p = 90; p < 128; p++) {
            assertEquals(0, f.get(p), "padding at " + p);
        }
        assertEquals((byte) 0xaa, f.get(128));
    }

    @Test
    void frameWithoutBuffersHasNoPadding() {
        ByteBuffer f = new SerializationResult(ByteBuffer.wrap(new byte[9])).toFrame();
        assertEquals(32 + 9, f.remaining());
    }

    @Test
    void writeToProducesTheSameBytesAsToFrame() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long n = sample().writeTo(Channels.newChannel(out));
        assertEquals(n, out.size());
        assertArrayEquals(TestFiles.bytes(sample().toFrame()), out.toByteArray());
    }

    @Test
    void readerReturnsViewsOfTheFrame() {
        ByteBuffer direct = TestFiles.direct(sample().toFrame());
        FrameView r = FrameReader.read(direct);
        assertEquals(10, r.inBand().remaining());
        assertEquals(List.of(3, 0, 100), r.outOfBand().stream().map(ByteBuffer::remaining).toList());
        direct.put(128, (byte) 0x11);
        assertEquals(0x11, r.outOfBand().get(0).get(0), "OOB buffer must be a view, not a copy");
    }

    @Test
    void frameMayBeFollowedByOtherData() {
        ByteBuffer f = sample().toFrame();
        ByteBuffer longer = ByteBuffer.allocate(f.remaining() + 7).put(f.duplicate()).put(new byte[7]).flip();
        assertEquals(292, FrameReader.frameLength(longer));
        assertEquals(3, FrameReader.read(longer).outOfBand().size());
    }

    private static FrameFormatException corrupt(int index, byte value) {
        ByteBuffer f = sample().toFrame();
        f.put(index, value);
        return assertThrows(FrameFormatException.class, () -> FrameReader.read(f));
    }

    @Test
    void readerRejectsEveryBrokenRuleWithItsOffset() {
        assertEquals(0, corrupt(0, (byte) 'X').offset());
        assertTrue(corrupt(4, (byte) 2).getMessage().contains("version 2"));
        assertEquals(5, corrupt(5, (byte) 4).offset());
        assertEquals(5, corrupt(5, (byte) 0x80).offset());
        ByteBuffer v1 = sample().toFrame();
        v1.put(5, (byte) 1);
        assertEquals(5, assertThrows(SignatureException.class, () -> FrameReader.read(v1)).offset(), "retired v1 flag");
        assertEquals(6, corrupt(6, (byte) 1).offset());
        assertEquals(12, corrupt(12, (byte) 1).offset());
        assertEquals(32, corrupt(32, (byte) 129).offset(), "misplaced buffer offset");
        assertEquals(100, corrupt(100, (byte) 1).offset(), "non-zero padding");
        FrameFormatException truncated = assertThrows(FrameFormatException.class,
                () -> FrameReader.read(ByteBuffer.wrap(TestFiles.bytes(sample().toFrame()), 0, 200)));
        assertTrue(truncated.getMessage().contains("were given"), truncated.getMessage());
        assertEquals(24, truncated.offset());
        assertThrows(FrameFormatException.class, () -> FrameReader.read(ByteBuffer.wrap(new byte[10])));
    }

    @Test
    void inBandShorterThanAHashIsRejected() {
        ByteBuffer f = new SerializationResult(ByteBuffer.wrap(new byte[9])).toFrame();
        f.order(ByteOrder.LITTLE_ENDIAN).putLong(16, 7).putLong(24, 39);
        assertThrows(FrameFormatException.class, () -> FrameReader.read(f.limit(39)));
    }
}
