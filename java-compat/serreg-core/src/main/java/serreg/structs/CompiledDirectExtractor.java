package serreg.structs;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.List;

/**
 * The template of the class {@link CompiledCalls#directExtractor} defines per struct class: the
 * one walk over an ext 2 list's instances that checks each is of the class and writes their
 * fixed-width and first str columns on the way ({@link ColumnSink}), the composed
 * {@code (Object item, ColumnSink sink, int i) void} handle a constant inside it (see
 * {@link CompiledReader}). Never loaded as itself.
 */
final class CompiledDirectExtractor implements ColumnWriter.DirectExtractor {
    private static final MethodHandle EXTRACT = CompiledCalls.classData(MethodHandles.lookup());

    @Override
    public int extract(List<?> items, int count, Class<?> cls, ColumnSink sink) {
        try {
            for (int i = 0; i < count; i++) {
                Object item = items.get(i);
                if (item == null || item.getClass() != cls) {
                    return i;
                }
                EXTRACT.invokeExact(item, sink, i);
            }
            return count;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
