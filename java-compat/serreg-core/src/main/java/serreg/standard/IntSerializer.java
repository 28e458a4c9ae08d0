package serreg.standard;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import org.msgpack.value.ValueType;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.InlineSerializer;
import serreg.MsgpackSerializer;
import serreg.SerializerRegistry;

/**
 * Class ID {@code int}: Python's unbounded int. {@code Long}, or {@code BigInteger}; a msgpack
 * int when {@code -2^63 <= v < 2^64}, otherwise a bin of the minimal two's-complement little-endian
 * bytes (ext 0 inside documents), at most {@link #MAX_BYTES} of them. Decodes to Long when the value
 * fits, else BigInteger.
 */
public final class IntSerializer extends MsgpackSerializer<Number> implements InlineSerializer<Number> {
    private static final BigInteger MIN = BigInteger.valueOf(Long.MIN_VALUE);
    private static final BigInteger MAX_EXCLUSIVE = BigInteger.ONE.shiftLeft(64);
    /**
     * The longest big int bin (docs/FORMAT.md, section 6.1): 2^27 - 1 bytes, so that every value of
     * that many bytes fits a Java BigInteger (a magnitude under 2^31 bits: a bin of 2^28 bytes made
     * its constructor throw ArithmeticException, which reached the registry's catch-all) and a
     * JavaScript BigInt (under 2^30 bits in V8).
     */
    static final int MAX_BYTES = (1 << 27) - 1;

    public IntSerializer(SerializerRegistry registry) {
        super(registry);
    }

    static boolean inMsgpackRange(BigInteger v) {
        return v.compareTo(MIN) >= 0 && v.compareTo(MAX_EXCLUSIVE) < 0;
    }

    @Override
    public boolean writesInline(Number value) {
        return !(value instanceof BigInteger b) || inMsgpackRange(b);
    }

    /** The writer writes these values itself (docs/FORMAT.md section 3): the same bytes as {@link #writeInline}. */
    @Override
    public Form inlineForm() {
        return Form.INT;
    }

    @Override
    public void writeInline(Number value, InBandWriter out) {
        write(value, out);
    }

    @Override
    protected void write(Number value, InBandWriter out) {
        if (value instanceof Long l) {
            out.writeLong(l);
            return;
        }
        BigInteger b = (BigInteger) value;
        if (b.bitLength() < 64) {
            out.writeLong(b.longValue());
        } else if (inMsgpackRange(b)) {
            out.writeInteger(b);
        } else {
            out.writeBinary(toLittleEndian(b.toByteArray()));
        }
    }

    @Override
    protected Number read(InBandReader in) {
        if (in.nextFormat().getValueType() == ValueType.BINARY) {
            long at = in.offset();
            ByteBuffer bytes = in.readBinaryView();
            if (bytes.remaining() == 0) {
                throw in.error("a big int's bin must not be empty", at);
            }
            if (bytes.remaining() > MAX_BYTES) {
                throw in.error("a big int's bin holds " + bytes.remaining() + " bytes, more than " + MAX_BYTES
                        + " (docs/FORMAT.md, section 6.1)", at);
            }
            byte[] bigEndian = new byte[bytes.remaining()];
            bytes.get(bigEndian);
            BigInteger value = new BigInteger(toLittleEndian(bigEndian));
            // Python writes the minimal bytes, but a bin may hold a value of the long range: Long, as a msgpack int reads.
            return value.bitLength() < 64 ? (Number) value.longValue() : value;
        }
        return (Number) in.readInteger();
    }

    /** Reverses byte order (big-endian to little-endian and back). */
    private static byte[] toLittleEndian(byte[] bytes) {
        byte[] out = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            out[i] = bytes[bytes.length - 1 - i];
        }
        return out;
    }
}
