package serreg.structs;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.lang.reflect.Type;
import serreg.DeserializationException;
import serreg.InBandReader;
import serreg.SerregException;

/**
 * How one struct class reads the instances of one writer definition (docs/FORMAT.md section
 * 10.4), its fields already matched by name and their types checked. It starts by reading each
 * value and converting it ({@link Conversions}, boxed), then building the instance through the
 * spread constructor or the setters; once it has read {@link #PROMOTE} instances it composes the
 * one-handle reader of {@link Handles} (primitives unboxed, in a hidden class of its own) and
 * hands that to the tables read after. A definition met once, in a frame from anyone, so costs
 * no handle composition and no class.
 */
final class ReadPlan implements DecodeScope.InstanceReader, DecodeScope.ListReader {
    /** Instances read before the composed reader is made. */
    static final int PROMOTE = 1024;

    /** One of the writer's fields: where it goes (a reader field, or -1: skipped) and how it reads. */
    record WriterField(int target, FieldType type, String where, Type javaType, Class<?> raw, MethodHandle setter) {
    }

    private final String failure;
    private final StructRegistry registry;
    private final boolean record;
    private final MethodHandle constructor;
    private final WriterField[] writerFields;
    /** Per reader field: the writer field it comes from, or -1 (then {@code missing[i]}, records only). */
    private final int[] slots;
    private final Object[] missing;
    private final Conversions.Reader[] convert;
    /** Records: the canonical constructor spread over an Object[]; plain classes: the no-argument one. */
    private final MethodHandle build;
    private final MethodHandle[] setters;
    private int uses;
    private volatile DecodeScope.InstanceReader composed;
    /** How ext 2 columns are decoded for this reader; the composed builder of instances from them (once made). */
    private final ColumnLayout columns;
    private int columnUses;
    private volatile ColumnBuilder builder;

    /**
     * Builds {@code count} instances from decoded columns, adding them to {@code out} (what
     * {@link #composeBuilder} makes): straight into the list the reader returns, with no array
     * of instances between (which cost an allocation of 4 bytes per instance and a copy per list).
     */
    interface ColumnBuilder {
        void buildAll(Object[] cols, int count, java.util.ArrayList<Object> out);
    }

    ReadPlan(String classId, Class<?> cls, StructRegistry registry, boolean record, MethodHandle constructor,
            WriterField[] writerFields, int[] slots, Object[] missing) {
        this.failure = "struct '" + classId + "': building a " + cls.getSimpleName() + " failed: ";
        this.registry = registry;
        this.record = record;
        this.constructor = constructor;
        this.writerFields = writerFields;
        this.slots = slots;
        this.missing = missing;
        this.convert = new Conversions.Reader[writerFields.length];
        this.setters = new MethodHandle[writerFields.length];
        for (int j = 0; j < writerFields.length; j++) {
            WriterField w = writerFields[j];
            if (w.target() >= 0) {
                convert[j] = FieldReaders.reader(w.type(), w.javaType(), w.where(), registry);
                if (!record) {
                    setters[j] = w.setter().asType(MethodType.methodType(void.class, Object.class, Object.class));
                }
            }
        }
        FieldType[] wireTypes = new FieldType[writerFields.length];
        String[] wheres = new String[writerFields.length];
        Class<?>[] raws = new Class<?>[writerFields.length];
        for (int j = 0; j < writerFields.length; j++) {
            wireTypes[j] = writerFields[j].type();
            wheres[j] = writerFields[j].where();
            raws[j] = writerFields[j].raw();
        }
        this.columns = new ColumnLayout(wireTypes, wheres, raws, convert);
        this.build = record ? constructor.asSpreader(Object[].class, slots.length)
                .asType(MethodType.methodType(Object.class, Object[].class))
                : constructor.asType(MethodType.methodType(Object.class));
    }

