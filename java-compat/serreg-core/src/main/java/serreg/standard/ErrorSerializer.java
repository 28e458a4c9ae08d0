package serreg.standard;

import java.util.Map;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.MsgpackSerializer;
import serreg.RemoteException;
import serreg.SerializerRegistry;

/**
 * Class ID {@code serreg.error}, the error frame (docs/FORMAT.md section 4): map
 * {"message": str}. Serializing a {@link RemoteException} writes its message; reading an error
 * frame throws a RemoteException carrying the peer's message instead of returning a value.
 */
public final class ErrorSerializer extends MsgpackSerializer<RemoteException> {
    public ErrorSerializer(SerializerRegistry registry) {
        super(registry);
    }

    @Override
    protected void write(RemoteException value, InBandWriter out) {
        out.writeMapHeader(1).writeString("message").writeString(value.remoteMessage());
    }

    @Override
    protected RemoteException read(InBandReader in) {
        long at = in.offset();
        Object map = in.readValue();
        if (!(map instanceof Map<?, ?> m) || !(m.get("message") instanceof String message)) {
            throw in.error("an error frame's in-band is a map {\"message\": str}", at);
        }
        throw new RemoteException(message);
    }
}
