package serreg.structs;

import java.lang.reflect.Array;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import serreg.SerializationException;
import serreg.types.UInt16;
import serreg.types.UInt32;
import serreg.types.UInt64;
import serreg.types.UInt8;

/**
 * A field value checked against its field's type before it is written: the scalars the column
 * writer stores unboxed, the items of a list-like value, and the refusal that names the field,
 * the value and the type.
 */
final class FieldValues {
    private FieldValues() {
    }

    /** An integer field value as the long (uint64: the bits) an integer column holds; refused outside {@code t}. */
    static long intValue(Object v, FieldType t, String where) {
        long bits = longOf(v, t.kind, where, t);
        if (!t.kind.equals("uint64")) {
            long[] range = FieldType.intRange(t.kind);
            if (bits < range[0] || bits > range[1]) {
                throw bad(where, t, v);
            }
        }
        return bits;
    }

    /** A {@code float64} field value (a Double). */
    static double float64Value(Object v, FieldType t, String where) {
        if (!(v instanceof Double d)) {
            throw bad(where, t, v);
        }
        return d;
    }

    /** A {@code float32} field value: a Float, or a Double that is a binary32 value (or a NaN). */
    static float float32Value(Object v, FieldType t, String where) {
        if (v instanceof Float f) {
            return f;
        }
        if (v instanceof Double d && (Double.isNaN(d) || (double) (float) (double) d == d)) {
            return (float) (double) d;
        }
        throw bad(where, t, v);
    }

    /** A {@code bool} field value. */
    static boolean boolValue(Object v, FieldType t, String where) {
        return cast(v, Boolean.class, where, t);
    }

    static long longOf(Object v, String kind, String where, FieldType t) {
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            long l = ((Number) v).longValue();
            if (kind.equals("uint64") && l < 0) {
                throw bad(where, t, v);
            }
            return l;
        }
        if (v instanceof UInt8 u) {
            return u.value();
        }
        if (v instanceof UInt16 u) {
            return u.value();
        }
        if (v instanceof UInt32 u) {
            return u.value();
        }
        if (v instanceof UInt64 u && kind.equals("uint64")) {
            return u.bits();
        }
        if (v instanceof BigInteger b && kind.equals("uint64") && b.signum() >= 0 && b.bitLength() <= 64) {
            return b.longValue();
        }
        throw bad(where, t, v);
    }

    static List<?> itemsOf(Object v, String where, FieldType t) {
        if (v instanceof List<?> l) {
            return l;
        }
        if (v instanceof Collection<?> c) {
            return new ArrayList<>(c);
        }
        if (v instanceof serreg.types.Tuple tuple) {
            return tuple.items();
        }
        if (v instanceof serreg.types.FrozenSet f) {
            return new ArrayList<>(f.items());
        }
        if (v != null && v.getClass().isArray()) {
            int n = Array.getLength(v);
            List<Object> items = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                items.add(Array.get(v, i));
            }
            return items;
        }
        throw bad(where, t, v);
    }

    static <T> T cast(Object v, Class<T> c, String where, FieldType t) {
        if (!c.isInstance(v)) {
            throw bad(where, t, v);
        }
        return c.cast(v);
    }

    static SerializationException bad(String where, FieldType t, Object v) {
        return new SerializationException(where + ": " + show(v) + " does not fit the field's type " + t);
    }

    /**
     * A value for a message, in time linear in its size: its class and its text up to 60 characters.
     * A big int's decimal digits cost time quadratic in its length (a hostile 100 KB int in an int
     * field took the reader 1.4 s to name), so a big one is named by its bit length; a collection,
     * map or array whose text would hold its items (big ints among them) by its size.
     */
    static String show(Object v) {
        if (v == null) {
            return "null";
        }
        String s;
        if (v instanceof byte[] b) {
            s = "byte[" + b.length + "]";
        } else if (v instanceof BigInteger b && b.bitLength() > SHOWN_BITS) {
            s = "of " + b.bitLength() + " bits";
        } else if (v instanceof Collection<?> c) {
            s = "of " + c.size() + " items";
        } else if (v instanceof java.util.Map<?, ?> m) {
            s = "of " + m.size() + " entries";
        } else if (v.getClass().isArray()) {
            s = "of " + Array.getLength(v) + " items";
        } else if (v instanceof Number || v instanceof Boolean || v instanceof CharSequence || v instanceof Character
                || v instanceof Enum<?>) {
            s = String.valueOf(v);
        } else {
            s = "(" + v.getClass().getName() + ")";
        }
        return v.getClass().getSimpleName() + " " + (s.length() > 60 ? s.substring(0, 60) + "..." : s);
    }

    /** Big ints up to this many bits are shown in decimal (60 digits hold about 199 bits). */
    private static final int SHOWN_BITS = 192;
}
