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
    SerializationResult serialize(T value);

    T deserialize(ByteBuffer inBand, Iterator<ByteBuffer> outOfBand);
}
