package serreg;

import java.nio.ByteBuffer;
import java.util.Iterator;

/**
 * Turns values of one class into a {@link SerializationResult} and back.
 *
 * <p>{@code serialize} returns the serializer's own in-band bytes (without the ClassIDHash; the
 * registry adds it) and the OOB buffers. {@code deserialize} gets those in-band bytes back as a
 * read-only-by-contract view (possibly of a larger frame: do not keep or modify it unless the
 * value is documented as a view) and an iterator over the OOB buffers that it must consume
 * strictly in order, taking exactly the buffers its {@code serialize} produced.
 */
public interface Serializer<T> {
    /**
     * Writes a value.
     *
     * @param value the value (of the class this serializer is registered for)
     * @return this serializer's in-band bytes (without the ClassIDHash) and OOB buffers
     */
    SerializationResult serialize(T value);

    /**
     * Reads a value written by {@link #serialize}.
     *
     * @param inBand this serializer's in-band bytes (a view: do not keep or change it)
     * @param outOfBand the frame's OOB buffers from this value's first one: take exactly as
     *     many as {@code serialize} wrote, in order
     * @return the value
     * @throws DeserializationException if the bytes are not a valid value
     */
    T deserialize(ByteBuffer inBand, Iterator<ByteBuffer> outOfBand);

    /**
     * Optional hook: the canonical form of a value (docs/FORMAT.md section 9), the same shape
     * as {@link #serialize} returns, written so that equal values give identical bytes whatever
     * their history. {@code Serreg.serializeCanonical} and {@code Serreg.digest} ask the
     * serializer of every value whose type the canonical rules of serreg-core do not cover (the
     * Arrow serializers answer here). The twin of Python's {@code Serializer.serialize_canonical}.
     *
     * @param value the value
     * @return its canonical in-band bytes (without the ClassIDHash) and OOB buffers
     * @throws CanonicalFormException by default: the serializer defines no canonical form
     */
    default SerializationResult serializeCanonical(T value) {
        throw new CanonicalFormException(getClass().getName() + " defines no canonical form; override"
                + " Serializer.serializeCanonical to give one (docs/FORMAT.md section 9)");
    }
}
