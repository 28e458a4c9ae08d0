package serreg.standard;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import serreg.SerializationResult;
import serreg.Serializer;
import serreg.types.OpaqueValue;

/**
 * Class ID {@code serreg.pickle5}, Python's fallback: raw pickle protocol-5 bytes plus its
 * pickle buffers as OOB buffers. Java cannot unpickle, so it keeps such a value as an
 * {@link OpaqueValue} (views of the frame, no copy) and writes it back byte-identical. The number
 * of OOB buffers it owns is the pickle's count of NEXT_BUFFER opcodes.
 */
public final class Pickle5Serializer implements Serializer<OpaqueValue> {
    public static final String CLASS_ID = "serreg.pickle5";

    @Override
    public SerializationResult serialize(OpaqueValue value) {
        return new SerializationResult(value.inBand(), value.outOfBand());
    }

    @Override
    public OpaqueValue deserialize(ByteBuffer inBand, Iterator<ByteBuffer> outOfBand) {
        int count = PickleBufferCounter.count(inBand);
        List<ByteBuffer> owned = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            if (!outOfBand.hasNext()) {
                throw new serreg.DeserializationException("the pickle refers to " + count
                        + " out-of-band buffers but the frame has only " + i + " left", 0);
            }
            owned.add(outOfBand.next());
        }
        return OpaqueValue.of(CLASS_ID, inBand, owned);
    }
}
