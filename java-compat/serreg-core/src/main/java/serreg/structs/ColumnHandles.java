package serreg.structs;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;

/**
 * The method handles of ext 2 lists (docs/FORMAT.md section 10.3), composed once per class
 * (writing) and per writer definition and reading class (reading), as {@link Handles} composes
 * those of single instances: the extractor that copies an instance's fields into element i of
 * the columns, and the builder that makes an instance from element i of the columns, primitives
 * unboxed both ways. {@link CompiledCalls} loops over them in hidden classes where they are
 * constants ({@link CompiledExtractor}, {@link CompiledBuilder}).
 */
final class ColumnHandles {
    private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();

    private ColumnHandles() {
    }

    /** The array class a column of {@code kind} is held in. */
    static Class<?> columnArray(ColumnLayout.Kind kind) {
        return switch (kind) {
            case LONG -> long[].class;
            case DOUBLE -> double[].class;
            case FLOAT -> float[].class;
            case BOOL -> boolean[].class;
            default -> Object[].class;
        };
    }

    /** {@code (Object[] cols) A}: column {@code j} cast to its array class {@code A}. */
    private static MethodHandle column(int j, Class<?> array) {
        return MethodHandles.insertArguments(MethodHandles.arrayElementGetter(Object[].class), 1, j)
                .asType(MethodType.methodType(array, Object[].class));
    }

