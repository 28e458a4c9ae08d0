package serreg.structs;

import java.nio.ByteBuffer;
import java.util.List;
import serreg.StructSupport;

/**
 * The struct table of a serialize call in first-use order, made only when the call writes its
 * first struct (docs/FORMAT.md section 10.1): most values hold none, and a table made for every
 * call was most of the machinery a small value's serialize call allocated. Opening counts the
 * call on its thread ({@link ThreadTables#calls}); {@link StructFrames#indexOf} makes the table
 * of the innermost open call at its first definition, wherever the struct is met (a struct
 * serializer, a carrier, an ext 2 list, in a container or in a nested serialize call, which is a
 * call of its own); closing drops it. One per thread, handed to every such call on it: the calls
 * of a thread nest, so the innermost open one is always the one asking. Package-private.
 */
final class LazyTable implements StructSupport.Table {
    private final ThreadTables tables;

    LazyTable(ThreadTables tables) {
        this.tables = tables;
    }

    /** Opens a serialize call on this table's thread (no table made yet). */
    LazyTable open() {
        tables.calls++;
        return this;
    }

    @Override
    public byte[] wrap(ByteBuffer section, Object value) {
        StructFrames.Scope scope = tables.running();
        return scope == null ? null : scope.wrap(section, value);
    }

    @Override
    public ByteBuffer toFrame(ByteBuffer section, List<ByteBuffer> outOfBand, Object value, byte[] key) {
        StructFrames.Scope scope = tables.running();
        return scope == null ? null : scope.toFrame(section, outOfBand, value, key);
    }

    @Override
    public List<byte[]> definitions() {
        StructFrames.Scope scope = tables.running();
        return scope == null ? List.of() : scope.definitions();
    }

    @Override
    public void close() {
        tables.endCall();
    }
}
