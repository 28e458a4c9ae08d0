package serreg.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.IntervalDayVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;
import serreg.CanonicalFormException;
import serreg.DeserializationException;
import serreg.InBandWriter;
import serreg.SerializationResult;
import serreg.Serreg;

/**
 * Arrow values the canonical form refuses in Java (docs/FORMAT.md, section 9.5), naming the
 * field: metadata that is not UTF-8 (when read), a decimal narrower than 128 bits Arrow Java
 * would misread, offsets past a child and columns shorter than the table, a type without a
 * canonical form.
 */
class ArrowCanonicalRefusalTest extends CanonicalTables {
    @Test
    void metadataThatIsNotUtf8IsRefusedWhenRead() {
        // Python allows any bytes; Arrow Java holds Strings. Replacing the bytes would change the digest.
        for (byte[] key : List.of(new byte[] {(byte) 0xFF}, utf8("ok"))) {
            InBandWriter in = new InBandWriter(REGISTRY);
            in.writeArrayHeader(2).writeArrayHeader(2).writeArrayHeader(0).writeMapHeader(1).writeBinary(key).writeBinary(utf8("v"));
            in.writeArrayHeader(1).writeArrayHeader(2).writeLong(0).writeArrayHeader(0);
            ByteBuffer own = in.finish().inBand();
            ByteBuffer section = ByteBuffer.allocate(8 + own.remaining());
            REGISTRY.hashOf("ArrowTable").writeTo(section);
            section.put(own).flip();
            SerializationResult frame = new SerializationResult(section);
            if (key.length == 1) {
                DeserializationException error = assertThrows(DeserializationException.class, () -> REGISTRY.deserialize(frame));
                assertTrue(error.getMessage().contains("not UTF-8"), error.getMessage());
            } else {
                try (VectorSchemaRoot root = (VectorSchemaRoot) REGISTRY.deserialize(frame)) {
                    assertEquals(Map.of("ok", "v"), root.getSchema().getCustomMetadata());
                }
            }
        }
    }

    @Test
    void aDecimalArrowJavaCannotHoldIsRefusedNotMisread() {
        // Arrow Java 18 would load a 32- or 64-bit decimal column into a 128-bit DecimalVector.
        for (int bits : new int[] {32, 64}) {
            InBandWriter in = new InBandWriter(REGISTRY);
            in.writeArrayHeader(2).writeArrayHeader(2).writeArrayHeader(1)
                    .writeArrayHeader(5).writeString("d").writeArrayHeader(4).writeString("Decimal").writeLong(5).writeLong(2)
                    .writeLong(bits).writeBoolean(true).writeNil().writeArrayHeader(0)
                    .writeNil();
            in.writeArrayHeader(1).writeArrayHeader(2).writeLong(1).writeArrayHeader(1)
                    .writeArrayHeader(3).writeLong(1).writeLong(0).writeLong(2);
            ByteBuffer own = in.finish().inBand();
            ByteBuffer section = ByteBuffer.allocate(8 + own.remaining());
            REGISTRY.hashOf("ArrowTable").writeTo(section);
            section.put(own).flip();
            ByteBuffer value = ByteBuffer.allocateDirect(bits / 8).put(0, (byte) 125);
            SerializationResult frame = new SerializationResult(section, List.of(ByteBuffer.allocateDirect(0), value));
            DeserializationException error = assertThrows(DeserializationException.class, () -> REGISTRY.deserialize(frame));
            assertTrue(error.getMessage().contains(bits + "-bit decimal"), error.getMessage());
        }
        // Held in a 128-bit vector by hand, it is refused by the canonical writer too.
        Field field = new Field("d", FieldType.nullable(new ArrowType.Decimal(5, 2, 64)), List.of());
        try (DecimalVector v = new DecimalVector(field, allocator)) {
            v.setValueCount(1);
            CanonicalFormException error = assertThrows(CanonicalFormException.class,
                    () -> Serreg.digest(REGISTRY, new VectorSchemaRoot(List.of(v))));
            assertTrue(error.getMessage().contains("'d'"), error.getMessage());
        }
    }

    @Test
    void offsetsPastTheChildAndColumnsShorterThanTheTableAreRefused() throws Exception {
        try (VectorSchemaRoot root = nestedTable(false)) {
            ((ListVector) root.getVector("list")).getOffsetBuffer().setInt(4 * 4, 40);  // the last list ends at child slot 40
            CanonicalFormException error = assertThrows(CanonicalFormException.class, () -> Serreg.digest(REGISTRY, root));
            assertTrue(error.getMessage().contains("'list.item' holds 3 values, but 40 are needed"), error.getMessage());
        }
        try (VectorSchemaRoot root = recordBatchColumns(new long[] {1, 2}, new String[] {"a", "b"})) {
            VectorSchemaRoot longer = new VectorSchemaRoot(root.getSchema(), root.getFieldVectors(), 3);
            CanonicalFormException error = assertThrows(CanonicalFormException.class, () -> Serreg.digest(REGISTRY, longer));
            assertTrue(error.getMessage().contains("'a' holds 2 values, but 3 are needed"), error.getMessage());
        }
    }

    @Test
    void aTypeWithNoCanonicalFormIsRefusedNamingTheField() {
        try (IntervalDayVector span = new IntervalDayVector("span", allocator)) {
            span.setSafe(0, 1, 2);
            span.setValueCount(1);
            VectorSchemaRoot root = new VectorSchemaRoot(List.of(span));
            CanonicalFormException error = assertThrows(CanonicalFormException.class, () -> Serreg.digest(REGISTRY, root));
            assertTrue(error.getMessage().contains("'span'"), error.getMessage());
        }
    }
}
