package serreg.structs;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.List;

/**
 * The template of the class {@link CompiledCalls#extractor} defines per struct class: the loop
 * that copies the fields of an ext 2 list's instances into its columns, the composed
 * {@code (Object item, Object[] cols, int i) void} handle a constant inside it (see
 * {@link CompiledReader}). Never loaded as itself.
 */
final class CompiledExtractor implements ColumnWriter.Extractor {
    private static final MethodHandle EXTRACT = CompiledCalls.classData(MethodHandles.lookup());

    @Override
    public void extract(List<?> items, int count, Object[] cols) {
        try {
            for (int i = 0; i < count; i++) {
                EXTRACT.invokeExact(items.get(i), cols, i);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
