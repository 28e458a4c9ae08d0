package serreg.arrow;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.DenseUnionVector;
import org.apache.arrow.vector.complex.LargeListViewVector;
import org.apache.arrow.vector.complex.ListViewVector;
import org.apache.arrow.vector.complex.RunEndEncodedVector;
import org.apache.arrow.vector.complex.UnionVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import serreg.CanonicalFormException;
import serreg.canonical.CanonicalFloats;

/**
 * The canonical nodes and buffers of the Arrow layouts beyond the plain ones (docs/FORMAT.md
 * section 9.5), the Java twin of Python's {@code serializers/pyarrow_canonical_layouts.py}: each
 * rebuilt from its logical values so that equal arrays give equal bytes. Unions (sparse: type ids
 * with each child's slots held by another pushed to null; dense: offsets renumbered per child),
 * run-end encoded arrays (runs split where pushed-down nulls begin or end), binary and string
 * views, list views, and the fixed-width data every layout shares. Children are written back
 * through {@link ArrowCanonical}'s node writer, handed in as a {@link NodeWriter}.
 * Package-private.
 */
final class ArrowCanonicalLayouts {
    private ArrowCanonicalLayouts() {
    }

    /** Writes the node of a child field and those below it (ArrowCanonical's writeNode). */
    @FunctionalInterface
    interface NodeWriter {
        void node(Field field, FieldVector v, String path, CanonicalSlots slots, BitSet parentValid, CanonicalBatch batch);
    }

    /**
     * A union: no validity; sparse: the type ids (the first type code under a null pushed down
     * from a parent) and each child with the slots another child holds pushed to null; dense: the
     * type ids, offsets renumbered 0, 1, ... per child, each child reduced to the slots used.
     */
    static void writeUnion(Field field, FieldVector v, String path, CanonicalSlots slots, BitSet parentValid, CanonicalBatch batch,
            NodeWriter write) {
        ArrowType.Union union = (ArrowType.Union) field.getType();
        List<FieldVector> children = v.getChildrenFromFields();
        List<Field> fields = CanonicalBatch.childFields(field, children.size(), path);
        int[] codes = union.getTypeIds() != null ? union.getTypeIds() : java.util.stream.IntStream.range(0, fields.size()).toArray();
        int[] childOf = new int[128];
        for (int c = 0; c < codes.length; c++) {
            childOf[codes[c]] = c;
        }
        int n = slots.count();
        byte[] ids = new byte[n];
        if (union.getMode() == org.apache.arrow.vector.types.UnionMode.Sparse) {
            UnionVector sparse = CanonicalBatch.as(UnionVector.class, v, path);
            slots.forEach((out, source) -> ids[out] = (byte) sparse.getTypeValue(source));
            if (parentValid != null) {
                for (int i = parentValid.nextClearBit(0); i < n; i = parentValid.nextClearBit(i + 1)) {
                    ids[i] = (byte) codes[0];
                }
            }
            batch.nodes.add(new long[] {n, 0, 1});
            batch.buffers.add(ByteBuffer.wrap(ids));
            for (int c = 0; c < codes.length; c++) {
                BitSet held = new BitSet(n);
                for (int i = 0; i < n; i++) {
                    if (ids[i] == codes[c] && (parentValid == null || parentValid.get(i))) {
                        held.set(i);
                    }
                }
                Field child = fields.get(c);
                write.node(child, children.get(c), path + "." + child.getName(), slots, held, batch);
            }
            return;
        }
        DenseUnionVector dense = CanonicalBatch.as(DenseUnionVector.class, v, path);
        ByteBuffer offsets = ByteBuffer.allocate(Math.multiplyExact(n, 4)).order(ByteOrder.LITTLE_ENDIAN);
        int[] ranks = new int[codes.length];
        CanonicalSlots[] used = new CanonicalSlots[codes.length];
        BitSet[] usedValid = new BitSet[codes.length];
        for (int c = 0; c < codes.length; c++) {
            used[c] = new CanonicalSlots();
            usedValid[c] = new BitSet();
        }
        slots.forEach((out, source) -> {
            byte id = dense.getTypeId(source);
            int c = childOf[id];
            ids[out] = id;
            offsets.putInt(ranks[c]);
            used[c].add(dense.getOffset(source), 1);
            if (parentValid == null || parentValid.get(out)) {
                usedValid[c].set(ranks[c]);
            }
            ranks[c]++;
        });
        batch.nodes.add(new long[] {n, 0, 2});
        batch.buffers.add(ByteBuffer.wrap(ids));
        batch.buffers.add(offsets.flip());
        for (int c = 0; c < codes.length; c++) {
            Field child = fields.get(c);
            write.node(child, children.get(c), path + "." + child.getName(), used[c], parentValid == null ? null : usedValid[c],
                    batch);
        }
    }

