package serreg.canonical;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import serreg.CanonicalFormException;
import serreg.InBandWriter;
import serreg.RemoteException;
import serreg.SerializationResult;
import serreg.Serializer;
import serreg.SerializerRegistry;
import serreg.types.Complex;
import serreg.types.DType;
import serreg.types.FrozenSet;
import serreg.types.MaskedArray;
import serreg.types.NDArray;
import serreg.types.NumpyGenericScalar;
import serreg.types.NumpyScalar;
import serreg.types.OpaqueValue;
import serreg.types.PyByteArray;
import serreg.types.PyMemoryView;
import serreg.types.SpecialDecimal;
import serreg.types.Tuple;
import serreg.types.UInt16;
import serreg.types.UInt32;
import serreg.types.UInt64;
import serreg.types.UInt8;

/**
 * Turns a value into the equal value whose ordinary serialization is its canonical form
 * (docs/FORMAT.md, section 9): maps sorted by their keys' encoded bytes, -0.0 and NaN made
 * canonical, decimals stripped of trailing zeros, arrays packed little-endian in C order,
 * memoryview format aliases unified. Values of other types are written by their serializer's
 * {@link Serializer#serializeCanonical} hook (the Arrow serializers of serreg-arrow have one), so
 * this class names no plug-in; a struct's stand-in comes from the registry's struct support
 * ({@link serreg.StructSupport#canonicalInstance}: a carrier with canonical field values). The
 * value given is never changed.
 */
public final class Canonical {
    /** Values whose ordinary serialization already is one form per value (section 9.3). */
    private static final Set<Class<?>> AS_IS = Set.of(
            Boolean.class, String.class, Long.class, BigInteger.class, byte[].class, PyByteArray.class,
            UUID.class, LocalDate.class, LocalDateTime.class, OffsetDateTime.class, ZonedDateTime.class,
            LocalTime.class, OffsetTime.class, Duration.class, Byte.class, Short.class, Integer.class,
            UInt8.class, UInt16.class, UInt32.class, UInt64.class, RemoteException.class);
    private static final int MAX_NESTING = 511;

    private Canonical() {
    }

    /**
     * The equal value whose ordinary serialization by {@code registry} is the canonical form.
     *
     * @param value any value
     * @param registry the registry the canonical form is written with
     * @return the canonical stand-in (a new value where anything had to change)
     * @throws CanonicalFormException if the value, or a value inside it, has no canonical form
     */
    public static Object of(Object value, SerializerRegistry registry) {
        return of(value, registry, 0);
    }

