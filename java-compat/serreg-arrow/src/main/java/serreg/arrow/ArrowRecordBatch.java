package serreg.arrow;

import java.util.Objects;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A pyarrow {@code RecordBatch} (class ID {@code ArrowRecordBatch}): one batch held in a
 * {@link VectorSchemaRoot}. A plain VectorSchemaRoot is an {@code ArrowTable}. Closing closes
 * the root. Equality compares schema and contents ({@link VectorSchemaRoot#equals(VectorSchemaRoot)}).
 */
public final class ArrowRecordBatch implements AutoCloseable {
    private final VectorSchemaRoot root;

    public ArrowRecordBatch(VectorSchemaRoot root) {
        this.root = Objects.requireNonNull(root);
    }

    public VectorSchemaRoot root() {
        return root;
    }

    @Override
    public void close() {
        root.close();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ArrowRecordBatch b && b.root.equals(root);
    }

    @Override
    public int hashCode() {
        return root.getSchema().hashCode() * 31 + root.getRowCount();
    }

    @Override
    public String toString() {
        return "ArrowRecordBatch(" + root.getSchema() + ", rows=" + root.getRowCount() + ")";
    }
}
