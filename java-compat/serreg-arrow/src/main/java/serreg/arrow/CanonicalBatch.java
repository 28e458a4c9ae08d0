package serreg.arrow;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;
import serreg.CanonicalFormException;

/**
 * The field nodes and buffers of the one batch of a canonical Arrow value, in IPC order
 * (docs/FORMAT.md sections 6.4 and 9.5), the dictionaries of the root it is written from, and the
 * checks that a vector is the one its schema field says. Package-private, for
 * {@link ArrowCanonical} and {@link ArrowCanonicalLayouts}.
 */
final class CanonicalBatch {
    /** A buffer of no bytes (an absent validity bitmap, an empty data buffer). */
    static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    final List<long[]> nodes = new ArrayList<>();
    final List<ByteBuffer> buffers = new ArrayList<>();
    org.apache.arrow.vector.dictionary.DictionaryProvider dictionaries;

    static List<Field> childFields(Field field, int vectors, String path) {
        if (field.getChildren().size() != vectors) {
            throw new CanonicalFormException("Arrow field '" + path + "' has " + field.getChildren().size()
                    + " child fields in the schema but " + vectors + " child vectors; the schema is out of date"
                    + " (VectorSchemaRoot.syncSchema)");
        }
        return field.getChildren();
    }

    static <T> T as(Class<T> cls, FieldVector v, String path) {
        if (!cls.isInstance(v)) {
            throw new CanonicalFormException("Arrow field '" + path + "' of type " + v.getField().getType()
                    + " is held by a " + v.getClass().getSimpleName() + ", not a " + cls.getSimpleName());
        }
        return cls.cast(v);
    }
}
