package serreg.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import serreg.DeserializationException;
import serreg.Hostile;
import serreg.SerializerRegistry;
import serreg.arrow.ArrowSerializers;

/**
 * A registry of its own for each hostile Arrow test, whose Arrow memory is capped (8 MiB unless
 * the test class asks for another cap) so an allocation the checks miss fails loudly, and which
 * must have released every buffer at the end; {@link #error} reads a frame that must be refused.
 */
abstract class CappedArrowRegistry {
    private final long cap;
    RootAllocator allocator;
    SerializerRegistry registry;

    CappedArrowRegistry() {
        this(8 << 20);
    }

    CappedArrowRegistry(long cap) {
        this.cap = cap;
    }

    @BeforeEach
    void registry() {
        // A registry of its own whose Arrow memory is capped, so an allocation the checks miss fails loudly.
        allocator = new RootAllocator(cap);
        registry = new SerializerRegistry();
        ArrowSerializers.registerWith(registry, allocator);
    }

    @AfterEach
    void allocatorIsEmpty() {
        assertEquals(0, allocator.getAllocatedMemory(), "every Arrow buffer was released");
        allocator.close();
    }

    DeserializationException error(byte[] frame, String what) {
        Object outcome = Hostile.decode(registry, frame, what);
        return assertInstanceOf(DeserializationException.class, outcome, what + ": decoded to " + outcome);
    }
}
