package serreg.structs;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Type;
import java.util.List;
import serreg.DeserializationException;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.SerializationException;
import serreg.SerregException;

/**
 * The method handles a struct class is written and read with, composed once per class (writing)
 * and once per writer definition (reading) into one handle each: an instance costs one
 * {@code invokeExact}, inside which the JIT sees every accessor, the constructor and the typed
 * reads and writes as constants (the handle is customized after its first calls). Primitive
 * fields go straight between the accessor and {@code writeLong} / {@code readLong} (and the
 * double and boolean twins) without boxing; other fields go through their {@link Conversions}
 * converter. Every field is read and written in the definition's order, and its failures name
 * the struct and the field. {@link CompiledCalls} calls them from hidden classes where they are
 * constants.
 */
final class Handles {
    private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();
    private static final MethodType WRITE = MethodType.methodType(void.class, InBandWriter.class, Object.class);
    private static final MethodHandle WRITE_LONG;
    private static final MethodHandle WRITE_DOUBLE;
    private static final MethodHandle WRITE_BOOLEAN;
    private static final MethodHandle WRITE_CONVERTED;
    private static final MethodHandle WRITE_FAILED;
    private static final MethodHandle READ_INT;
    private static final MethodHandle READ_FLOAT;
    private static final MethodHandle READ_BOOL;
    private static final MethodHandle READ_STR;
    private static final MethodHandle READ_CONVERTED;
    private static final MethodHandle SKIP;
    private static final MethodHandle BUILD_FAILED;

