package serreg.types;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A numpy dtype as docs/FORMAT.md section 6.2.1 describes it (twin of Python's
 * {@code serreg/serializers/numpy_dtype.py}).
 *
 * <p>A plain dtype is numpy's array-interface string: byte order ({@code '<'}, {@code '>'} or
 * {@code '|'}), kind and size: {@code |b1}, {@code <i4}, {@code >f8}, {@code <c16}; datetime64
 * and timedelta64 with their unit ({@code <M8[ns]}, {@code >m8[25s]}, or {@code <M8} without
 * one): 8-byte counts of {@link #unitCount()} x {@link #unit()} since 1970-01-01T00:00 (or as a
 * duration), {@link Long#MIN_VALUE} being NaT; {@code |S5} bytes, {@code <U3} UCS-4 text (4
 * bytes a character) and {@code |V8} raw bytes.
 *
 * <p>A structured dtype is a record: {@link #fields()} at byte offsets inside an item of
 * {@link #itemSize()} bytes, each with its own dtype (plain or structured) and sub-array shape;
 * bytes no field covers are padding. Fields never overlap.
 */
public final class DType {
    /** Structured dtypes nest at most this deep. */
    public static final int MAX_NESTING = 32;
    /** The largest item, in bytes. */
    public static final int MAX_ITEMSIZE = Integer.MAX_VALUE;

    private static final Set<String> NUMBERS = Set.of("i2", "i4", "i8", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16");
    private static final Pattern TIME = Pattern.compile(
            "[<>]([Mm])8(?:\\[([1-9][0-9]{0,8})?(Y|M|W|D|h|m|s|ms|us|ns|ps|fs|as)\\])?");
    private static final Pattern SIZED = Pattern.compile("(\\|S|[<>]U|\\|V)([1-9][0-9]{0,8})");

    /**
     * One field of a structured dtype.
     *
     * @param name the field's name (non-empty, unique in its dtype)
     * @param title numpy's optional second name for the field, or null
     * @param offset where the field starts inside an item, in bytes
     * @param dtype the dtype of its elements
     * @param shape the field's sub-array shape (empty: one element)
     */
    public record Field(String name, String title, int offset, DType dtype, long[] shape) {
        public Field {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(dtype, "dtype");
            shape = shape.clone();
        }

        @Override
        public long[] shape() {
            return shape.clone();
        }

        /** The field's bytes in one item: the element size times the sub-array's element count. */
        public long size() {
            return Math.multiplyExact(dtype.itemSize(), NDArray.elementCount(shape));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Field f && f.name.equals(name) && Objects.equals(f.title, title) && f.offset == offset
                    && f.dtype.equals(dtype) && Arrays.equals(f.shape, shape);
        }

        @Override
        public int hashCode() {
            return Objects.hash(name, title, offset, dtype, Arrays.hashCode(shape));
        }

        @Override
        public String toString() {
            return "[" + quote(name) + ", " + offset + ", " + dtype + ", " + Arrays.toString(shape) + ", "
                    + (title == null ? "nil" : quote(title)) + "]";
        }
    }

    /** One plain part of an item: {@code count} consecutive elements of {@code dtype} at {@code offset}. */
    public record Leaf(int offset, DType dtype, int count) {
    }

    private final String str;
    private final char kind;
    private final int itemSize;
    private final String unit;
    private final int unitCount;
    private final List<Field> fields;
    private final boolean aligned;

    private DType(String str, char kind, int itemSize, String unit, int unitCount, List<Field> fields, boolean aligned) {
        this.str = str;
        this.kind = kind;
        this.itemSize = itemSize;
        this.unit = unit;
        this.unitCount = unitCount;
        this.fields = fields;
        this.aligned = aligned;
    }

    /** The plain dtype of an array-interface string; IllegalArgumentException if section 6.2.1 has no such dtype. */
    public static DType of(String str) {
        if (str == null || str.length() < 3) {
            throw new IllegalArgumentException("invalid dtype " + str);
        }
        char order = str.charAt(0);
        String rest = str.substring(1);
        if (NUMBERS.contains(rest) && (order == '<' || order == '>')
                || (rest.equals("b1") || rest.equals("i1") || rest.equals("u1")) && order == '|') {
            return new DType(str, rest.charAt(0), Integer.parseInt(rest.substring(1)), null, 0, List.of(), false);
        }
        Matcher time = TIME.matcher(str);
        if (time.matches()) {
            String u = time.group(3) == null ? "" : time.group(3);
            int count = time.group(2) == null ? 1 : Integer.parseInt(time.group(2));
            if (time.group(2) != null && count == 1) {
                throw new IllegalArgumentException("dtype '" + str + "': numpy writes a unit count of 1 without the count");
            }
            return new DType(str, time.group(1).charAt(0), 8, u, count, List.of(), false);
        }
        Matcher sized = SIZED.matcher(str);
        if (sized.matches()) {
            long n = Long.parseLong(sized.group(2));
            char k = str.charAt(1);
            long size = k == 'U' ? 4 * n : n;
            if (size > MAX_ITEMSIZE) {
                throw new IllegalArgumentException("dtype '" + str + "' has items larger than " + MAX_ITEMSIZE + " bytes");
            }
            return new DType(str, k, (int) size, null, 0, List.of(), false);
        }
        throw new IllegalArgumentException("unsupported dtype '" + str + "' (docs/FORMAT.md section 6.2.1: |b1 |i1 |u1,"
                + " <,> with i2 i4 i8 u2 u4 u8 f2 f4 f8 c8 c16, M8[unit], m8[unit], U<n>; |S<n>, |V<n>; or a structured dtype)");
    }

    /**
     * A structured dtype; IllegalArgumentException unless the fields are named uniquely (names and
     * titles together), lie inside the item and do not overlap.
     */
    public static DType structured(int itemSize, List<Field> fields, boolean aligned) {
        if (itemSize < 1) {
            throw new IllegalArgumentException("a structured dtype's item size must be at least 1, not " + itemSize);
        }
        if (fields.isEmpty()) {
            throw new IllegalArgumentException("a structured dtype needs at least one field");
        }
        Set<String> seen = new HashSet<>();
        List<long[]> spans = new ArrayList<>();
        for (Field f : fields) {
            String at = "field '" + f.name() + "'";
            if (f.name().isEmpty() || !seen.add(f.name())) {
                throw new IllegalArgumentException("field name '" + f.name() + "' is empty or repeated");
            }
            if (f.title() != null && (f.title().isEmpty() || !seen.add(f.title()))) {
                throw new IllegalArgumentException(at + ": title '" + f.title() + "' is empty or repeated");
            }
            if (f.offset() < 0 || f.offset() >= itemSize) {
                throw new IllegalArgumentException(at + ": offset " + f.offset() + " is outside the item (" + itemSize + " bytes)");
            }
            if (f.shape().length > 32) {
                throw new IllegalArgumentException(at + ": a sub-array has at most 32 dimensions");
            }
            long size = f.size();
            if (f.offset() + size > itemSize) {
                throw new IllegalArgumentException(at + ": " + size + " bytes at offset " + f.offset()
                        + " run past the item (" + itemSize + " bytes)");
            }
            if (size > 0) {
                spans.add(new long[] {f.offset(), f.offset() + size, spans.size()});
            }
        }
        spans.sort((a, b) -> Long.compare(a[0], b[0]));
        for (int i = 1; i < spans.size(); i++) {
            if (spans.get(i)[0] < spans.get(i - 1)[1]) {
                throw new IllegalArgumentException("fields at offsets " + spans.get(i - 1)[0] + " and " + spans.get(i)[0] + " overlap");
            }
        }
        return new DType(null, 'V', itemSize, null, 0, List.copyOf(fields), aligned);
    }

    /** True for a structured dtype (a record of fields). */
    public boolean isStructured() {
        return str == null;
    }

    /** The kind: b, i, u, f, c, M (datetime64), m (timedelta64), S, U, V (void, structured included). */
    public char kind() {
        return kind;
    }

    /** Bytes per element. */
    public int itemSize() {
        return itemSize;
    }

    /** {@code '<'}, {@code '>'} or {@code '|'} (one-byte kinds, S, V and structured dtypes, whose fields have their own). */
    public char byteOrderChar() {
        return str == null ? '|' : str.charAt(0);
    }

    /** The order of the elements' bytes (little-endian where it does not apply). */
    public ByteOrder byteOrder() {
        return byteOrderChar() == '>' ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
    }

    /** datetime64/timedelta64: the unit ("ns", "D", ...; "" for numpy's generic unit); null for other kinds. */
    public String unit() {
        return unit;
    }

    /** datetime64/timedelta64: how many units one step is (1 unless written, as in {@code M8[25s]}); 0 for other kinds. */
    public int unitCount() {
        return unitCount;
    }

    /** The fields of a structured dtype, in numpy's order; empty for a plain dtype. */
    public List<Field> fields() {
        return fields;
    }

    /** The field named (or titled) {@code name}; IllegalArgumentException if there is none. */
    public Field field(String name) {
        for (Field f : fields) {
            if (f.name().equals(name) || name.equals(f.title())) {
                return f;
            }
        }
        throw new IllegalArgumentException("dtype " + this + " has no field '" + name + "'");
    }

    /** numpy's {@code isalignedstruct} flag of a structured dtype (the offsets are explicit either way). */
    public boolean aligned() {
        return aligned;
    }

    /** The same dtype with every byte order little-endian (section 9.4). */
    public DType littleEndian() {
        if (str != null) {
            return str.charAt(0) == '>' ? of("<" + str.substring(1)) : this;
        }
        List<Field> little = new ArrayList<>();
        for (Field f : fields) {
            little.add(new Field(f.name(), f.title(), f.offset(), f.dtype().littleEndian(), f.shape()));
        }
        return new DType(null, 'V', itemSize, null, 0, List.copyOf(little), aligned);
    }

    /** The plain parts of one item, depth first; a plain dtype is one part. */
    public List<Leaf> leaves() {
        List<Leaf> out = new ArrayList<>();
        addLeaves(0, out);
        return out;
    }

    private void addLeaves(int base, List<Leaf> out) {
        if (str != null) {
            out.add(new Leaf(base, this, 1));
            return;
        }
        for (Field f : fields) {
            int count = Math.toIntExact(NDArray.elementCount(f.shape()));
            if (!f.dtype().isStructured()) {
                out.add(new Leaf(base + f.offset(), f.dtype(), count));
            } else {
                for (int k = 0; k < count; k++) {
                    f.dtype().addLeaves(base + f.offset() + k * f.dtype().itemSize(), out);
                }
            }
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DType d && Objects.equals(d.str, str) && d.itemSize == itemSize && d.fields.equals(fields)
                && d.aligned == aligned;
    }

    @Override
    public int hashCode() {
        return Objects.hash(str, itemSize, fields, aligned);
    }

    /** A plain dtype's string; a structured dtype as its in-band description, {@code [itemsize, [fields], aligned]}. */
    @Override
    public String toString() {
        if (str != null) {
            return str;
        }
        StringBuilder b = new StringBuilder("[").append(itemSize).append(", [");
        for (int i = 0; i < fields.size(); i++) {
            b.append(i == 0 ? "" : ", ").append(fields.get(i));
        }
        return b.append("], ").append(aligned).append("]").toString();
    }

    private static String quote(String s) {
        return "'" + s + "'";
    }
}
