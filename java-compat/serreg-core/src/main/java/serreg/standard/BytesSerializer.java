package serreg.standard;

import java.nio.ByteBuffer;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.InlineSerializer;
import serreg.MsgpackSerializer;
import serreg.SerializerRegistry;

/**
 * Class ID {@code bytes}: {@code byte[]}, msgpack bin. At the top level of a frame, arrays of
 * {@value #OUT_OF_BAND_THRESHOLD} bytes or more are sent as nil plus one OOB buffer (the array
 * itself, not copied until the frame is written). Decoding always copies into a new array,
 * since a Java array cannot be a view.
 */
public final class BytesSerializer extends MsgpackSerializer<byte[]> implements InlineSerializer<byte[]> {
    public static final int OUT_OF_BAND_THRESHOLD = 65536;

    public BytesSerializer(SerializerRegistry registry) {
        super(registry);
    }

    @Override
    public void writeInline(byte[] value, InBandWriter out) {
        out.writeBinary(value);
    }

    @Override
    protected void write(byte[] value, InBandWriter out) {
        if (value.length >= OUT_OF_BAND_THRESHOLD) {
            out.writeNil().addOutOfBand(ByteBuffer.wrap(value));
        } else {
            out.writeBinary(value);
        }
    }

    @Override
    protected byte[] read(InBandReader in) {
        if (in.tryReadNil()) {
            ByteBuffer data = in.nextOutOfBand("bytes");
            byte[] out = new byte[data.remaining()];
            data.get(out);
            return out;
        }
        return in.readBinary();
    }
}