    /**
     * Run-end encoded: no buffers; the runs of the node's slots with their ends counted from 0
     * (runs are not merged), split where nulls pushed down from a parent begin or end; the values
     * of those runs in order.
     */
    static void writeRunEnds(Field field, FieldVector v, String path, CanonicalSlots slots, BitSet parentValid, CanonicalBatch batch,
            NodeWriter write) {
        RunEndEncodedVector ree = CanonicalBatch.as(RunEndEncodedVector.class, v, path);
        FieldVector runEnds = ree.getRunEndsVector();
        int width = ((ArrowType.Int) runEnds.getField().getType()).getBitWidth() / 8;
        ArrowBuf endsBuf = runEnds.getDataBuffer();
        int runCount = runEnds.getValueCount();
        java.util.function.IntToLongFunction endAt = k -> width == 2 ? endsBuf.getShort(2L * k)
                : width == 4 ? endsBuf.getInt(4L * k) : endsBuf.getLong(8L * k);
        List<Long> ends = new ArrayList<>();
        List<Integer> runValues = new ArrayList<>();
        long base = 0;
        for (int r = 0; r < slots.runs; r++) {
            long start = slots.starts[r];
            long stop = start + slots.lengths[r];
            int k = 0;
            while (k < runCount && endAt.applyAsLong(k) <= start) {
                k++;
            }
            for (; k < runCount && start < stop; k++) {
                long end = Math.min(endAt.applyAsLong(k), stop);
                ends.add(end - slots.starts[r] + base);
                runValues.add(k);
                start = end;
            }
            base += slots.lengths[r];
        }
        int n = slots.count();
        BitSet valuesValid = null;
        if (parentValid != null && parentValid.cardinality() != n) {
            java.util.TreeSet<Long> split = new java.util.TreeSet<>(ends);
            for (int i = 1; i < n; i++) {
                if (parentValid.get(i) != parentValid.get(i - 1)) {
                    split.add((long) i);
                }
            }
            List<Integer> splitValues = new ArrayList<>();
            valuesValid = new BitSet();
            long previous = 0;
            int run = 0;
            for (long end : split) {
                while (ends.get(run) <= previous) {
                    run++;
                }
                if (parentValid.get((int) previous)) {
                    valuesValid.set(splitValues.size());
                }
                splitValues.add(runValues.get(run));
                previous = end;
            }
            ends = new ArrayList<>(split);
            runValues = splitValues;
        }
        CanonicalSlots values = new CanonicalSlots();
        runValues.forEach(k -> values.add(k, 1));
        ByteBuffer endBytes = ByteBuffer.allocate(Math.multiplyExact(ends.size(), width)).order(ByteOrder.LITTLE_ENDIAN);
        for (long end : ends) {
            if (width == 2) {
                endBytes.putShort((short) end);
            } else if (width == 4) {
                endBytes.putInt((int) end);
            } else {
                endBytes.putLong(end);
            }
        }
        batch.nodes.add(new long[] {n, 0, 0});
        batch.nodes.add(new long[] {ends.size(), 0, 2});
        batch.buffers.add(CanonicalBatch.EMPTY);
        batch.buffers.add(endBytes.flip());
        Field valuesField = CanonicalBatch.childFields(field, 2, path).get(1);
        write.node(valuesField, ree.getValuesVector(), path + ".values", values, valuesValid, batch);
    }

