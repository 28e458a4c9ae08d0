package serreg.structs;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import serreg.DeserializationException;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.RegistrationException;
import serreg.SerializationException;

/**
 * One registered struct class: its fields (record components, or the non-static non-transient
 * fields of a class with a no-argument constructor), their accessors as method handles looked
 * up once at registration, its definition and the one handle its instances are written with,
 * and per writer definition the one handle its instances are read with (fields matched by name,
 * docs/FORMAT.md section 10.4), both composed by {@link Handles}.
 */
final class StructSchema {
    /**
     * One field: name, Java type and its erasure, the accessor {@code (Object) T} (the field's own
     * type, primitives unboxed), the getter {@code (Object) Object} (boxed) and, for plain
     * classes, the setter {@code (Object, T) void}.
     */
    private record JavaField(String name, Type type, Class<?> raw, MethodHandle accessor, MethodHandle setter) {
        /** The accessor as {@code (Object) Object}, for code that reads fields one value at a time. */
        MethodHandle getter() {
            return accessor.asType(MethodType.methodType(Object.class, Object.class));
        }
    }

    final Class<?> cls;
    final String classId;
    private final StructRegistry registry;
    private final List<JavaField> fields;
    private final boolean record;
    /** Records: the canonical constructor; plain classes: the no-arg constructor (both returning the class). */
    private final MethodHandle constructor;
    /** Set at first use (nested struct types are resolved then): types, definition, writer. */
    private volatile Compiled compiled;
    /** The ext 2 column writer (made at the first list of this class written). */
    private volatile ColumnWriter.ForClass columns;
    /** Per writer definition met, how it is read (at most {@link #PLANS_MAX}; beyond, a plan per table). */
    private final Map<DefinitionKey, ReadPlan> plans = new ConcurrentHashMap<>();
    private static final int PLANS_MAX = 1024;

    /** Types, definition bytes and the instance writer. */
    private record Compiled(FieldType[] types, byte[] definition, CompiledCalls.InstanceWriter writer) {
    }

