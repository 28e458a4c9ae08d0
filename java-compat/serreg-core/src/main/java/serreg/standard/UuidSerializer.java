package serreg.standard;

import java.nio.ByteBuffer;
import java.util.UUID;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.MsgpackSerializer;
import serreg.SerializerRegistry;

/** Class ID {@code uuid}: {@link UUID}, bin of its 16 bytes in RFC 4122 (big-endian) order. */
public final class UuidSerializer extends MsgpackSerializer<UUID> {
    public UuidSerializer(SerializerRegistry registry) {
        super(registry);
    }

    @Override
    protected void write(UUID value, InBandWriter out) {
        out.writeBinary(ByteBuffer.allocate(16).putLong(value.getMostSignificantBits())
                .putLong(value.getLeastSignificantBits()).flip());
    }

    @Override
    protected UUID read(InBandReader in) {
        long at = in.offset();
        ByteBuffer bytes = in.readBinaryView();
        if (bytes.remaining() != 16) {
            throw in.error("a uuid is 16 bytes, not " + bytes.remaining(), at);
        }
        return new UUID(bytes.getLong(0), bytes.getLong(8));
    }
}