    /** Binary and string views: 16 bytes per slot (inline up to 12 bytes), one data buffer of the longer values. */
    static void views(org.apache.arrow.vector.BaseVariableWidthViewVector v, CanonicalSlots slots, BitSet valid, CanonicalBatch batch) {
        int n = slots.count();
        ByteBuffer views = ByteBuffer.allocate(Math.multiplyExact(n, 16)).order(ByteOrder.LITTLE_ENDIAN);
        java.io.ByteArrayOutputStream data = new java.io.ByteArrayOutputStream();
        slots.forEach((out, source) -> {
            int at = out * 16;
            if (valid != null && !valid.get(out) || v.isNull(source)) {
                return;
            }
            byte[] value = v.get(source);
            views.putInt(at, value.length);
            if (value.length <= 12) {
                views.put(at + 4, value, 0, value.length);
            } else {
                views.put(at + 4, value, 0, 4);
                views.putInt(at + 8, 0);
                views.putInt(at + 12, data.size());
                data.write(value, 0, value.length);
            }
        });
        batch.buffers.add(views);
        batch.buffers.add(ByteBuffer.wrap(data.toByteArray()));
    }

    /**
     * List views: offsets renumbered from 0 in slot order, sizes 0 under nulls, and the child
     * reduced to the slots the valid views cover, in that order.
     */
    static void writeListView(Field field, FieldVector v, String path, CanonicalSlots slots, BitSet valid, CanonicalBatch batch,
            NodeWriter write) {
        int n = slots.count();
        ArrowType type = field.getType();
        int width = type instanceof ArrowType.ListView ? 4 : 8;
        ArrowBuf offsets = v instanceof ListViewVector list ? list.getOffsetBuffer()
                : CanonicalBatch.as(LargeListViewVector.class, v, path).getOffsetBuffer();
        ArrowBuf sizes = v instanceof ListViewVector list ? list.getSizeBuffer()
                : CanonicalBatch.as(LargeListViewVector.class, v, path).getSizeBuffer();
        FieldVector data = (FieldVector) (v instanceof ListViewVector list ? list.getDataVector()
                : CanonicalBatch.as(LargeListViewVector.class, v, path).getDataVector());
        CanonicalSlots kept = new CanonicalSlots();
        ByteBuffer newOffsets = ByteBuffer.allocate(Math.multiplyExact(n, width)).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer newSizes = ByteBuffer.allocate(Math.multiplyExact(n, width)).order(ByteOrder.LITTLE_ENDIAN);
        long[] end = {0};
        slots.forEach((i, j) -> {
            long offset = width == 4 ? offsets.getInt((long) j * 4) : offsets.getLong((long) j * 8);
            long size = width == 4 ? sizes.getInt((long) j * 4) : sizes.getLong((long) j * 8);
            if (valid != null && !valid.get(i)) {
                size = 0;
            }
            kept.add(offset, size);
            if (width == 4) {
                newOffsets.putInt((int) end[0]);
                newSizes.putInt((int) size);
            } else {
                newOffsets.putLong(end[0]);
                newSizes.putLong(size);
            }
            end[0] += size;
        });
        batch.buffers.add(newOffsets.flip());
        batch.buffers.add(newSizes.flip());
        write.node(CanonicalBatch.childFields(field, 1, path).get(0), data, path + "." + SchemaDescription.LIST_ITEM_NAME, kept,
                null, batch);
    }

