package serreg.structs;

import java.util.List;
import java.util.Set;
import serreg.DeserializationException;
import serreg.InBandWriter;

/**
 * One node of a struct field's type, in the grammar of docs/FORMAT.md section 10.2: an atom
 * ({@code "int32"}, {@code "str"}, {@code "any"} ...), or a constructor ({@code optional},
 * {@code list}, {@code set}, {@code map}, {@code tuple}) with its argument types, or
 * {@code ["struct", classId]}. Compared by value; {@link #widensTo} is the evolution rule of 10.4.
 */
public final class FieldType {
    /** Atoms written as ext 0 values of exactly that class ID. */
    static final Set<String> STANDARD_ATOMS = Set.of("datetime", "date", "time", "timedelta", "decimal", "uuid",
            "numpy.ndarray", "ArrowTable", "ArrowRecordBatch");
    private static final Set<String> ATOMS = Set.of("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
            "uint32", "uint64", "float32", "float64", "str", "bytes", "enum", "any", "datetime", "date", "time",
            "timedelta", "decimal", "uuid", "numpy.ndarray", "ArrowTable", "ArrowRecordBatch");
    /** Types nest at most this deep in a definition read from a frame. */
    static final int MAX_DEPTH = 32;

    final String kind;
    final List<FieldType> args;
    /** The class ID of a {@code struct} type, else null. */
    final String classId;

    private FieldType(String kind, List<FieldType> args, String classId) {
        this.kind = kind;
        this.args = args;
        this.classId = classId;
    }

    static FieldType atom(String kind) {
        return new FieldType(kind, List.of(), null);
    }

    static FieldType of(String kind, FieldType... args) {
        return new FieldType(kind, List.of(args), null);
    }

    static FieldType tuple(List<FieldType> items) {
        return new FieldType("tuple", List.copyOf(items), null);
    }

    static FieldType struct(String classId) {
        return new FieldType("struct", List.of(), classId);
    }

    /** The integer range of an int or uint atom as {low, high} (uint64's high is -1: all 64 bits), else null. */
    static long[] intRange(String kind) {
        return switch (kind) {
            case "int8" -> new long[] {Byte.MIN_VALUE, Byte.MAX_VALUE};
            case "int16" -> new long[] {Short.MIN_VALUE, Short.MAX_VALUE};
            case "int32" -> new long[] {Integer.MIN_VALUE, Integer.MAX_VALUE};
            case "int64" -> new long[] {Long.MIN_VALUE, Long.MAX_VALUE};
            case "uint8" -> new long[] {0, 0xff};
            case "uint16" -> new long[] {0, 0xffff};
            case "uint32" -> new long[] {0, 0xffffffffL};
            case "uint64" -> new long[] {0, -1};
            default -> null;
        };
    }

    /** Whether values of this (the writer's) type read as {@code reader}'s (docs/FORMAT.md 10.4). */
    public boolean widensTo(FieldType reader) {
        if (equals(reader) || reader.kind.equals("any")) {
            return true;
        }
        if (reader.kind.equals("optional")) {
            return (kind.equals("optional") ? args.get(0) : this).widensTo(reader.args.get(0));
        }
        long[] w = intRange(kind);
        long[] r = intRange(reader.kind);
        if (w != null && r != null) {
            boolean wUnsigned = kind.startsWith("u");
            boolean rUnsigned = reader.kind.startsWith("u");
            int wBits = Integer.parseInt(kind.substring(wUnsigned ? 4 : 3));
            int rBits = Integer.parseInt(reader.kind.substring(rUnsigned ? 4 : 3));
            if (wUnsigned == rUnsigned) {
                return rBits >= wBits;
            }
            return wUnsigned && rBits > wBits;
        }
        if (kind.equals("float32") && reader.kind.equals("float64")) {
            return true;
        }
        if (!kind.equals(reader.kind) || args.size() != reader.args.size() || kind.equals("struct")) {
            return false;
        }
        for (int i = 0; i < args.size(); i++) {
            if (!args.get(i).widensTo(reader.args.get(i))) {
                return false;
            }
        }
        return !args.isEmpty();
    }

    /** Writes this type's msgpack form. */
    void write(InBandWriter out) {
        if (ATOMS.contains(kind)) {
            out.writeString(kind);
        } else if (kind.equals("struct")) {
            out.writeArrayHeader(2).writeString("struct").writeString(classId);
        } else if (kind.equals("tuple")) {
            out.writeArrayHeader(2).writeString("tuple").writeArrayHeader(args.size());
            for (FieldType a : args) {
                a.write(out);
            }
        } else {
            out.writeArrayHeader(args.size() + 1).writeString(kind);
            for (FieldType a : args) {
                a.write(out);
            }
        }
    }

    /** The type a decoded msgpack value describes; DeserializationException naming {@code where} otherwise. */
    static FieldType parse(Object wire, String where, int depth) {
        if (depth > MAX_DEPTH) {
            throw new DeserializationException(where + ": field type nested more than " + MAX_DEPTH + " deep");
        }
        if (wire instanceof String s) {
            if (!ATOMS.contains(s)) {
                throw new DeserializationException(where + ": unknown field type '" + s + "'");
            }
            return atom(s);
        }
        if (!(wire instanceof List<?> list) || list.isEmpty() || !(list.get(0) instanceof String kind)) {
            throw new DeserializationException(where + ": a field type must be a str or an array starting with a str");
        }
        switch (kind) {
            case "struct" -> {
                if (list.size() != 2 || !(list.get(1) instanceof String c) || c.isEmpty()) {
                    throw new DeserializationException(where + ": a struct field type is ['struct', class ID]");
                }
                return struct(c);
            }
            case "tuple" -> {
                if (list.size() != 2 || !(list.get(1) instanceof List<?> items)) {
                    throw new DeserializationException(where + ": a tuple field type is ['tuple', [types]]");
                }
                return tuple(items.stream().map(i -> parse(i, where, depth + 1)).toList());
            }
            case "optional", "list", "set", "map" -> {
                int arity = kind.equals("map") ? 2 : 1;
                if (list.size() != arity + 1) {
                    throw new DeserializationException(where + ": a " + kind + " field type has " + arity
                            + " type argument(s), got " + (list.size() - 1));
                }
                return new FieldType(kind, list.subList(1, list.size()).stream().map(i -> parse(i, where, depth + 1))
                        .toList(), null);
            }
            default -> throw new DeserializationException(where + ": unknown field type '" + kind + "'");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FieldType t && t.kind.equals(kind) && t.args.equals(args)
                && java.util.Objects.equals(t.classId, classId);
    }

    @Override
    public int hashCode() {
        return kind.hashCode() * 31 + args.hashCode();
    }

    /** As people read it: {@code list[int32]}, {@code struct example.Point}. */
    @Override
    public String toString() {
        if (kind.equals("struct")) {
            return "struct " + classId;
        }
        if (args.isEmpty() && !kind.equals("tuple")) {
            return kind;
        }
        StringBuilder b = new StringBuilder(kind).append('[');
        for (int i = 0; i < args.size(); i++) {
            b.append(i == 0 ? "" : ", ").append(args.get(i));
        }
        return b.append(']').toString();
    }
}