    static {
        try {
            WRITE_LONG = writerMethod("writeLong", long.class);
            WRITE_DOUBLE = writerMethod("writeDouble", double.class);
            WRITE_BOOLEAN = writerMethod("writeBoolean", boolean.class);
            WRITE_CONVERTED = LOOKUP.findVirtual(Conversions.Writer.class, "write", WRITE);
            WRITE_FAILED = LOOKUP.findStatic(Handles.class, "writeFailed",
                    MethodType.methodType(void.class, String.class, Throwable.class));
            READ_INT = LOOKUP.findStatic(Handles.class, "readInt",
                    MethodType.methodType(long.class, Site.class, InBandReader.class));
            READ_FLOAT = LOOKUP.findStatic(Handles.class, "readFloat",
                    MethodType.methodType(double.class, Site.class, InBandReader.class));
            READ_BOOL = LOOKUP.findStatic(Handles.class, "readBool",
                    MethodType.methodType(boolean.class, Site.class, InBandReader.class));
            READ_STR = LOOKUP.findStatic(Handles.class, "readStr",
                    MethodType.methodType(String.class, Site.class, InBandReader.class));
            READ_CONVERTED = LOOKUP.findStatic(Handles.class, "readConverted",
                    MethodType.methodType(Object.class, Conversions.Reader.class, InBandReader.class));
            BUILD_FAILED = LOOKUP.findStatic(Handles.class, "buildFailed",
                    MethodType.methodType(Object.class, String.class, Throwable.class));
            SKIP = LOOKUP.unreflect(InBandReader.class.getMethod("readValue"))
                    .asType(MethodType.methodType(void.class, InBandReader.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private Handles() {
    }

    private static MethodHandle writerMethod(String name, Class<?> arg) throws ReflectiveOperationException {
        return LOOKUP.unreflect(InBandWriter.class.getMethod(name, arg))
                .asType(MethodType.methodType(void.class, InBandWriter.class, arg));
    }

    /** Where a field is read, and the writer's type (for the errors), with the writer's integer range. */
    record Site(String where, FieldType writer, long low, long high) {
        Site(String where, FieldType writer) {
            this(where, writer, range(writer)[0], range(writer)[1]);
        }

        private static long[] range(FieldType t) {
            long[] r = FieldType.intRange(t.kind);
            return r == null || t.kind.equals("uint64") ? new long[] {Long.MIN_VALUE, Long.MAX_VALUE} : r;
        }

        DeserializationException bad(Object raw, long at) {
            return new DeserializationException(where + ": the frame holds " + FieldValues.show(raw)
                    + " in a field of type " + writer, at);
        }
    }

    // ------------------------------------------------------------------------------ writing

    /**
     * The handle {@code (InBandWriter, Object) void} writing one field of an instance: the
     * accessor {@code getter} (typed on the struct class) and the writer of its type.
     */
    static MethodHandle fieldWriter(MethodHandle getter, Type javaType, FieldType type, String where,
            StructRegistry registry) {
        Class<?> t = getter.type().returnType();
        MethodHandle write;
        if (t == long.class || t == int.class || t == short.class || t == byte.class) {
            write = MethodHandles.filterArguments(WRITE_LONG, 1, getter.asType(MethodType.methodType(long.class, Object.class)));
        } else if (t == double.class || t == float.class) {
            write = MethodHandles.filterArguments(WRITE_DOUBLE, 1,
                    getter.asType(MethodType.methodType(double.class, Object.class)));
        } else if (t == boolean.class) {
            write = MethodHandles.filterArguments(WRITE_BOOLEAN, 1,
                    getter.asType(MethodType.methodType(boolean.class, Object.class)));
        } else {
            MethodHandle convert = WRITE_CONVERTED.bindTo(FieldWriters.writer(type, javaType, where, registry));
            write = MethodHandles.filterArguments(convert, 1, getter.asType(MethodType.methodType(Object.class, Object.class)));
        }
        return MethodHandles.catchException(write, Throwable.class, WRITE_FAILED.bindTo(where));
    }

    private static void writeFailed(String where, Throwable t) {
        if (t instanceof SerregException e) {
            throw e;
        }
        throw new SerializationException(where + ": writing the field failed: " + t, t);
    }

    /** The field writers, in order, as one handle {@code (InBandWriter, Object) void}. */
    static MethodHandle sequence(List<MethodHandle> steps, MethodType type) {
        if (steps.isEmpty()) {
            return MethodHandles.empty(type);
        }
        if (steps.size() == 1) {
            return steps.get(0);
        }
        // Halves, so that the handles nest log2(n) deep rather than n (the JIT inlines only so deep).
        int half = steps.size() / 2;
        MethodHandle first = sequence(steps.subList(0, half), type);
        MethodHandle rest = sequence(steps.subList(half, steps.size()), type);
        return MethodHandles.foldArguments(rest, first);
    }

    // ------------------------------------------------------------------------------ reading

    /**
     * The handle {@code (InBandReader) T} reading one field written with type {@code writer} as
     * the reader's Java type {@code javaType}, whose erasure is {@code t}.
     */
    static MethodHandle fieldReader(FieldType writer, Type javaType, Class<?> t, String where, StructRegistry registry) {
        Site site = new Site(where, writer);
        MethodType type = MethodType.methodType(t, InBandReader.class);
        boolean integral = FieldType.intRange(writer.kind) != null && !writer.kind.equals("uint64");
        // Narrowing a long or a double loses nothing here: the writer's type widens to the reader's.
        if (integral && (t == long.class || t == int.class || t == short.class || t == byte.class)) {
            return MethodHandles.explicitCastArguments(READ_INT.bindTo(site), type);
        }
        if ((writer.kind.equals("float64") || writer.kind.equals("float32")) && (t == double.class || t == float.class)) {
            return MethodHandles.explicitCastArguments(READ_FLOAT.bindTo(site), type);
        }
        if (writer.kind.equals("bool") && t == boolean.class) {
            return READ_BOOL.bindTo(site);
        }
        if (writer.kind.equals("str") && t == String.class) {
            return READ_STR.bindTo(site);
        }
        return READ_CONVERTED.bindTo(FieldReaders.reader(writer, javaType, where, registry)).asType(type);
    }

    /** The handle {@code (InBandReader) void} reading a value the reader has no field for. */
    static MethodHandle skip() {
        return SKIP;
    }

    private static long readInt(Site site, InBandReader in) {
        long at = in.offset();
        long v;
        try {
            v = in.readLong();
        } catch (DeserializationException e) {
            throw site.bad(in.readValue(), at);
        }
        if (v < site.low || v > site.high) {
            throw site.bad(v, at);
        }
        return v;
    }

    private static double readFloat(Site site, InBandReader in) {
        long at = in.offset();
        try {
            return in.readDouble();
        } catch (DeserializationException e) {
            throw site.bad(in.readValue(), at);
        }
    }

    private static boolean readBool(Site site, InBandReader in) {
        long at = in.offset();
        try {
            return in.readBoolean();
        } catch (DeserializationException e) {
            throw site.bad(in.readValue(), at);
        }
    }

    private static String readStr(Site site, InBandReader in) {
        long at = in.offset();
        if (in.tryReadNil()) {
            throw site.bad(null, at);
        }
        try {
            return in.readString();
        } catch (DeserializationException e) {
            if (in.offset() != at) {
                throw e; // a str that is not UTF-8: the reader's own error says so
            }
            throw site.bad(in.readValue(), at);
        }
    }

    private static Object readConverted(Conversions.Reader reader, InBandReader in) {
        return reader.read(in.readValue());
    }

    /**
     * The reader of a record's instances as one handle {@code (InBandReader) Object}: the
     * writer's fields read in the writer's order ({@code readers[j]}, or skipped when null), then
     * the canonical constructor called with component {@code i} from writer field
     * {@code slots[i]} ({@code -1}: {@code missing[i]}).
     */
    static MethodHandle recordReader(MethodHandle constructor, MethodHandle[] readers, int[] slots, Object[] missing) {
        MethodHandle ctor = constructor.asType(constructor.type().changeReturnType(Object.class));
        // Constants for the components the writer lacks, then the rest taken from the values read.
        for (int i = slots.length - 1; i >= 0; i--) {
            if (slots[i] < 0) {
                ctor = MethodHandles.insertArguments(ctor, i, missing[i]);
            }
        }
        int[] order = new int[readers.length]; // writer field -> position among the values read
        int read = 0;
        for (int j = 0; j < readers.length; j++) {
            order[j] = readers[j] == null ? -1 : read++;
        }
        Class<?>[] readTypes = new Class<?>[read];
        for (int j = 0; j < readers.length; j++) {
            if (readers[j] != null) {
                readTypes[order[j]] = readers[j].type().returnType();
            }
        }
        int[] reorder = new int[ctor.type().parameterCount()];
        int k = 0;
        for (int slot : slots) {
            if (slot >= 0) {
                reorder[k++] = order[slot];
            }
        }
        MethodType valuesFirst = MethodType.methodType(Object.class, readTypes).appendParameterTypes(InBandReader.class);
        MethodHandle h = MethodHandles.permuteArguments(MethodHandles.dropArguments(ctor, ctor.type().parameterCount(),
                InBandReader.class), valuesFirst, append(reorder, read));
        // From the last writer field to the first: read field j, then go on with it among the values.
        for (int j = readers.length - 1; j >= 0; j--) {
            h = MethodHandles.foldArguments(h, countRead(readers, j), readers[j] == null ? SKIP : readers[j]);
        }
        return h;
    }

    /**
     * {@code read} with its failures other than serreg's own (a constructor that throws) refused
     * as a DeserializationException that begins with {@code what}.
     */
    static MethodHandle refusingFailures(MethodHandle read, String what) {
        return MethodHandles.catchException(read, Throwable.class, BUILD_FAILED.bindTo(what));
    }

    private static Object buildFailed(String what, Throwable t) {
        if (t instanceof SerregException e) {
            throw e;
        }
        throw new DeserializationException(what + t);
    }

    private static int countRead(MethodHandle[] readers, int upTo) {
        int n = 0;
        for (int j = 0; j < upTo; j++) {
            n += readers[j] == null ? 0 : 1;
        }
        return n;
    }

    private static int[] append(int[] reorder, int last) {
        int[] out = java.util.Arrays.copyOf(reorder, reorder.length + 1);
        out[reorder.length] = last;
        return out;
    }

    /**
     * The reader of a plain class's instances as one handle {@code (InBandReader) Object}: the
     * no-argument constructor, then each writer field read in order and set
     * ({@code setters[j]} of type {@code (Object, T) void}, with {@code readers[j]}), or skipped.
     */
    static MethodHandle classReader(MethodHandle constructor, MethodHandle[] readers, MethodHandle[] setters) {
        MethodType step = MethodType.methodType(void.class, Object.class, InBandReader.class);
        List<MethodHandle> steps = new java.util.ArrayList<>(readers.length);
        for (int j = 0; j < readers.length; j++) {
            if (readers[j] == null) {
                steps.add(MethodHandles.dropArguments(SKIP, 0, Object.class));
            } else {
                steps.add(MethodHandles.filterArguments(setters[j].asType(
                        MethodType.methodType(void.class, Object.class, readers[j].type().returnType())), 1, readers[j]));
            }
        }
        MethodHandle fill = sequence(steps, step);
        MethodHandle returnObject = MethodHandles.dropArguments(MethodHandles.identity(Object.class), 1, InBandReader.class);
        MethodHandle fillThenReturn = MethodHandles.foldArguments(returnObject, fill);
        return MethodHandles.foldArguments(fillThenReturn,
                constructor.asType(MethodType.methodType(Object.class)));
    }
}
