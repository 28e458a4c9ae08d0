package serreg;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import serreg.types.OpaqueValue;
import serreg.wire.FrameSignature;

/**
 * The reading half of {@link SerializerRegistry}'s public face, the Java twin of Python's
 * {@code serreg/_registry/decode.py} ({@code Settings} and {@code Decoder}): the settings every
 * {@code deserialize} call without its own uses (limits, trust, the allow-list of untrusted
 * calls) and every {@code deserialize} overload, each a thin call into the registry's
 * {@link ValueDecoder}. Package-private: its public methods are {@link SerializerRegistry}'s, the
 * only class extending it.
 */
abstract class RegistryDecoder {
    private final ValueDecoder decoder;

    RegistryDecoder(ValueDecoder decoder) {
        this.decoder = decoder;
    }

    /**
     * The limits every {@code deserialize} call without its own uses.
     *
     * @return this registry's limits
     */
    public Limits limits() {
        return decoder.limits();
    }

    /**
     * Sets the limits for {@code deserialize} calls that do not pass their own.
     *
     * @param limits the new limits
     */
    public void setLimits(Limits limits) {
        decoder.setLimits(limits);
    }

    /**
     * Whether {@code deserialize} calls that do not say otherwise are trusted (true for a new
     * registry, as in Python). An untrusted call (docs/FORMAT.md section 4.4) decodes only the
     * class IDs of {@link #allowedClassIds()}, checked by ClassIDHash before a serializer sees a
     * byte, at every nesting level: {@code serreg.pickle5}, {@code serreg.pyobjects},
     * {@code serreg.dataclass} and ClassIDHashes with no serializer (which a trusted call keeps as {@link OpaqueValue}s) are
     * refused with an {@link UntrustedClassIdException}. Limits apply in both modes.
     *
     * @return the default of this registry's deserialize calls
     */
    public boolean trusted() {
        return decoder.trusted();
    }

    /**
     * Sets whether {@code deserialize} calls that do not say otherwise are trusted; false makes
     * every such call untrusted (for a registry that only reads bytes from outside).
     *
     * @param trusted the new default
     */
    public void setTrusted(boolean trusted) {
        decoder.setTrusted(trusted);
    }

    /**
     * Lets untrusted deserialize calls decode these class IDs, for serializers known to be safe on
     * hostile bytes (they build plain data and check every length they read).
     *
     * @param classIds class IDs, registered or not
     * @throws IllegalArgumentException for {@code serreg.pickle5}, {@code serreg.pyobjects} and
     *     {@code serreg.dataclass}, which can never be allowed
     */
    public void allowClassIds(String... classIds) {
        decoder.allow(List.of(classIds));
    }

    /**
     * The class IDs untrusted calls decode: {@link Trust#dataClassIds()} (the standard data class
     * IDs) and those added with {@link #allowClassIds}.
     *
     * @return an immutable set
     */
    public Set<String> allowedClassIds() {
        return decoder.allowedClassIds();
    }

    /**
     * Decodes an in-band section (ClassIDHash + serializer in-band) within the deserialize call
     * running on this thread, sharing its OOB buffers: what a serializer that embeds another
     * value's whole section calls (the struct table, for the value after it).
     *
     * @param section the in-band section
     * @param outOfBand the frame's OOB iterator
     * @return the value
     */
    public Object deserializeSection(ByteBuffer section, Iterator<ByteBuffer> outOfBand) {
        return decoder.readNestedSection(section, outOfBand);
    }

    /** The part {@link InBandReader} reads nested values with. */
    ValueDecoder decoder() {
        return decoder;
    }

    /**
     * Deserializes a result whose in-band is an in-band section (starts with a ClassIDHash), for
     * example one that never left the process.
     *
     * @param result the result
     * @return the value
     * @throws DeserializationException if it cannot be read
     */
    public Object deserialize(SerializationResult result) {
        return decoder.readResult(result, decoder.limits(), decoder.trusted());
    }

    /**
     * As {@link #deserialize(SerializationResult)}, with this call's own limits.
     *
     * @param result the result
     * @param limits the limits of this call
     * @return the value
     */
    public Object deserialize(SerializationResult result, Limits limits) {
        return decoder.readResult(result, Objects.requireNonNull(limits, "limits"), decoder.trusted());
    }

    /**
     * Deserializes an in-process result that must have been signed with {@code key}: it never
     * was a frame, so the key it was signed with is compared instead of a trailer.
     *
     * @param result the result
     * @param key the key it must have been signed with
     * @return the value
     * @throws SignatureException if the result is unsigned or signed with another key
     */
    public Object deserialize(SerializationResult result, byte[] key) {
        byte[] checked = FrameSignature.checkKey(key);
        if (!result.isSigned()) {
            throw FrameSignature.notSigned();
        }
        if (!FrameSignature.sameKey(result.signingKey(), checked)) {
            throw new SignatureException("the result was signed with another key; nothing was decoded", -1);
        }
        return deserialize(result);
    }

