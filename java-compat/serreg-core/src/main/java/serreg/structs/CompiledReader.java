package serreg.structs;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import serreg.InBandReader;

/**
 * The template of the reader class {@link CompiledCalls#reader} defines per writer definition (a hidden
 * class with these bytes, its handle as class data): the handle is a {@code static final}
 * constant there, so the JIT compiles the instance reader into this one method, without the
 * invoker a handle held in a field goes through. Never loaded as itself.
 */
final class CompiledReader implements DecodeScope.InstanceReader {
    private static final MethodHandle READ = CompiledCalls.classData(MethodHandles.lookup());

    @Override
    public Object read(InBandReader in) {
        try {
            return (Object) READ.invokeExact(in);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
