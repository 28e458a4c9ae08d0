package serreg.structs;

import java.io.IOException;
import java.io.InputStream;
import java.lang.constant.ConstantDescs;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import serreg.InBandWriter;

/**
 * Calls a struct's composed handles ({@link Handles}) from classes where they are constants: per
 * handle, a hidden class defined from the bytes of a template ({@link CompiledReader},
 * {@link CompiledWriter}) with the handle as its class data, held in a {@code static final}
 * field. The JIT then compiles an instance's whole read or write into the template's one method,
 * without the invoker stub a handle held in an ordinary field costs per call. Where a hidden class
 * cannot be defined, the handle is called from a field instead.
 */
final class CompiledCalls {
    private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();
    private static final byte[] READER_TEMPLATE = templateBytes(CompiledReader.class);
    private static final byte[] WRITER_TEMPLATE = templateBytes(CompiledWriter.class);
    private static final byte[] BUILDER_TEMPLATE = templateBytes(CompiledBuilder.class);
    private static final byte[] EXTRACTOR_TEMPLATE = templateBytes(CompiledExtractor.class);
    private static final byte[] DIRECT_TEMPLATE = templateBytes(CompiledDirectExtractor.class);

    private CompiledCalls() {
    }

    /** Writes one instance's fields (what {@link #writer} makes of a composed handle). */
    interface InstanceWriter {
        void write(InBandWriter out, Object value);
    }

    /**
     * The reader that calls {@code read} {@code (InBandReader) Object}: an instance of a hidden
     * class defined from {@link CompiledReader}'s bytes with {@code read} as its class data, or,
     * where hidden classes cannot be defined, one that calls the handle from a field.
     */
    static DecodeScope.InstanceReader reader(MethodHandle read) {
        if (define(READER_TEMPLATE, read) instanceof DecodeScope.InstanceReader r) {
            return r;
        }
        return in -> {
            try {
                return (Object) read.invokeExact(in);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        };
    }

    /** The writer that calls {@code write} {@code (InBandWriter, Object) void}, as {@link #reader} makes readers. */
    static InstanceWriter writer(MethodHandle write) {
        if (define(WRITER_TEMPLATE, write) instanceof InstanceWriter w) {
            return w;
        }
        return (out, value) -> {
            try {
                write.invokeExact(out, value);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        };
    }

    /** The ext 2 instance builder looping over {@code build} {@code (ColumnView, int) Object}, as {@link #reader} makes readers. */
    static ReadPlan.ColumnBuilder builder(MethodHandle build) {
        if (define(BUILDER_TEMPLATE, build) instanceof ReadPlan.ColumnBuilder b) {
            return b;
        }
        return (cols, count, out) -> {
            ColumnView view = new ColumnView(cols);
            try {
                for (int i = 0; i < count; i++) {
                    out.add((Object) build.invokeExact(view, i));
                }
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        };
    }

    /** The ext 2 column extractor looping over {@code extract} {@code (Object, Object[], int) void}, as {@link #reader} makes readers. */
    static ColumnWriter.Extractor extractor(MethodHandle extract) {
        if (define(EXTRACTOR_TEMPLATE, extract) instanceof ColumnWriter.Extractor x) {
            return x;
        }
        return (items, count, cols) -> {
            try {
                for (int i = 0; i < count; i++) {
                    extract.invokeExact(items.get(i), cols, i);
                }
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        };
    }

    /**
     * The ext 2 walk that writes columns on the way, looping over {@code extract}
     * {@code (Object, ColumnSink, int) void}, as {@link #reader} makes readers.
     */
    static ColumnWriter.DirectExtractor directExtractor(MethodHandle extract) {
        if (define(DIRECT_TEMPLATE, extract) instanceof ColumnWriter.DirectExtractor x) {
            return x;
        }
        return (items, count, cls, sink) -> {
            try {
                for (int i = 0; i < count; i++) {
                    Object item = items.get(i);
                    if (item == null || item.getClass() != cls) {
                        return i;
                    }
                    extract.invokeExact(item, sink, i);
                }
                return count;
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        };
    }

    /** The handle a class defined by {@link #define} holds (called from its static initializer). */
    static MethodHandle classData(MethodHandles.Lookup lookup) {
        try {
            return MethodHandles.classData(lookup, ConstantDescs.DEFAULT_NAME, MethodHandle.class);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A new instance of a hidden class with the template's bytes and {@code handle} as class data, or null. */
    private static Object define(byte[] template, MethodHandle handle) {
        if (template == null) {
            return null;
        }
        try {
            MethodHandles.Lookup hidden = LOOKUP.defineHiddenClassWithClassData(template, handle, true);
            return hidden.findConstructor(hidden.lookupClass(), MethodType.methodType(void.class)).invoke();
        } catch (Throwable e) {
            return null; // a JVM that refuses hidden classes here: the handle is called from a field
        }
    }

    private static byte[] templateBytes(Class<?> template) {
        try (InputStream in = template.getResourceAsStream(template.getSimpleName() + ".class")) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            return null;
        }
    }
}