    /** A definition's bytes as a map key. */
    record DefinitionKey(byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof DefinitionKey k && java.util.Arrays.equals(k.bytes, bytes);
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(bytes);
        }
    }

    StructSchema(Class<?> cls, String classId, StructRegistry registry) {
        this.cls = cls;
        this.classId = classId;
        this.registry = registry;
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        List<JavaField> found = new ArrayList<>();
        try {
            if (cls.isRecord()) {
                record = true;
                RecordComponent[] components = cls.getRecordComponents();
                Class<?>[] types = new Class<?>[components.length];
                for (int i = 0; i < components.length; i++) {
                    RecordComponent c = components[i];
                    types[i] = c.getType();
                    c.getAccessor().setAccessible(true);
                    MethodHandle getter = lookup.unreflect(c.getAccessor());
                    found.add(new JavaField(c.getName(), c.getGenericType(), c.getType(), asObjectGetter(getter), null));
                }
                Constructor<?> canonical = cls.getDeclaredConstructor(types);
                canonical.setAccessible(true);
                constructor = lookup.unreflectConstructor(canonical);
            } else {
                record = false;
                Constructor<?> none = cls.getDeclaredConstructor();
                none.setAccessible(true);
                constructor = lookup.unreflectConstructor(none);
                for (Class<?> c = cls; c != null && c != Object.class; c = c.getSuperclass()) {
                    List<JavaField> level = new ArrayList<>();
                    for (Field f : c.getDeclaredFields()) {
                        int m = f.getModifiers();
                        if (Modifier.isStatic(m) || Modifier.isTransient(m) || f.isSynthetic()) {
                            continue;
                        }
                        if (Modifier.isFinal(m)) {
                            throw new RegistrationException(cls.getName() + "." + f.getName() + " is final; a struct"
                                    + " class is a record, or has non-final fields and a no-argument constructor");
                        }
                        f.setAccessible(true);
                        MethodHandle setter = lookup.unreflectSetter(f);
                        level.add(new JavaField(f.getName(), f.getGenericType(), f.getType(),
                                asObjectGetter(lookup.unreflectGetter(f)),
                                setter.asType(setter.type().changeParameterType(0, Object.class))));
                    }
                    found.addAll(0, level);
                }
            }
        } catch (NoSuchMethodException e) {
            throw new RegistrationException(cls.getName() + " is not a record and has no no-argument constructor;"
                    + " a struct class needs one of the two", e);
        } catch (IllegalAccessException | RuntimeException e) {
            if (e instanceof RegistrationException r) {
                throw r;
            }
            throw new RegistrationException("cannot reach the fields of " + cls.getName() + ": " + e, e);
        }
        this.fields = List.copyOf(found);
        java.util.Set<String> names = new java.util.HashSet<>();
        for (JavaField f : fields) {
            if (!names.add(f.name())) {
                throw new RegistrationException(cls.getName() + " has two fields named " + f.name());
            }
        }
    }

    /** The getter taking any object (cast to the class), returning the field's own type. */
    private static MethodHandle asObjectGetter(MethodHandle h) {
        return h.asType(h.type().changeParameterType(0, Object.class));
    }

    private String where(String field) {
        return classId + "." + field;
    }

    /** Resolves field types (IllegalArgumentException naming the field if one has none). */
    Compiled compile() {
        Compiled c = compiled;
        if (c == null) {
            FieldType[] types = new FieldType[fields.size()];
            List<MethodHandle> writers = new ArrayList<>(fields.size());
            for (int i = 0; i < types.length; i++) {
                JavaField f = fields.get(i);
                types[i] = JavaFieldTypes.typeOf(f.type(), where(f.name()), registry);
                writers.add(Handles.fieldWriter(f.accessor(), f.type(), types[i], where(f.name()), registry));
            }
            byte[] definition = definitionOf(registry.owner(), classId, fieldNames(), List.of(types));
            MethodType write = MethodType.methodType(void.class, InBandWriter.class, Object.class);
            c = new Compiled(types, definition, CompiledCalls.writer(Handles.sequence(writers, write)));
            compiled = c;
        }
        return c;
    }

    /**
     * The packed definition {@code [classId, [[name, type], ...]]}, every msgpack value in its
     * shortest form (so also the canonical bytes of a definition, docs/FORMAT.md section 10.5).
     */
    static byte[] definitionOf(serreg.SerializerRegistry owner, String classId, List<String> names, List<FieldType> types) {
        InBandWriter out = new InBandWriter(owner);
        out.writeArrayHeader(2).writeString(classId).writeArrayHeader(names.size());
        for (int i = 0; i < names.size(); i++) {
            out.writeArrayHeader(2).writeString(names.get(i));
            types.get(i).write(out);
        }
        java.nio.ByteBuffer b = out.finish().inBand();
        byte[] definition = new byte[b.remaining()];
        b.get(definition);
        return definition;
    }

    int fieldCount() {
        return fields.size();
    }

    /** The writer of this class's lists as ext 2 columns (made once). */
    ColumnWriter.ForClass columns() {
        ColumnWriter.ForClass c = columns;
        if (c == null) {
            FieldType[] types;
            try {
                types = compile().types();
            } catch (IllegalArgumentException e) {
                throw new SerializationException(e.getMessage(), e);
            }
            int n = fields.size();
            ColumnLayout.Kind[] kinds = new ColumnLayout.Kind[n];
            String[] wheres = new String[n];
            Conversions.Writer[] writers = new Conversions.Writer[n];
            MethodHandle[] accessors = new MethodHandle[n];
            for (int k = 0; k < n; k++) {
                JavaField f = fields.get(k);
                Class<?> t = f.raw();
                kinds[k] = t == long.class || t == int.class || t == short.class || t == byte.class ? ColumnLayout.Kind.LONG
                        : t == double.class ? ColumnLayout.Kind.DOUBLE : t == float.class ? ColumnLayout.Kind.FLOAT
                        : t == boolean.class ? ColumnLayout.Kind.BOOL : ColumnLayout.Kind.OBJECT;
                wheres[k] = where(f.name());
                accessors[k] = f.accessor();
                if (kinds[k] == ColumnLayout.Kind.OBJECT) {
                    writers[k] = FieldWriters.writer(types[k], f.type(), wheres[k], registry);
                }
            }
            int fixed = ColumnWriter.ForClass.fixedColumns(kinds, types);
            ColumnWriter.DirectExtractor direct = ColumnWriter.ForClass.direct(kinds, types)
                    ? CompiledCalls.directExtractor(ColumnHandles.directExtractor(accessors, kinds, fixed,
                            ColumnWriter.ForClass.streamsStr(kinds, types, fixed)))
                    : null;
            c = new ColumnWriter.ForClass(classId, kinds, types, wheres, writers,
                    direct != null ? null : CompiledCalls.extractor(ColumnHandles.extractor(accessors, kinds)), direct);
            columns = c;
        }
        return c;
    }

    /** The field names, in the definition's order. */
    List<String> fieldNames() {
        return fields.stream().map(JavaField::name).toList();
    }

    /** The field types (resolved now if they were not yet). */
    List<FieldType> fieldTypes() {
        return List.of(compile().types());
    }

    /** The packed definition of this class. */
    byte[] definition() {
        return compile().definition();
    }

    /** The field values of an instance, in the definition's order (primitives boxed). */
    List<Object> valuesOf(Object value) {
        List<Object> out = new ArrayList<>(fields.size());
        for (JavaField f : fields) {
            try {
                out.add((Object) f.getter().invokeExact(value));
            } catch (Throwable t) {
                throw new SerializationException(where(f.name()) + ": reading the field failed: " + t, t);
            }
        }
        return out;
    }

    /** Writes the instance array {@code [index, fields...]} of {@code value}. */
    void write(Object value, InBandWriter out) {
        Compiled c;
        try {
            c = compile();
        } catch (IllegalArgumentException e) {
            throw new SerializationException(e.getMessage(), e);
        }
        out.writeArrayHeader(fields.size() + 1).writeLong(StructFrames.indexOf(c.definition()));
        c.writer().write(out, value); // each field's failure names the struct and the field
    }

    /** How instances written with this definition are read (one at a time: its {@code current()} reader; lists: itself). */
    ReadPlan plan(DefinitionKey definition, List<String> names, List<FieldType> types) {
        ReadPlan plan = plans.get(definition);
        if (plan == null) {
            plan = plan(names, types);
            if (plans.size() < PLANS_MAX) {
                ReadPlan raced = plans.putIfAbsent(definition, plan);
                plan = raced != null ? raced : plan;
            }
        }
        return plan;
    }

    /** Matches the writer's fields to this class's by name (checking that each type widens). */
    private ReadPlan plan(List<String> names, List<FieldType> types) {
        FieldType[] own = compileForReading().types();
        Map<String, Integer> position = new HashMap<>();
        for (int i = 0; i < names.size(); i++) {
            position.put(names.get(i), i);
        }
        int[] slots = new int[fields.size()];
        Object[] missing = new Object[fields.size()];
        ReadPlan.WriterField[] writerFields = new ReadPlan.WriterField[names.size()];
        for (int i = 0; i < fields.size(); i++) {
            JavaField f = fields.get(i);
            Integer slot = position.get(f.name());
            if (slot == null) {
                if (record && f.raw() != Optional.class) {
                    throw new DeserializationException("struct '" + classId + "': the writer's definition has no field '"
                            + f.name() + "' and " + cls.getSimpleName() + "." + f.name() + " has no default (a record"
                            + " component takes Optional.empty() only; a class keeps its constructor's value)");
                }
                slots[i] = -1;
                missing[i] = Optional.empty();
                continue;
            }
            FieldType writer = types.get(slot);
            if (!writer.widensTo(own[i])) {
                throw new DeserializationException("struct '" + classId + "', field '" + f.name() + "': the writer's type is "
                        + writer + ", this reader's is " + own[i] + ", and the one does not widen to the other");
            }
            slots[i] = slot;
            writerFields[slot] = new ReadPlan.WriterField(i, writer, where(f.name()), f.type(), f.raw(), f.setter());
        }
        for (int j = 0; j < writerFields.length; j++) {
            if (writerFields[j] == null) {
                writerFields[j] = new ReadPlan.WriterField(-1, types.get(j), where(names.get(j)), null, null, null);
            }
        }
        return new ReadPlan(classId, cls, registry, record, constructor, writerFields, slots, missing);
    }

    private Compiled compileForReading() {
        try {
            return compile();
        } catch (IllegalArgumentException e) {
            throw new DeserializationException(e.getMessage());
        }
    }
}
