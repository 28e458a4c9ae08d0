package serreg.structs;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import serreg.InBandWriter;

/**
 * The template of the writer class {@link CompiledCalls#writer} defines per struct class (a hidden
 * class with these bytes, its handle as class data), for the reason {@link CompiledReader} gives.
 * Never loaded as itself.
 */
final class CompiledWriter implements CompiledCalls.InstanceWriter {
    private static final MethodHandle WRITE = CompiledCalls.classData(MethodHandles.lookup());

    @Override
    public void write(InBandWriter out, Object value) {
        try {
            WRITE.invokeExact(out, value);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