    private static Object of(Object value, SerializerRegistry registry, int depth) {
        if (depth > MAX_NESTING) {
            throw new CanonicalFormException("value is nested more than " + MAX_NESTING + " levels deep or contains itself");
        }
        if (value == null || AS_IS.contains(value.getClass())) {
            return value;
        }
        if (value instanceof Double d) {
            return CanonicalFloats.canonicalDouble(d);
        }
        if (value instanceof Float f) {
            return CanonicalFloats.canonicalFloat(f);
        }
        if (value instanceof BigDecimal d) {
            return d.signum() == 0 ? BigDecimal.ZERO : d.stripTrailingZeros();
        }
        if (value instanceof SpecialDecimal s) {
            return canonicalSpecial(s);
        }
        if (value instanceof Complex c) {
            return new Complex(CanonicalFloats.canonicalDouble(c.real()), CanonicalFloats.canonicalDouble(c.imag()));
        }
        if (value instanceof NumpyScalar s) {
            return canonicalScalar(s);
        }
        if (value instanceof NDArray a) {
            return canonicalArray(a);
        }
        if (value instanceof NumpyGenericScalar g) {
            return new NumpyGenericScalar(g.name(), canonicalArray(g.value()));
        }
        if (value instanceof MaskedArray m) {
            ByteBuffer fill = m.fillValue() == null ? null
                    : canonicalArray(new NDArray(m.data().descr(), new long[0], 'C', m.fillValue())).data();
            return new MaskedArray(canonicalArray(m.data()), m.mask() == null ? null : canonicalArray(m.mask()), fill, m.hardMask());
        }
        if (value instanceof PyMemoryView m) {
            return canonicalMemoryView(m);
        }
        if (value instanceof Tuple t) {
            return Tuple.copyOf(all(t.items(), registry, depth));
        }
        if (value instanceof FrozenSet s) {
            return FrozenSet.copyOf(all(s.items(), registry, depth));  // the set serializer sorts
        }
        if (value instanceof List<?> l) {
            return new ArrayList<>(all(l, registry, depth));
        }
        if (value instanceof Set<?> s) {
            return new LinkedHashSet<>(all(s, registry, depth));
        }
        if (value instanceof Map<?, ?> m) {
            return sortedMap(m, registry, depth);
        }
        if (value instanceof OpaqueValue o) {
            throw new CanonicalFormException("a " + o.classId() + " value (a Python pickle) has no canonical form: "
                    + "pickle bytes are not unique per value (docs/FORMAT.md, section 9.1)");
        }
        Object struct = registry.structs().canonicalInstance(value, depth, (v, d) -> of(v, registry, d));
        if (struct != null) {
            return struct;
        }
        String classId = registry.getClassId(value.getClass());
        SerializationResult canonical;
        try {
            canonical = canonicalBySerializer(registry.getSerializer(classId), value);
        } catch (CanonicalFormException e) {
            throw new CanonicalFormException("class ID '" + classId + "' (" + value.getClass().getName()
                    + "): " + e.getMessage());
        }
        // The serializer's canonical bytes stand in for the value as an OpaqueValue: the
        // registry writes an OpaqueValue's bytes unchanged.
        return OpaqueValue.of(classId, canonical.inBand(), canonical.outOfBand());
    }

    @SuppressWarnings("unchecked")
    private static <T> SerializationResult canonicalBySerializer(Serializer<T> serializer, Object value) {
        return serializer.serializeCanonical((T) value);
    }

    private static List<Object> all(Collection<?> items, SerializerRegistry registry, int depth) {
        List<Object> out = new ArrayList<>(items.size());
        for (Object item : items) {
            out.add(of(item, registry, depth + 1));
        }
        return out;
    }

    private record Entry(byte[] key, List<ByteBuffer> keyBuffers, Object keyValue, Object value) {
    }

    private static int compareEntries(Entry a, Entry b) {
        int c = Arrays.compareUnsigned(a.key(), b.key());
        for (int i = 0; c == 0 && i < Math.min(a.keyBuffers().size(), b.keyBuffers().size()); i++) {
            c = Arrays.compareUnsigned(bytes(a.keyBuffers().get(i)), bytes(b.keyBuffers().get(i)));
        }
        return c != 0 ? c : Integer.compare(a.keyBuffers().size(), b.keyBuffers().size());
    }

    private static Map<Object, Object> sortedMap(Map<?, ?> map, SerializerRegistry registry, int depth) {
        List<Entry> entries = new ArrayList<>(map.size());
        for (Map.Entry<?, ?> e : map.entrySet()) {
            Object key = of(e.getKey(), registry, depth + 1);
            SerializationResult encoded = new InBandWriter(registry).writeValue(key).finish();
            entries.add(new Entry(bytes(encoded.inBand()), encoded.outOfBand(), key, of(e.getValue(), registry, depth + 1)));
        }
        entries.sort(Canonical::compareEntries);
        Map<Object, Object> out = new LinkedHashMap<>();
        for (int i = 0; i < entries.size(); i++) {
            if (i > 0 && compareEntries(entries.get(i - 1), entries.get(i)) == 0) {
                throw new CanonicalFormException("the map has two keys with the same canonical form (for example two "
                        + "NaN keys); a msgpack map cannot hold both, so merge them");
            }
            out.put(entries.get(i).keyValue(), entries.get(i).value());
        }
        return out;
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }

