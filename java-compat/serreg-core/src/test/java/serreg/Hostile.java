package serreg;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import serreg.types.FrozenSet;
import serreg.types.Tuple;

/**
 * Feeds bytes to deserialize and sorts the outcome: a value, or a DeserializationException that
 * a check made on purpose. Anything else (another exception type, an Error, or a
 * DeserializationException that only wraps an unexpected RuntimeException from inside a
 * serializer) fails the calling test with the input that caused it.
 */
public final class Hostile {
    private Hostile() {
    }

    /** The value decoded (the caller releases it), or the DeserializationException raised. */
    public static Object decode(SerializerRegistry registry, byte[] frame, String what) {
        return decode(registry, ByteBuffer.wrap(frame), what);
    }

    public static Object decode(SerializerRegistry registry, ByteBuffer frame, String what) {
        return decode(registry, frame, what, registry.trusted());
    }

    /** As {@link #decode(SerializerRegistry, ByteBuffer, String)}, trusted or untrusted (docs/FORMAT.md 4.4). */
    public static Object decode(SerializerRegistry registry, ByteBuffer frame, String what, boolean trusted) {
        Object value;
        try {
            value = registry.deserialize(frame.duplicate(), trusted);
        } catch (DeserializationException e) {
            checkDeliberate(e, what);
            return e;
        } catch (Throwable t) {
            throw new AssertionError(what + ": deserialize threw " + t.getClass().getName() + " instead of a"
                    + " DeserializationException: " + t.getMessage(), t);
        }
        return value;
    }

    /**
     * A DeserializationException must come from a check, not from the registry's catch-all around
     * serializers nor from the last line of defence around the whole reader (an unchecked
     * exception, a StackOverflowError or an OutOfMemoryError turned into one).
     */
    public static void checkDeliberate(DeserializationException e, String what) {
        if (e.getMessage().startsWith("serializer failed")) {
            fail(what + ": an unchecked " + e.getCause() + " escaped a serializer (" + e.getMessage() + ")", e);
        }
        if (e.getMessage().startsWith("the frame could not be read: an unchecked")
                || e.getCause() instanceof OutOfMemoryError) {
            fail(what + ": " + e.getCause() + " escaped the reader (" + e.getMessage() + ")", e);
        }
    }

    /** Closes Arrow data wherever it sits in a decoded value. */
    public static void release(Object value) {
        if (value instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        } else if (value instanceof Collection<?> items) {
            items.forEach(Hostile::release);
        } else if (value instanceof Map<?, ?> map) {
            map.forEach((k, v) -> {
                release(k);
                release(v);
            });
        } else if (value instanceof Tuple t) {
            t.items().forEach(Hostile::release);
        } else if (value instanceof FrozenSet s) {
            s.items().forEach(Hostile::release);
        }
    }

    /** Every golden frame of the repository (Python, Java, signed and canonical vectors), by name. */
    public static List<Map.Entry<String, byte[]>> goldenFrames() {
        List<Map.Entry<String, byte[]>> out = new ArrayList<>();
        for (String producer : new String[] {"python", "java", "signed", "canonical", "structs"}) {
            Path dir = TestFiles.vectors(producer);
            try (Stream<Path> files = Files.list(dir)) {
                for (Path p : files.sorted().toList()) {
                    String name = p.getFileName().toString();
                    // The retired signed-frames-v1 vector is refused whole (SigningTest checks that).
                    if ((name.endsWith(".frame") || name.endsWith(".srg")) && !name.equals("signed_list_v1.frame")) {
                        out.add(Map.entry(producer + "/" + name, Files.readAllBytes(p)));
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out;
    }
}
