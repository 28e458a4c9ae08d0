package serreg;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import serreg.fixture.Main;
import serreg.wire.FrameReader;
import serreg.wire.FrameView;

/**
 * A bounded, seeded random mutation run over every golden frame of the repository. Two kinds of
 * mutants: raw (bytes of the frame changed, inserted or removed, which the frame checks mostly
 * catch) and structured (the in-band bytes or an OOB buffer changed, then laid out again as a valid
 * frame, so the mutation reaches the serializers' own decoders). Every mutant must decode to a
 * value that writes back and reads again, or raise a deliberate DeserializationException (see
 * {@link Hostile}). The seed is fixed so a failure repeats; SERREG_MUTATION_SEED and
 * SERREG_MUTATIONS (per frame) widen a run by hand.
 */
class MutationTest {
    private static final SerializerRegistry REGISTRY = Main.fixtureRegistry();
    private static final long SEED = Long.parseLong(System.getenv().getOrDefault("SERREG_MUTATION_SEED", "20240605"));
    private static final int PER_FRAME = Integer.parseInt(System.getenv().getOrDefault("SERREG_MUTATIONS", "400"));

    static byte[] mutateRaw(byte[] frame, Random random) {
        byte[] out = frame.clone();
        switch (random.nextInt(4)) {
            case 0 -> {
                for (int i = 0, n = 1 + random.nextInt(4); i < n; i++) {
                    out[random.nextInt(out.length)] = (byte) random.nextInt(256);
                }
            }
            case 1 -> out[random.nextInt(out.length)] ^= (byte) (1 << random.nextInt(8));
            case 2 -> {
                int at = random.nextInt(out.length);
                int n = 1 + random.nextInt(Math.min(16, out.length - at));
                byte[] shorter = new byte[out.length - n];
                System.arraycopy(out, 0, shorter, 0, at);
                System.arraycopy(out, at + n, shorter, at, out.length - at - n);
                out = shorter;
            }
            default -> {
                // An interesting value over 1, 2, 4 or 8 bytes: lengths and counts are where readers break.
                long[] interesting = {0, 1, -1, 0x7f, 0x80, 0xff, 0x7fff, 0xffff, Integer.MAX_VALUE, 0xffffffffL,
                    Long.MAX_VALUE, Long.MIN_VALUE, 64, 31, 32};
                long v = interesting[random.nextInt(interesting.length)];
                int width = new int[] {1, 2, 4, 8}[random.nextInt(4)];
                int at = random.nextInt(Math.max(1, out.length - width));
                ByteBuffer b = ByteBuffer.wrap(out).order(random.nextBoolean()
                        ? java.nio.ByteOrder.LITTLE_ENDIAN : java.nio.ByteOrder.BIG_ENDIAN);
                for (int i = 0; i < width && at + i < out.length; i++) {
                    b.put(at + i, (byte) (v >>> (8 * (b.order() == java.nio.ByteOrder.LITTLE_ENDIAN ? i : width - 1 - i))));
                }
            }
        }
        return out;
    }

    /** Mutates the in-band after its ClassIDHash, or one OOB buffer, and lays the result out as a valid frame. */
    static byte[] mutateStructured(FrameView parts, Random random) {
        byte[] inBand = TestFiles.bytes(parts.inBand());
        List<byte[]> buffers = new ArrayList<>(parts.outOfBand().stream().map(TestFiles::bytes).toList());
        boolean buffer = !buffers.isEmpty() && random.nextInt(3) == 0;
        if (buffer) {
            int i = random.nextInt(buffers.size());
            byte[] b = buffers.get(i);
            if (b.length > 0) {
                buffers.set(i, mutateRaw(b, random));
            }
        } else if (inBand.length > 8) {
            byte[] body = mutateRaw(java.util.Arrays.copyOfRange(inBand, 8, inBand.length), random);
            byte[] out = new byte[8 + body.length];
            System.arraycopy(inBand, 0, out, 0, 8);
            System.arraycopy(body, 0, out, 8, body.length);
            inBand = out;
        }
        return TestFiles.bytes(new SerializationResult(ByteBuffer.wrap(inBand), buffers.stream().map(ByteBuffer::wrap).toList()).toFrame());
    }

    @TestFactory
    Stream<DynamicTest> randomMutantsOfEveryGoldenFrame() {
        List<Map.Entry<String, byte[]>> frames = Hostile.goldenFrames();
        assertTrue(frames.size() > 150, frames.size() + " golden frames");
        return frames.stream().map(entry -> DynamicTest.dynamicTest(entry.getKey(), () -> {
            Random random = new Random(SEED ^ entry.getKey().hashCode());
            byte[] frame = entry.getValue();
            FrameView parts = FrameReader.read(ByteBuffer.wrap(frame));
            for (int i = 0; i < PER_FRAME; i++) {
                byte[] mutant = random.nextBoolean() ? mutateRaw(frame, random) : mutateStructured(parts, random);
                String what = entry.getKey() + " mutant " + i + " (seed " + SEED + ")";
                Object value = Hostile.decode(REGISTRY, TestFiles.direct(mutant), what);
                if (!(value instanceof DeserializationException)) {
                    Object again = Hostile.decode(REGISTRY, REGISTRY.serializeToFrame(value), what + ", written back");
                    assertTrue(!(again instanceof DeserializationException), what + ": a decoded value did not read back: " + again);
                    Hostile.release(again);
                    Hostile.release(value);
                }
            }
        }));
    }
}
