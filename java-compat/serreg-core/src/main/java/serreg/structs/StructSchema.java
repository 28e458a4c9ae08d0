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
 * up once at registration, its definition, and a reader per writer definition (fields matched
 * by name, docs/FORMAT.md section 10.4).
 */
final class StructSchema {
    /**
     * One field: name, Java type, getter (Object to Object), the same getter returning the
     * primitive unboxed (Object to long, double, boolean; null for reference types) and, for
     * plain classes, the setter.
     */
    private record JavaField(String name, Type type, MethodHandle getter, MethodHandle primitive, MethodHandle setter) {
    }

    /** Writes one field of an instance (primitives without boxing). */
    private interface FieldWriter {
        void write(Object obj, InBandWriter out) throws Throwable;
    }

    /**
     * What a writer definition's instance array becomes: per reader field, the array slot it comes
     * from; {@code identity} when the writer's fields are the reader's, in order.
     */
    private record Plan(int count, int[] slots, Conversions.Reader[] readers, boolean identity) {
    }

    final Class<?> cls;
    final String classId;
    private final StructRegistry registry;
    private final List<JavaField> fields;
    private final boolean record;
    /** Records: the canonical constructor, spread over an Object[]; plain classes: the no-arg constructor. */
    private final MethodHandle constructor;
    /** Set at first use (nested struct types are resolved then): types, definition, writers. */
    private volatile Compiled compiled;
    private final Map<DefinitionKey, Plan> plans = new ConcurrentHashMap<>();

