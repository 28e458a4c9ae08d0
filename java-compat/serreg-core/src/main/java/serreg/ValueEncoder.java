package serreg;

import java.nio.ByteBuffer;
import serreg.types.OpaqueValue;
import serreg.wire.ClassIdHash;

/**
 * Writes values as in-band sections (ClassIDHash + the serializer's in-band) with their OOB
 * buffers. {@link InBandWriter} asks it directly for nested values (and writes those whose
 * serializer is an {@link InlineSerializer} natively, the rest as ext 0, docs/FORMAT.md section
 * 3), so a value's trip through serialize never goes back through the registry's public face.
 * Package-private; it knows the registration table, not the writer.
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

    /**
     * The serializer that would write {@code value}, for {@link InBandWriter} to ask whether it
     * writes the value inline (an {@link InlineSerializer}); null for an {@link OpaqueValue},
     * which is always written back as it was read.
     */
    Serializer<?> serializerFor(Object value) {
        return value instanceof OpaqueValue ? null : table.forValue(value).serializer();
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
