package serreg.bench;

/**
 * One serializer under test: a round trip is {@code decode(encode(value))}, through one
 * contiguous {@code byte[]}. {@link #adapt} turns a payload into the form this codec's users
 * would hand it (for the double array: an NDArray for serreg, a double[] for Fory, a
 * ByteBuffer written as bin for msgpack), outside the timed code; {@link #unwrap} turns a decoded
 * value back into something {@link Payloads#same} compares, also outside it.
 */
interface Codec {
    Object adapt(String payload, Object value);

    byte[] encode(Object value);

    Object decode(byte[] frame);

    default Object unwrap(Object decoded) {
        return decoded;
    }

    /** The codec for a benchmark's {@code codec} parameter. */
    static Codec named(String name, String payload) {
        return switch (name) {
            case "serreg" -> new SerregCodec();
            case "foryXlang" -> ForyCodec.xlang();
            case "foryJava" -> ForyCodec.java();
            case "msgpack" -> new MsgpackCodec(payload);
            default -> throw new IllegalArgumentException("unknown codec " + name
                    + "; known: serreg, foryXlang, foryJava, msgpack");
        };
    }
}