    private static Object canonicalSpecial(SpecialDecimal s) {
        String text = s.text();
        if (text.contains("sNaN")) {
            return new SpecialDecimal("sNaN");
        }
        if (text.contains("NaN")) {
            return new SpecialDecimal("NaN");
        }
        if (text.startsWith("-") && !text.contains("Inf")) {
            return BigDecimal.ZERO;  // "-0" and its variants: every zero is 0
        }
        return s;
    }

    private static NumpyScalar canonicalScalar(NumpyScalar s) {
        Object v = s.value();
        return switch (s.name()) {
            case "float16" -> NumpyScalar.float16Bits(CanonicalFloats.canonicalHalfBits((Short) v));
            case "float64" -> new NumpyScalar("float64", CanonicalFloats.canonicalDouble((Double) v));
            case "complex64", "complex128" -> {
                Complex c = (Complex) v;
                yield new NumpyScalar(s.name(),
                        new Complex(CanonicalFloats.canonicalDouble(c.real()), CanonicalFloats.canonicalDouble(c.imag())));
            }
            default -> s;
        };
    }

    /**
     * Packed C order, every byte order little-endian, floats and bools canonical, the padding of
     * structured items zero (section 9.4); strides, F order and the read-only flag leave no trace.
     */
    private static NDArray canonicalArray(NDArray array) {
        DType dtype = array.descr();
        int size = dtype.itemSize();
        long[] shape = array.shape();
        long[] strides = array.strides();
        int count = Math.toIntExact(NDArray.elementCount(shape));
        ByteBuffer source = array.data();
        byte[] out = new byte[Math.multiplyExact(count, size)];
        List<DType.Leaf> leaves = dtype.leaves();
        long[] index = new long[shape.length];
        long from = 0;
        for (int e = 0; e < count; e++) {
            int item = e * size;
            for (DType.Leaf leaf : leaves) {
                copyLeaf(source, Math.toIntExact(from) + leaf.offset(), out, item + leaf.offset(), leaf);
            }
            for (int d = shape.length - 1; d >= 0; d--) {
                from += strides[d];
                if (++index[d] < shape[d]) {
                    break;
                }
                from -= strides[d] * shape[d];
                index[d] = 0;
            }
        }
        return new NDArray(dtype.littleEndian(), shape, 'C', ByteBuffer.wrap(out));
    }

    /** Copies one plain part of an item, little-endian and canonical. */
    private static void copyLeaf(ByteBuffer source, int at, byte[] out, int to, DType.Leaf leaf) {
        DType d = leaf.dtype();
        int size = d.itemSize();
        char kind = d.kind();
        boolean swap = d.byteOrderChar() == '>';
        int part = kind == 'c' ? size / 2 : kind == 'U' ? 4 : size;  // byte order is per part of a complex or a character
        int bytes = size * leaf.count();
        for (int b = 0; b < bytes; b++) {
            int within = swap ? (b / part) * part + (part - 1 - b % part) : b;
            out[to + b] = source.get(at + within);
        }
        if (kind == 'f' || kind == 'c') {
            for (int p = 0; p < bytes; p += part) {
                CanonicalFloats.normalize(out, to + p, part);
            }
        } else if (kind == 'b') {
            for (int b = 0; b < bytes; b++) {
                out[to + b] = (byte) (out[to + b] != 0 ? 1 : 0);
            }
        }
    }

    private static PyMemoryView canonicalMemoryView(PyMemoryView view) {
        String format = switch (view.format()) {
            case "l", "n" -> "q";
            case "L", "N", "P" -> "Q";
            default -> view.format();
        };
        byte[] data = bytes(view.data());
        switch (format) {
            case "e" -> CanonicalFloats.normalize(data, 2);
            case "f" -> CanonicalFloats.normalize(data, 4);
            case "d" -> CanonicalFloats.normalize(data, 8);
            default -> { }
        }
        return new PyMemoryView(format, view.shape(), ByteBuffer.wrap(data));
    }
}
