package serreg;

/**
 * The frame was an error frame (class ID {@code serreg.error}): the peer could not handle a
 * request and sent this message instead of a value. Mirrors Python's {@code serreg.RemoteError}.
 */
public class RemoteException extends DeserializationException {
    private final String remoteMessage;

    public RemoteException(String remoteMessage) {
        super("the peer answered with an error: " + remoteMessage);
        this.remoteMessage = remoteMessage;
    }

    /** The message the peer put into the error frame. */
    public String remoteMessage() {
        return remoteMessage;
    }
}