    /**
     * Deserializes the contiguous frame at {@code frame}'s position, signed or not, within the
     * registry's limits. For a direct or memory-mapped buffer nothing is copied: NDArray data,
     * Arrow vectors, OOB-backed values and opaque values are views of the frame, valid while the
     * frame's memory is.
     *
     * @param frame the buffer holding the frame from its position
     * @return the value
     * @throws DeserializationException if the bytes are not a valid frame or value; never another
     *     exception type for bad bytes
     */
    public Object deserialize(ByteBuffer frame) {
        return decoder.readFrame(frame, decoder.limits(), null, decoder.trusted());
    }

    /**
     * As {@link #deserialize(ByteBuffer)}, with this call's own limits.
     *
     * @param frame the buffer holding the frame from its position
     * @param limits the limits of this call
     * @return the value
     */
    public Object deserialize(ByteBuffer frame, Limits limits) {
        return decoder.readFrame(frame, Objects.requireNonNull(limits, "limits"), null, decoder.trusted());
    }

    /**
     * Deserializes a frame that must be signed with {@code key} (docs/FORMAT.md section 4.2). The
     * header is checked up to the total length, then the frame is refused unless it is signed
     * and its HMAC-SHA256 trailer matches (compared in constant time); only then is the rest
     * read and decoded.
     *
     * @param frame the buffer holding the frame from its position
     * @param key the key the frame must be signed with
     * @return the value
     * @throws SignatureException if the frame is unsigned, signed with another key or altered
     * @throws IllegalArgumentException if the key is null or shorter than 16 bytes
     */
    public Object deserialize(ByteBuffer frame, byte[] key) {
        return decoder.readFrame(frame, decoder.limits(), FrameSignature.checkKey(key), decoder.trusted());
    }

    /**
     * As {@link #deserialize(ByteBuffer, byte[])}, with this call's own limits.
     *
     * @param frame the buffer holding the frame from its position
     * @param key the key the frame must be signed with
     * @param limits the limits of this call
     * @return the value
     */
    public Object deserialize(ByteBuffer frame, byte[] key, Limits limits) {
        return decoder.readFrame(frame, Objects.requireNonNull(limits, "limits"), FrameSignature.checkKey(key), decoder.trusted());
    }

    /**
     * As {@link #deserialize(ByteBuffer)}, trusted or untrusted as {@code trusted} says instead of
     * the registry's default (see {@link #trusted()}).
     *
     * @param frame the buffer holding the frame from its position
     * @param trusted false for bytes from a sender you do not trust
     * @return the value
     * @throws UntrustedClassIdException in untrusted mode, for a class ID not on the allow-list
     */
    public Object deserialize(ByteBuffer frame, boolean trusted) {
        return decoder.readFrame(frame, decoder.limits(), null, trusted);
    }

    /**
     * As {@link #deserialize(ByteBuffer, boolean)}, with this call's own limits.
     *
     * @param frame the buffer holding the frame from its position
     * @param limits the limits of this call
     * @param trusted false for bytes from a sender you do not trust
     * @return the value
     */
    public Object deserialize(ByteBuffer frame, Limits limits, boolean trusted) {
        return decoder.readFrame(frame, Objects.requireNonNull(limits, "limits"), null, trusted);
    }

    /**
     * As {@link #deserialize(ByteBuffer, byte[])} (the frame must be signed with {@code key}),
     * trusted or untrusted as {@code trusted} says. The signature tells who wrote the frame, not
     * that it is harmless: read a signed frame in trusted mode only from a writer you trust.
     *
     * @param frame the buffer holding the frame from its position
     * @param key the key the frame must be signed with
     * @param trusted false for bytes from a sender you do not trust
     * @return the value
     */
    public Object deserialize(ByteBuffer frame, byte[] key, boolean trusted) {
        return decoder.readFrame(frame, decoder.limits(), FrameSignature.checkKey(key), trusted);
    }

    /**
     * As {@link #deserialize(SerializationResult)}, trusted or untrusted as {@code trusted} says.
     *
     * @param result the result
     * @param trusted false for values from a sender you do not trust
     * @return the value
     */
    public Object deserialize(SerializationResult result, boolean trusted) {
        return decoder.readResult(result, decoder.limits(), trusted);
    }

    /**
     * As {@link #deserialize(ByteBuffer)}, for a frame expected to hold a {@code T}. A null value
     * ({@code None}) is returned as null unless {@code type} is primitive.
     *
     * @param <T> the expected type
     * @param frame the buffer holding the frame from its position
     * @param type the expected class ({@code int.class} and the like mean their wrapper)
     * @return the value, a {@code T}
     * @throws DeserializationException if the frame cannot be read, or holds something else than
     *     a {@code T} (which is then closed if it is {@link AutoCloseable})
     */
    public <T> T deserialize(ByteBuffer frame, Class<T> type) {
        return TypedValue.as(type, deserialize(frame));
    }

    /**
     * As {@link #deserialize(ByteBuffer, byte[])}, for a signed frame expected to hold a {@code T}.
     *
     * @param <T> the expected type
     * @param frame the buffer holding the frame from its position
     * @param key the key the frame must be signed with
     * @param type the expected class
     * @return the value, a {@code T}
     * @throws DeserializationException if the frame cannot be read, or holds something else than
     *     a {@code T}
     */
    public <T> T deserialize(ByteBuffer frame, byte[] key, Class<T> type) {
        return TypedValue.as(type, deserialize(frame, key));
    }
}