    /** The bytes of {@code buf} in the given ranges, joined: a view when they are one range. */
    static ByteBuffer gather(ArrowBuf buf, CanonicalSlots ranges) {
        if (ranges.count == 0) {
            return CanonicalBatch.EMPTY;
        }
        if (ranges.runs == 1) {
            return buf.nioBuffer(ranges.starts[0], Math.toIntExact(ranges.lengths[0]));
        }
        byte[] out = new byte[ranges.count()];
        int at = 0;
        for (int r = 0; r < ranges.runs; r++) {
            int length = Math.toIntExact(ranges.lengths[r]);
            buf.getBytes(ranges.starts[r], out, at, length);
            at += length;
        }
        return ByteBuffer.wrap(out);
    }

    /** Exactly length x width bytes, zero in null slots, floats canonical. */
    static ByteBuffer fixedWidth(BaseFixedWidthVector v, ArrowType type, CanonicalSlots slots, BitSet valid, String path) {
        int width = v.getTypeWidth();
        int expected = switch (type.getTypeID()) {
            case Int -> ((ArrowType.Int) type).getBitWidth() / 8;
            case FloatingPoint -> switch (((ArrowType.FloatingPoint) type).getPrecision()) {
                case HALF -> 2;
                case SINGLE -> 4;
                case DOUBLE -> 8;
            };
            case Decimal -> ((ArrowType.Decimal) type).getBitWidth() / 8;
            case Date -> ((ArrowType.Date) type).getUnit() == org.apache.arrow.vector.types.DateUnit.DAY ? 4 : 8;
            case Time -> ((ArrowType.Time) type).getBitWidth() / 8;
            case FixedSizeBinary -> ((ArrowType.FixedSizeBinary) type).getByteWidth();
            case Interval -> {
                if (((ArrowType.Interval) type).getUnit() != org.apache.arrow.vector.types.IntervalUnit.MONTH_DAY_NANO) {
                    // Python cannot hold these (pyarrow has no array class for them): no frame carries them.
                    throw new CanonicalFormException("Arrow field '" + path + "' is an interval of unit "
                            + ((ArrowType.Interval) type).getUnit() + ", which has no canonical form (docs/FORMAT.md,"
                            + " sections 6.4 and 9.5; MONTH_DAY_NANO intervals have one)");
                }
                yield 16;
            }
            default -> 8;  // Timestamp, Duration
        };
        if (width != expected) {
            // Arrow Java 18 holds a 32- or 64-bit decimal in a 128-bit DecimalVector.
            throw new CanonicalFormException("Arrow field '" + path + "' of type " + type + " is held in a "
                    + v.getClass().getSimpleName() + " of " + width + "-byte values, not " + expected);
        }
        int n = slots.count();
        boolean floats = type.getTypeID() == ArrowType.ArrowTypeID.FloatingPoint;
        ArrowBuf data = v.getDataBuffer();
        if (n == 0) {
            return CanonicalBatch.EMPTY;
        }
        if (slots.runs == 1 && valid == null && !(floats && hasNonCanonicalFloat(data, slots.starts[0], n, width))) {
            return data.nioBuffer(slots.starts[0] * width, Math.multiplyExact(n, width));
        }
        ByteBuffer bytes = gather(data, slots.times(width));
        byte[] out = new byte[bytes.remaining()];
        bytes.duplicate().get(out);
        if (floats) {
            CanonicalFloats.normalize(out, width);
        }
        if (valid != null) {
            for (int i = valid.nextClearBit(0); i < n; i = valid.nextClearBit(i + 1)) {
                Arrays.fill(out, i * width, (i + 1) * width, (byte) 0);
            }
        }
        return ByteBuffer.wrap(out);
    }

    private static boolean hasNonCanonicalFloat(ArrowBuf data, long first, int n, int width) {
        for (long i = first; i < first + n; i++) {
            long bits = switch (width) {
                case 2 -> data.getShort(i * 2);
                case 4 -> data.getInt(i * 4);
                default -> data.getLong(i * 8);
            };
            if (!CanonicalFloats.isCanonical(bits, width)) {
                return true;
            }
        }
        return false;
    }
}
