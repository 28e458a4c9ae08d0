package serreg;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import serreg.types.OpaqueValue;
import serreg.wire.FrameWriter;

/**
 * Writes values as in-band sections (ClassIDHash + the serializer's in-band) with their OOB
 * buffers. {@link InBandWriter} asks it for nested values' registrations and bodies (and writes
 * those whose serializer is an {@link InlineSerializer} natively, the rest as ext 0 in place,
 * docs/FORMAT.md section 3), so a value's trip through serialize never goes back through the
 * registry's public face. A {@link MsgpackSerializer}'s body is written by its {@code write} on
 * the caller's writer, with no intermediate array; any other serializer's result is copied in.
 * Structs written anywhere in the value share one table, which the struct support
 * ({@link StructSupport.Table}) puts in front of the section (docs/FORMAT.md section 10.1).
 * Package-private; it knows the registration table, not the writer's internals.
 */
final class ValueEncoder {
    private final RegistrationTable table;
    /** The registry this encoder belongs to (what {@link InBandWriter#registry()} answers). */
    private final SerializerRegistry registry;

    ValueEncoder(RegistrationTable table, SerializerRegistry registry) {
        this.table = table;
        this.registry = registry;
    }

    /** The value's in-band section (starting with its ClassIDHash) and OOB buffers. */
    SerializationResult serialize(Object value) {
        InBandWriter out = InBandWriter.pooled(registry);
        try (StructSupport.Table table = SerializerRegistry.STRUCTS.openTable(null)) {
            writeSection(value, out);
            byte[] wrapped = table.wrap(out.written(), value);
            return wrapped == null ? out.finish() : new SerializationResult(ByteBuffer.wrap(wrapped), out.outOfBand());
        } finally {
            out.release();
        }
    }

    /**
     * The canonical form (docs/FORMAT.md sections 9 and 10.5) of the value {@code standIn} makes:
     * its ordinary serialization, with the struct table sorted by the definitions' bytes. The
     * stand-in is made inside the table (map keys holding structs are sorted by bytes holding
     * their indices); when the definitions were not met in sorted order, it is made and written
     * again with every index fixed in advance.
     */
    SerializationResult serializeCanonical(Supplier<Object> standIn) {
        List<byte[]> met;
        try (StructSupport.Table table = SerializerRegistry.STRUCTS.openTable(null)) {
            Object value = standIn.get();
            SerializationResult result = writeIn(table, value);
            met = table.definitions();
            List<byte[]> sorted = new ArrayList<>(met);
            sorted.sort(Arrays::compareUnsigned);
            if (sorted.equals(met)) {
                return result;
            }
            met = sorted;
        }
        try (StructSupport.Table table = SerializerRegistry.STRUCTS.openTable(met)) {
            return writeIn(table, standIn.get());
        }
    }

    private SerializationResult writeIn(StructSupport.Table table, Object value) {
        InBandWriter out = InBandWriter.pooled(registry);
        try {
            writeSection(value, out);
            byte[] wrapped = table.wrap(out.written(), value);
            return wrapped == null ? out.finish() : new SerializationResult(ByteBuffer.wrap(wrapped), out.outOfBand());
        } finally {
            out.release();
        }
    }

    /** The contiguous frame of a value, built straight from the writer's array (signed when {@code key} is not null). */
    ByteBuffer toFrame(Object value, byte[] key) {
        InBandWriter out = InBandWriter.pooled(registry);
        try (StructSupport.Table table = SerializerRegistry.STRUCTS.openTable(null)) {
            writeSection(value, out);
            ByteBuffer withTable = table.toFrame(out.written(), out.outOfBand(), value, key);
            return withTable != null ? withTable : FrameWriter.toFrame(out.written(), out.outOfBand(), key);
        } finally {
            out.release();
        }
    }

    private void writeSection(Object value, InBandWriter out) {
        if (value instanceof OpaqueValue opaque) {
            out.writeSectionOf(opaque);
            return;
        }
        RegistrationTable.Registration registration = out.registrationFor(value);
        out.writeHash(registration.hash().toLong());
        writeBody(registration, value, out);
    }

    /** Changes each time the registrations change (see {@link RegistrationTable#generation}). */
    int generation() {
        return table.generation();
    }

    /** The registration a value is written with (see {@link RegistrationTable#forValue}). */
    RegistrationTable.Registration registrationFor(Object value) {
        return table.forValue(value);
    }

    /**
     * Writes the serializer in-band of {@code value} (without its ClassIDHash) into {@code out}
     * and gives it the value's OOB buffers; a serializer's failure becomes a SerializationException
     * naming the class ID.
     */
    @SuppressWarnings("unchecked")
    <T> void writeBody(RegistrationTable.Registration registration, Object value, InBandWriter out) {
        try {
            MsgpackSerializer<Object> msgpack = registration.msgpack();
            if (msgpack != null) {
                msgpack.write(value, out);
            } else {
                // Copied in from the result as it is held: no view of it, no list of views, per value.
                SerializationResult own = ((Serializer<T>) registration.serializer()).serialize((T) value);
                out.writeRaw(own.inBandHeld());
                List<ByteBuffer> buffers = own.outOfBandHeld();
                for (int i = 0, n = buffers.size(); i < n; i++) {
                    out.addOutOfBand(buffers.get(i));
                }
            }
        } catch (SerregException e) {
            throw e;
        } catch (RuntimeException e) {
            throw failure(registration, value, e);
        }
    }

    /** What a serializer's failure on {@code value} becomes: a SerializationException naming the class ID. */
    static SerializationException failure(RegistrationTable.Registration registration, Object value, RuntimeException e) {
        return new SerializationException("serializer for class ID '" + registration.classId()
                + "' failed on a " + value.getClass().getName() + ": " + e, e);
    }
}
