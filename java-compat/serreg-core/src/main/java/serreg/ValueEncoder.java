package serreg;

import java.nio.ByteBuffer;
import serreg.types.OpaqueValue;
import serreg.wire.ClassIdHash;

/**
 * Writes values: a top-level value as an in-band section (ClassIDHash + its serializer's
 * in-band) with its OOB buffers, a nested one inline when its serializer is an
 * {@link InlineSerializer} that accepts it, else as ext 0 (docs/FORMAT.md section 3).
 * {@link InBandWriter} calls {@link #writeNested} directly, so a value's trip through serialize
 * never goes back through the registry's public face. Package-private.
 */
final class ValueEncoder {
    private final RegistrationTable table;

    ValueEncoder(RegistrationTable table) {
        this.table = table;
    }

    /** The value's in-band section (starting with its ClassIDHash) and OOB buffers. */
    SerializationResult serialize(Object value) {
        if (value instanceof OpaqueValue opaque) {
            return opaque.toSerializationResult();
        }
        RegistrationTable.Registration registration = table.forValue(value);
        SerializationResult own = callSerialize(registration, value);
        ByteBuffer body = own.inBand();
        ByteBuffer section = ByteBuffer.allocate(ClassIdHash.SIZE + body.remaining());
        registration.hash().writeTo(section);
        section.put(body).flip();
        return new SerializationResult(section, own.outOfBand());
    }

    /** Writes a value inside a msgpack document: inline when native, else ext 0. */
    void writeNested(Object value, InBandWriter out) {
        if (!(value instanceof OpaqueValue)) {
            RegistrationTable.Registration registration = table.forValue(value);
            if (registration.serializer() instanceof InlineSerializer<?> inline && writesInline(inline, value)) {
                writeInline(inline, value, out);
                return;
            }
        }
        out.writeExtNested(serialize(value));
    }

    @SuppressWarnings("unchecked")
    private static <T> boolean writesInline(InlineSerializer<T> serializer, Object value) {
        return serializer.writesInline((T) value);
    }

    @SuppressWarnings("unchecked")
    private static <T> void writeInline(InlineSerializer<T> serializer, Object value, InBandWriter out) {
        serializer.writeInline((T) value, out);
    }

    @SuppressWarnings("unchecked")
    private static <T> SerializationResult callSerialize(RegistrationTable.Registration registration, Object value) {
        try {
            return ((Serializer<T>) registration.serializer()).serialize((T) value);
        } catch (SerregException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new SerializationException("serializer for class ID '" + registration.classId()
                    + "' failed on a " + value.getClass().getName() + ": " + e, e);
        }
    }
}