    /** {@code (ColumnView cols) A}: column {@code j} cast to its array class {@code A}. */
    private static MethodHandle viewColumn(int j, Class<?> array) {
        try {
            MethodHandle get = j < ColumnView.FIELDS ? LOOKUP.findGetter(ColumnView.class, "c" + j, Object.class)
                    : MethodHandles.filterArguments(column(j, Object.class),
                            0, LOOKUP.findGetter(ColumnView.class, "all", Object[].class));
            return get.asType(MethodType.methodType(array, ColumnView.class));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final MethodHandle NEXT;
    private static final MethodHandle SINK_FLOAT64;
    private static final MethodHandle SINK_FLOAT32;
    private static final MethodHandle SINK_BOOL;
    private static final MethodHandle SINK_STR;
    private static final MethodHandle SINK_COLS;
    private static final MethodHandle NEXT_STR;
    private static final MethodHandle FLOAT64;
    private static final MethodHandle FLOAT32_WIDENED;
    private static final MethodHandle FLOAT32;
    private static final MethodHandle BOOL;

    static {
        try {
            NEXT = LOOKUP.findVirtual(IntCursor.class, "next", MethodType.methodType(long.class));
            NEXT_STR = LOOKUP.findVirtual(StrColumn.class, "next", MethodType.methodType(Object.class, int.class));
            FLOAT64 = LOOKUP.findVirtual(FixedColumn.class, "float64", MethodType.methodType(double.class, int.class));
            FLOAT32_WIDENED = LOOKUP.findVirtual(FixedColumn.class, "float32Widened",
                    MethodType.methodType(double.class, int.class));
            FLOAT32 = LOOKUP.findVirtual(FixedColumn.class, "float32", MethodType.methodType(float.class, int.class));
            BOOL = LOOKUP.findVirtual(FixedColumn.class, "bool", MethodType.methodType(boolean.class, int.class));
            SINK_FLOAT64 = LOOKUP.findVirtual(ColumnSink.class, "float64",
                    MethodType.methodType(void.class, int.class, int.class, double.class));
            SINK_FLOAT32 = LOOKUP.findVirtual(ColumnSink.class, "float32",
                    MethodType.methodType(void.class, int.class, int.class, float.class));
            SINK_BOOL = LOOKUP.findVirtual(ColumnSink.class, "bool",
                    MethodType.methodType(void.class, int.class, int.class, boolean.class));
            SINK_STR = LOOKUP.findVirtual(ColumnSink.class, "str", MethodType.methodType(void.class, int.class, Object.class));
            SINK_COLS = LOOKUP.findGetter(ColumnSink.class, "cols", Object[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * {@code (ColumnView cols, int i) T}: element i of column j (of {@code kind}, wire form
     * {@code wire}) as the reader's type {@code t}; an integer column
     * ({@link ColumnLayout.Kind#LONG}) is an {@link IntCursor} whose next value instance i takes,
     * a float or bool column ({@link ColumnLayout.Kind#DOUBLE}, {@link ColumnLayout.Kind#FLOAT},
     * {@link ColumnLayout.Kind#BOOL}) a {@link FixedColumn} whose value i it reads in place, and a
     * str column taken as it is ({@code str}) a {@link StrColumn} whose next string instance i takes (told i).
     */
    static MethodHandle columnGetter(int j, ColumnLayout.Kind kind, ColumnCodec.Wire wire, Class<?> t, boolean str) {
        MethodType type = MethodType.methodType(t, ColumnView.class, int.class);
        if (str) {
            return MethodHandles.explicitCastArguments(MethodHandles.filterArguments(NEXT_STR, 0, viewColumn(j, StrColumn.class)),
                    type);
        }
        if (kind == ColumnLayout.Kind.LONG) {
            MethodHandle next = MethodHandles.filterArguments(NEXT, 0, viewColumn(j, IntCursor.class));
            return MethodHandles.explicitCastArguments(MethodHandles.dropArguments(next, 1, int.class), type);
        }
        MethodHandle fixed = switch (kind) {
            case DOUBLE -> wire == ColumnCodec.Wire.FLOAT32 ? FLOAT32_WIDENED : FLOAT64;
            case FLOAT -> FLOAT32;
            case BOOL -> BOOL;
            default -> null;
        };
        if (fixed != null) {
            return MethodHandles.explicitCastArguments(
                    MethodHandles.filterArguments(fixed, 0, viewColumn(j, FixedColumn.class)), type);
        }
        Class<?> array = columnArray(kind);
        MethodHandle element = MethodHandles.filterArguments(MethodHandles.arrayElementGetter(array), 0, viewColumn(j, array));
        return MethodHandles.explicitCastArguments(element, type);
    }

    /**
     * {@code (ColumnView cols, int i) Object}: a record built from element i of the columns:
     * component {@code i} from writer field {@code slots[i]} ({@code getters[slots[i]]}), or
     * {@code missing[i]} where the writer has no such field.
     */
    static MethodHandle recordBuilder(MethodHandle constructor, MethodHandle[] getters, int[] slots, Object[] missing) {
        MethodHandle ctor = constructor.asType(constructor.type().changeReturnType(Object.class));
        for (int i = slots.length - 1; i >= 0; i--) {
            if (slots[i] < 0) {
                ctor = MethodHandles.insertArguments(ctor, i, missing[i]);
            }
        }
        int k = ctor.type().parameterCount() - 1;
        int present = k + 1;
        for (int i = slots.length - 1; i >= 0; i--) {
            if (slots[i] >= 0) {
                ctor = MethodHandles.collectArguments(ctor, k, getters[slots[i]]);
                k--;
            }
        }
        int[] reorder = new int[2 * present];
        for (int i = 0; i < present; i++) {
            reorder[2 * i] = 0;
            reorder[2 * i + 1] = 1;
        }
        return MethodHandles.permuteArguments(ctor, MethodType.methodType(Object.class, ColumnView.class, int.class), reorder);
    }

    /**
     * {@code (ColumnView cols, int i) Object}: a plain class's instance made by its no-argument
     * constructor, then each field the reader has set from element i of its column
     * ({@code setters[j]} {@code (Object, T) void}, {@code getters[j]}).
     */
    static MethodHandle classBuilder(MethodHandle constructor, MethodHandle[] getters, MethodHandle[] setters) {
        MethodType step = MethodType.methodType(void.class, Object.class, ColumnView.class, int.class);
        List<MethodHandle> steps = new java.util.ArrayList<>(getters.length);
        for (int j = 0; j < getters.length; j++) {
            if (getters[j] != null) {
                MethodHandle set = setters[j].asType(MethodType.methodType(void.class, Object.class,
                        getters[j].type().returnType()));
                steps.add(MethodHandles.collectArguments(set, 1, getters[j]));
            }
        }
        MethodHandle fill = Handles.sequence(steps, step);
        MethodHandle returnObject = MethodHandles.dropArguments(MethodHandles.identity(Object.class), 1, ColumnView.class,
                int.class);
        MethodHandle fillThenReturn = MethodHandles.foldArguments(returnObject, fill);
        return MethodHandles.foldArguments(fillThenReturn, constructor.asType(MethodType.methodType(Object.class)));
    }

    /**
     * {@code (Object item, Object[] cols, int i) void}: stores each field of {@code item} (its
     * accessor {@code accessors[k]} {@code (Object) T}) as element i of column k (of
     * {@code kinds[k]}: primitives unboxed, other values as they are).
     */
    static MethodHandle extractor(MethodHandle[] accessors, ColumnLayout.Kind[] kinds) {
        MethodType step = MethodType.methodType(void.class, Object.class, Object[].class, int.class);
        List<MethodHandle> steps = new java.util.ArrayList<>(accessors.length);
        for (int k = 0; k < accessors.length; k++) {
            Class<?> array = columnArray(kinds[k]);
            Class<?> element = array.getComponentType();
            MethodHandle set = MethodHandles.arrayElementSetter(array);
            set = MethodHandles.filterArguments(set, 2, accessors[k].asType(MethodType.methodType(element, Object.class)));
            set = MethodHandles.filterArguments(set, 0, column(k, array));
            steps.add(MethodHandles.permuteArguments(set, step, 1, 2, 0));
        }
        return Handles.sequence(steps, step);
    }

    /**
     * {@code (Object item, ColumnSink sink, int i) void}: puts each field of {@code item} (its
     * accessor {@code accessors[k]} {@code (Object) T}) where {@link ColumnSink} takes it: fields
     * {@code 0 .. fixed - 1} (of {@link ColumnLayout.Kind#DOUBLE}, {@link ColumnLayout.Kind#FLOAT},
     * {@link ColumnLayout.Kind#BOOL}, their wire forms {@code float64}, {@code float32}, {@code bool})
     * in place, field {@code fixed} written at once when {@code str}, and the others as element i of
     * their columns in {@link ColumnSink#cols}, as {@link #extractor} stores them.
     */
    static MethodHandle directExtractor(MethodHandle[] accessors, ColumnLayout.Kind[] kinds, int fixed, boolean str) {
        MethodType step = MethodType.methodType(void.class, Object.class, ColumnSink.class, int.class);
        List<MethodHandle> steps = new java.util.ArrayList<>(accessors.length);
        for (int k = 0; k < accessors.length; k++) {
            if (k < fixed) {
                MethodHandle put = switch (kinds[k]) {
                    case DOUBLE -> SINK_FLOAT64;
                    case FLOAT -> SINK_FLOAT32;
                    case BOOL -> SINK_BOOL;
                    default -> throw new IllegalArgumentException("field " + k + " is not of a fixed width: " + kinds[k]);
                };
                Class<?> element = put.type().parameterType(3);
                put = MethodHandles.insertArguments(put, 1, k); // (sink, i, v)
                put = MethodHandles.filterArguments(put, 2, accessors[k].asType(MethodType.methodType(element, Object.class)));
                steps.add(MethodHandles.permuteArguments(put, step, 1, 2, 0));
            } else if (k == fixed && str) {
                MethodHandle put = MethodHandles.insertArguments(SINK_STR, 1, k); // (sink, v)
                put = MethodHandles.filterArguments(put, 1, accessors[k].asType(MethodType.methodType(Object.class, Object.class)));
                put = MethodHandles.dropArguments(put, 2, int.class); // (sink, item, i)
                steps.add(MethodHandles.permuteArguments(put, step, 1, 0, 2));
            } else {
                Class<?> array = columnArray(kinds[k]);
                Class<?> element = array.getComponentType();
                MethodHandle set = MethodHandles.arrayElementSetter(array);
                set = MethodHandles.filterArguments(set, 2, accessors[k].asType(MethodType.methodType(element, Object.class)));
                set = MethodHandles.filterArguments(set, 0, MethodHandles.filterArguments(column(k, array), 0, SINK_COLS));
                steps.add(MethodHandles.permuteArguments(set, step, 1, 2, 0));
            }
        }
        return Handles.sequence(steps, step);
    }
}
