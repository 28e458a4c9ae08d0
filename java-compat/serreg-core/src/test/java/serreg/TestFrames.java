package serreg;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import serreg.wire.ClassIdHash;

/**
 * Builds frames for tests of hostile input, byte by byte: valid frames around arbitrary in-band
 * bytes, deep nesting at and past the limits, and a thread with a small stack to decode them
 * on. Shared with the other modules' tests through serreg-core's test jar.
 */
public final class TestFrames {
    private TestFrames() {
    }

    /**
     * The frame Python writes for {@code shop.Point(1, 2)} of a plain class {@code Point} in a
     * module {@code shop}: an implicit struct (docs/FORMAT.md 10.9, class ID
     * {@code serreg.pyobjects}), with the example's in-band bytes.
     */
    public static byte[] pyobjectsFrame() {
        return java.util.HexFormat.of().parseHex("5352454701000000000000000000000069000000000000008900000000000000"
                + "353e9ef6194f852ec41f80059514000000000000008c0473686f70948c05506f696e7494939485942e989b856529bd77a0"
                + "9192ba7365727265672e70796f626a6563743a73686f703a506f696e749292a178a3616e7992a179a3616e79472fe6d27f"
                + "65476193000102");
    }

    /** A well-formed frame around arbitrary in-band bytes and buffers. */
    public static byte[] rawFrame(String classId, byte[] inBand, byte[]... buffers) {
        ByteBuffer section = ByteBuffer.allocate(8 + inBand.length).put(ClassIdHash.of(classId).toBytes()).put(inBand).flip();
        List<ByteBuffer> oob = Arrays.stream(buffers).map(ByteBuffer::wrap).toList();
        return TestFiles.bytes(new SerializationResult(section, oob).toFrame());
    }

    /** Writes msgpack with msgpack-core's packer. */
    public interface Packing {
        void pack(MessageBufferPacker p) throws IOException;
    }

    /** The bytes {@code packing} writes. */
    public static byte[] msgpack(Packing packing) {
        try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
            packing.pack(p);
            return p.toByteArray();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** The parts one after the other. */
    public static byte[] concat(byte[]... parts) {
        ByteBuffer out = ByteBuffer.allocate(Arrays.stream(parts).mapToInt(p -> p.length).sum());
        for (byte[] p : parts) {
            out.put(p);
        }
        return out.array();
    }

    /** {@code unit} {@code times} times. */
    public static byte[] repeat(byte[] unit, int times) {
        byte[] out = new byte[unit.length * times];
        for (int i = 0; i < times; i++) {
            System.arraycopy(unit, 0, out, i * unit.length, unit.length);
        }
        return out;
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

    /**
     * 99 nested lists (the most maxDepth=100 allows, with the list that holds them), each holding
     * as many nested arrays around the next as maxMsgpackNesting allows.
     */
    public static byte[] deepestAllowedFrame() {
        return deepFrame(99);
    }

    /**
     * {@code levels} nested lists, each holding 1,023 nested arrays around the next: with the
     * list's own array, 1,024 open at once in each in-band, the most docs/FORMAT.md 4.3 allows.
     */
    public static byte[] deepFrame(int levels) {
        byte[] section = concat(ClassIdHash.of("list").toBytes(), repeat(new byte[] {(byte) 0x91}, 1024), new byte[] {(byte) 0xc0});
        for (int k = 0; k < levels; k++) {
            byte[] inner = section;
            byte[] doc = msgpack(p -> {
                for (int i = 0; i < 1023; i++) {
                    p.packArrayHeader(1);
                }
                p.packExtensionTypeHeader((byte) 0, inner.length).writePayload(inner);
            });
            section = concat(ClassIdHash.of("list").toBytes(), new byte[] {(byte) 0x91}, doc);
        }
        return TestFiles.bytes(new SerializationResult(ByteBuffer.wrap(section)).toFrame());
    }
}