    /** The reader a table read now should use: the composed one once there is one, else this plan. */
    DecodeScope.InstanceReader current() {
        DecodeScope.InstanceReader c = composed;
        return c != null ? c : this;
    }

    @Override
    public Object read(InBandReader in) {
        if (composed == null && ++uses >= PROMOTE) {
            compose();
        }
        Object[] values = new Object[writerFields.length];
        for (int j = 0; j < values.length; j++) {
            Object raw = in.readValue();
            values[j] = convert[j] == null ? null : convert[j].read(raw);
        }
        return build(values);
    }

    @Override
    public java.util.List<Object> read(InBandReader in, int count) {
        ColumnArrays arrays = ColumnArrays.take(writerFields.length);
        try {
            ColumnBuilder b = builder;
            if (b == null) {
                columnUses += count;
                if (columnUses >= PROMOTE) {
                    b = composeBuilder();
                }
            }
            columns.decode(in, count, arrays, b != null);
            Object[] cols = arrays.columns();
            if (b != null) {
                java.util.ArrayList<Object> items = new java.util.ArrayList<>(count);
                b.buildAll(cols, count, items);
                ColumnLayout.finish(cols, writerFields.length, count);
                return items;
            }
            java.util.List<Object> out = new java.util.ArrayList<>(count);
            Object[] values = new Object[writerFields.length];
            for (int i = 0; i < count; i++) {
                for (int j = 0; j < values.length; j++) {
                    values[j] = columns.value(cols, j, i);
                }
                out.add(build(values));
            }
            return out;
        } finally {
            arrays.giveBack();
        }
    }

    /** An instance from its writer-ordered field values (null: a field the reader lacks). */
    private Object build(Object[] values) {
        try {
            if (record) {
                Object[] args = new Object[slots.length];
                for (int i = 0; i < args.length; i++) {
                    args[i] = slots[i] < 0 ? missing[i] : values[slots[i]];
                }
                return (Object) build.invokeExact(args);
            }
            Object obj = (Object) build.invokeExact();
            for (int j = 0; j < values.length; j++) {
                if (setters[j] != null) {
                    setters[j].invokeExact(obj, values[j]);
                }
            }
            return obj;
        } catch (SerregException e) {
            throw e;
        } catch (Throwable t) {
            throw new DeserializationException(failure + t);
        }
    }

    private synchronized ColumnBuilder composeBuilder() {
        if (builder != null) {
            return builder;
        }
        MethodHandle[] getters = new MethodHandle[writerFields.length];
        MethodHandle[] typedSetters = new MethodHandle[writerFields.length];
        for (int j = 0; j < getters.length; j++) {
            WriterField w = writerFields[j];
            if (w.target() >= 0) {
                getters[j] = ColumnHandles.columnGetter(j, columns.kinds[j], ColumnCodec.wireOf(w.type()), w.raw(),
                        columns.strColumn(j));
                typedSetters[j] = w.setter();
            }
        }
        MethodHandle one = record ? ColumnHandles.recordBuilder(constructor, getters, slots, missing)
                : ColumnHandles.classBuilder(constructor, getters, typedSetters);
        ColumnBuilder b = CompiledCalls.builder(Handles.refusingFailures(one, failure));
        builder = b;
        return b;
    }

    private synchronized void compose() {
        if (composed != null) {
            return;
        }
        MethodHandle[] readers = new MethodHandle[writerFields.length];
        MethodHandle[] typedSetters = new MethodHandle[writerFields.length];
        for (int j = 0; j < readers.length; j++) {
            WriterField w = writerFields[j];
            if (w.target() >= 0) {
                readers[j] = Handles.fieldReader(w.type(), w.javaType(), w.raw(), w.where(), registry);
                typedSetters[j] = w.setter();
            }
        }
        MethodHandle read = record ? Handles.recordReader(constructor, readers, slots, missing)
                : Handles.classReader(constructor, readers, typedSetters);
        composed = CompiledCalls.reader(Handles.refusingFailures(read, failure));
    }
}
