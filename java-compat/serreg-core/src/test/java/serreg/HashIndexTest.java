package serreg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;
import serreg.types.OpaqueValue;
import serreg.wire.ClassIdHash;

/**
 * The registrations by ClassIDHash that readers look up (an immutable table rebuilt at each
 * registration change): every class ID registered is found under its hash, none after it is
 * unregistered, and an older registration comes back when the newest of a class goes.
 */
class HashIndexTest {
    record Box(long v) {
    }

    static final class BoxSerializer extends MsgpackSerializer<Box> {
        BoxSerializer(SerializerRegistry registry) {
            super(registry);
        }

        @Override
        protected void write(Box value, InBandWriter out) {
            out.writeLong(value.v());
        }

        @Override
        protected Box read(InBandReader in) {
            return new Box(in.readLong());
        }
    }

    @Test
    void everyHashIsFoundUntilItsClassIdIsUnregistered() {
        RegistrationTable table = new RegistrationTable(ClassIdHash::of);
        SerializerRegistry registry = SerializerRegistry.empty();
        BoxSerializer serializer = new BoxSerializer(registry);
        int n = 300;
        for (int i = 0; i < n; i++) {
            table.register("test.box" + i, java.util.Set.of(Box.class), serializer);
        }
        for (int i = 0; i < n; i++) {
            RegistrationTable.Registration r = table.byHash(ClassIdHash.of("test.box" + i).toLong());
            assertEquals("test.box" + i, r.classId());
            assertSame(table.byId("test.box" + i), r);
        }
        assertNull(table.byHash(ClassIdHash.of("test.none").toLong()));
        for (int i = 0; i < n; i += 2) {
            table.unregister("test.box" + i);
        }
        for (int i = 0; i < n; i++) {
            RegistrationTable.Registration r = table.byHash(ClassIdHash.of("test.box" + i).toLong());
            if (i % 2 == 0) {
                assertNull(r, "unregistered test.box" + i);
            } else {
                assertEquals("test.box" + i, r.classId());
            }
        }
    }

    @Test
    void framesDecodeByTheRegistrationsOfTheMomentTheyAreRead() {
        SerializerRegistry registry = new SerializerRegistry();
        registry.registerSerializer("test.Box", Box.class, new BoxSerializer(registry));
        ByteBuffer frame = registry.serializeToFrame(List.of(new Box(1), new Box(2)));
        assertEquals(List.of(new Box(1), new Box(2)), registry.deserialize(frame.duplicate()));
        registry.unregisterSerializer("test.Box");
        List<?> back = (List<?>) registry.deserialize(frame.duplicate());
        assertEquals(OpaqueValue.class, back.get(0).getClass(), "unknown once unregistered");
        registry.registerSerializer("test.Box", Box.class, new BoxSerializer(registry));
        assertEquals(List.of(new Box(1), new Box(2)), registry.deserialize(frame.duplicate()));
    }
}