    private record Compiled(FieldType[] types, byte[] definition, FieldWriter[] writers) {
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
                    found.add(new JavaField(c.getName(), c.getGenericType(), objectGetter(getter), primitiveGetter(getter), null));
                }
                Constructor<?> canonical = cls.getDeclaredConstructor(types);
                canonical.setAccessible(true);
                constructor = lookup.unreflectConstructor(canonical).asSpreader(Object[].class, types.length)
                        .asType(MethodType.methodType(Object.class, Object[].class));
            } else {
                record = false;
                Constructor<?> none = cls.getDeclaredConstructor();
                none.setAccessible(true);
                constructor = lookup.unreflectConstructor(none).asType(MethodType.methodType(Object.class));
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
                        MethodHandle getter = lookup.unreflectGetter(f);
                        level.add(new JavaField(f.getName(), f.getGenericType(), objectGetter(getter), primitiveGetter(getter),
                                lookup.unreflectSetter(f).asType(MethodType.methodType(void.class, Object.class, Object.class))));
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

    private static MethodHandle objectGetter(MethodHandle h) {
        return h.asType(MethodType.methodType(Object.class, Object.class));
    }

    /** The getter as (Object) long / double / boolean for primitive fields (widened), else null. */
    private static MethodHandle primitiveGetter(MethodHandle h) {
        Class<?> t = h.type().returnType();
        if (t == long.class || t == int.class || t == short.class || t == byte.class) {
            return h.asType(MethodType.methodType(long.class, Object.class));
        }
        if (t == double.class || t == float.class) {
            return h.asType(MethodType.methodType(double.class, Object.class));
        }
        if (t == boolean.class) {
            return h.asType(MethodType.methodType(boolean.class, Object.class));
        }
        return null;
    }

    private String where(String field) {
        return classId + "." + field;
    }

    /** Resolves field types (IllegalArgumentException naming the field if one has none). */
    Compiled compile() {
        Compiled c = compiled;
        if (c == null) {
            FieldType[] types = new FieldType[fields.size()];
            FieldWriter[] writers = new FieldWriter[fields.size()];
            for (int i = 0; i < types.length; i++) {
                JavaField f = fields.get(i);
                types[i] = Conversions.typeOf(f.type(), where(f.name()), registry);
                writers[i] = fieldWriter(f, types[i]);
            }
            byte[] definition = definitionOf(registry.owner(), classId, fieldNames(), List.of(types));
            c = new Compiled(types, definition, writers);
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

    private FieldWriter fieldWriter(JavaField f, FieldType type) {
        MethodHandle p = f.primitive();
        if (p != null && p.type().returnType() == long.class) {
            return (obj, out) -> out.writeLong((long) p.invokeExact(obj));
        }
        if (p != null && p.type().returnType() == double.class) {
            return (obj, out) -> out.writeDouble((double) p.invokeExact(obj));
        }
        if (p != null) {
            return (obj, out) -> out.writeBoolean((boolean) p.invokeExact(obj));
        }
        MethodHandle getter = f.getter();
        Conversions.Writer writer = Conversions.writer(type, f.type(), where(f.name()), registry);
        return (obj, out) -> writer.write(out, (Object) getter.invokeExact(obj));
    }

    /** Writes the instance array {@code [index, fields...]} of {@code value}. */
    void write(Object value, InBandWriter out) {
        Compiled c;
        try {
            c = compile();
        } catch (IllegalArgumentException e) {
            throw new SerializationException(e.getMessage(), e);
        }
        int index = StructFrames.indexOf(c.definition());
        FieldWriter[] writers = c.writers();
        out.writeArrayHeader(writers.length + 1).writeLong(index);
        for (int i = 0; i < writers.length; i++) {
            try {
                writers[i].write(value, out);
            } catch (serreg.SerregException e) {
                throw e;
            } catch (Throwable t) {
                throw new SerializationException(where(fields.get(i).name()) + ": writing the field failed: " + t, t);
            }
        }
    }

    /** The reader of instances written with this definition. */
    StructFrames.InstanceReader reader(byte[] definition, List<String> names, List<FieldType> types) {
        Plan plan = plans.computeIfAbsent(new DefinitionKey(definition), k -> plan(names, types));
        return in -> build(plan, in);
    }

    private Plan plan(List<String> names, List<FieldType> types) {
        FieldType[] own = compileForReading().types();
        Map<String, Integer> position = new HashMap<>();
        for (int i = 0; i < names.size(); i++) {
            position.put(names.get(i), i + 1);
        }
        int[] slots = new int[fields.size()];
        Conversions.Reader[] readers = new Conversions.Reader[fields.size()];
        for (int i = 0; i < fields.size(); i++) {
            JavaField f = fields.get(i);
            Integer slot = position.get(f.name());
            if (slot == null) {
                if (record && raw(f) != Optional.class) {
                    throw new DeserializationException("struct '" + classId + "': the writer's definition has no field '"
                            + f.name() + "' and " + cls.getSimpleName() + "." + f.name() + " has no default (a record"
                            + " component takes Optional.empty() only; a class keeps its constructor's value)");
                }
                slots[i] = 0;
                continue;
            }
            FieldType writer = types.get(slot - 1);
            if (!writer.widensTo(own[i])) {
                throw new DeserializationException("struct '" + classId + "', field '" + f.name() + "': the writer's type is "
                        + writer + ", this reader's is " + own[i] + ", and the one does not widen to the other");
            }
            slots[i] = slot;
            readers[i] = Conversions.reader(writer, f.type(), where(f.name()), registry);
        }
        boolean identity = names.size() == fields.size();
        for (int i = 0; identity && i < slots.length; i++) {
            identity = slots[i] == i + 1;
        }
        return new Plan(names.size() + 1, slots, readers, identity);
    }

    private static Class<?> raw(JavaField f) {
        return Conversions.raw(f.type());
    }

    private Compiled compileForReading() {
        try {
            return compile();
        } catch (IllegalArgumentException e) {
            throw new DeserializationException(e.getMessage());
        }
    }

    private Object build(Plan plan, InBandReader in) {
        if (record && plan.identity()) {
            Conversions.Reader[] readers = plan.readers();
            Object[] args = new Object[readers.length];
            for (int i = 0; i < args.length; i++) {
                args[i] = readers[i].read(in.readValue());
            }
            try {
                return constructor.invokeExact(args);
            } catch (Throwable t) {
                throw new DeserializationException("struct '" + classId + "': building a " + cls.getSimpleName()
                        + " failed: " + t);
            }
        }
        int count = plan.count();
        Object[] items = new Object[count];
        for (int i = 1; i < count; i++) {
            items[i] = in.readValue();
        }
        try {
            if (record) {
                Object[] args = new Object[fields.size()];
                for (int i = 0; i < args.length; i++) {
                    int slot = plan.slots()[i];
                    args[i] = slot == 0 ? Optional.empty() : plan.readers()[i].read(items[slot]);
                }
                return constructor.invokeExact(args);
            }
            Object obj = constructor.invokeExact();
            for (int i = 0; i < fields.size(); i++) {
                int slot = plan.slots()[i];
                if (slot != 0) {
                    fields.get(i).setter().invokeExact(obj, plan.readers()[i].read(items[slot]));
                }
            }
            return obj;
        } catch (DeserializationException e) {
            throw e;
        } catch (Throwable t) {
            throw new DeserializationException("struct '" + classId + "': building a " + cls.getSimpleName() + " failed: " + t);
        }
    }

}
