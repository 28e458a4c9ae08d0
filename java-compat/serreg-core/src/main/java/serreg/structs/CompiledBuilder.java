package serreg.structs;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.ArrayList;

/**
 * The template of the class {@link CompiledCalls#builder} defines per writer definition and
 * reading class: the loop that builds an ext 2 list's instances from its decoded columns, the
 * composed {@code (ColumnView cols, int i) Object} handle a constant inside it (see
 * {@link CompiledReader}). Never loaded as itself.
 */
final class CompiledBuilder implements ReadPlan.ColumnBuilder {
    private static final MethodHandle BUILD = CompiledCalls.classData(MethodHandles.lookup());

    @Override
    public void buildAll(Object[] cols, int count, ArrayList<Object> out) {
        ColumnView view = new ColumnView(cols);
        try {
            for (int i = 0; i < count; i++) {
                out.add((Object) BUILD.invokeExact(view, i));
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
