package serreg.numpy;

import java.math.BigInteger;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.SerializerModule;
import serreg.SerializerRegistry;
import serreg.types.Complex;
import serreg.types.MaskedArray;
import serreg.types.NumpyGenericScalar;
import serreg.types.NDArray;
import serreg.types.NumpyScalar;
import serreg.types.UInt16;
import serreg.types.UInt32;
import serreg.types.UInt64;
import serreg.types.UInt8;

/**
 * Registers {@code numpy.ndarray} and the numpy scalar class IDs (docs/FORMAT.md 6.2, 6.3) with
 * their Java classes: Byte, Short, Integer, Float for int8, int16, int32, float32;
 * UInt8..UInt64 for the unsigned types; {@link NumpyScalar} for bool, int64, float16, float64,
 * complex64 and complex128 (a NumpyScalar names its own class ID). A {@link SerializerModule} of
 * serreg-core: it needs no numpy-like library, only the carrier classes of {@code serreg.types}.
 */
public final class NumpySerializers implements SerializerModule {
    /** Found by {@link java.util.ServiceLoader}. */
    public NumpySerializers() {
    }

    @Override
    public String name() {
        return "serreg.numpy";
    }

    /** After the standard types, before modules of the default order. */
    @Override
    public int order() {
        return -100;
    }

    @Override
    public void register(SerializerRegistry r) {
        r.registerSerializer("numpy.ndarray", NDArray.class, new NDArraySerializer(r));
        r.registerSerializer("numpy.ma.MaskedArray", MaskedArray.class, new ScalarSerializer<MaskedArray>(r,
                NumpySerializers::writeMasked, NumpySerializers::readMasked));
        for (String name : new String[] {"datetime64", "timedelta64", "bytes_", "str_", "void"}) {
            r.registerSerializer("numpy." + name, NumpyGenericScalar.class, new ScalarSerializer<NumpyGenericScalar>(r,
                    (v, out) -> NDArraySerializer.writeArray(v.value(), out), in -> readGeneric(name, in)));
        }
        r.registerSerializer("numpy.int8", Byte.class, new ScalarSerializer<Byte>(r,
                (v, out) -> out.writeLong(v), in -> (byte) in.readLong(Byte.MIN_VALUE, Byte.MAX_VALUE, "int8")));
        r.registerSerializer("numpy.int16", Short.class, new ScalarSerializer<Short>(r,
                (v, out) -> out.writeLong(v), in -> (short) in.readLong(Short.MIN_VALUE, Short.MAX_VALUE, "int16")));
        r.registerSerializer("numpy.int32", Integer.class, new ScalarSerializer<Integer>(r,
                (v, out) -> out.writeLong(v), in -> (int) in.readLong(Integer.MIN_VALUE, Integer.MAX_VALUE, "int32")));
        r.registerSerializer("numpy.float32", Float.class, new ScalarSerializer<Float>(r,
                (v, out) -> out.writeFloat(v), InBandReader::readFloat));
        r.registerSerializer("numpy.uint8", UInt8.class, new ScalarSerializer<UInt8>(r,
                (v, out) -> out.writeLong(v.value()), in -> new UInt8((short) in.readLong(0, 0xff, "uint8"))));
        r.registerSerializer("numpy.uint16", UInt16.class, new ScalarSerializer<UInt16>(r,
                (v, out) -> out.writeLong(v.value()), in -> new UInt16((int) in.readLong(0, 0xffff, "uint16"))));
        r.registerSerializer("numpy.uint32", UInt32.class, new ScalarSerializer<UInt32>(r,
                (v, out) -> out.writeLong(v.value()), in -> new UInt32(in.readLong(0, 0xffffffffL, "uint32"))));
        r.registerSerializer("numpy.uint64", UInt64.class, new ScalarSerializer<UInt64>(r,
                (v, out) -> out.writeUnsignedLong(v.bits()), NumpySerializers::readUInt64));
        for (String name : new String[] {"bool", "int64", "float16", "float64", "complex64", "complex128"}) {
            r.registerSerializer("numpy." + name, NumpyScalar.class, new ScalarSerializer<NumpyScalar>(r,
                    NumpySerializers::writeScalar, in -> readScalar(name, in)));
        }
    }

    private static NumpyGenericScalar readGeneric(String name, InBandReader in) {
        long at = in.offset();
        NDArray value = NDArraySerializer.readArray(in);
        try {
            return new NumpyGenericScalar(name, value);
        } catch (IllegalArgumentException e) {
            throw in.error(e.getMessage(), at);
        }
    }

    /** [data, mask or nil, fill value (bin) or nil, hard mask]; OOB: the data's buffer, then the mask's. */
    private static void writeMasked(MaskedArray m, InBandWriter out) {
        out.writeArrayHeader(4);
        NDArraySerializer.writeArray(m.data(), out);
        if (m.mask() == null) {
            out.writeNil();
        } else {
            NDArraySerializer.writeArray(m.mask(), out);
        }
        if (m.fillValue() == null) {
            out.writeNil();
        } else {
            out.writeBinary(m.fillValue());
        }
        out.writeBoolean(m.hardMask());
    }

    private static MaskedArray readMasked(InBandReader in) {
        long at = in.offset();
        in.readArrayHeader(4, "numpy.ma.MaskedArray in-band [data, mask, fill_value, hard_mask]");
        NDArray data = NDArraySerializer.readArray(in);
        NDArray mask = in.tryReadNil() ? null : NDArraySerializer.readArray(in);
        java.nio.ByteBuffer fill = in.tryReadNil() ? null : in.readBinaryView();
        boolean hard = in.readBoolean();
        try {
            return new MaskedArray(data, mask, fill, hard);
        } catch (IllegalArgumentException e) {
            throw in.error("invalid masked array: " + e.getMessage(), at);
        }
    }

    private static UInt64 readUInt64(InBandReader in) {
        long at = in.offset();
        Object v = in.readInteger();
        BigInteger b = v instanceof Long l ? BigInteger.valueOf(l) : (BigInteger) v;
        if (b.signum() < 0) {
            throw in.error("uint64 value " + b + " is negative", at);
        }
        return UInt64.of(b);
    }

    private static void writeScalar(NumpyScalar scalar, InBandWriter out) {
        Object v = scalar.value();
        switch (scalar.name()) {
            case "bool" -> out.writeBoolean((Boolean) v);
            case "int64" -> out.writeLong((Long) v);
            case "float16" -> out.writeLong(Short.toUnsignedInt((Short) v));
            case "float64" -> out.writeDouble((Double) v);
            case "complex64" -> out.writeArrayHeader(2).writeFloat((float) ((Complex) v).real())
                    .writeFloat((float) ((Complex) v).imag());
            case "complex128" -> out.writeArrayHeader(2).writeDouble(((Complex) v).real()).writeDouble(((Complex) v).imag());
            default -> throw new IllegalStateException("no NumpyScalar named " + scalar.name());
        }
    }

    private static NumpyScalar readScalar(String name, InBandReader in) {
        Object value = switch (name) {
            case "bool" -> in.readBoolean();
            case "int64" -> in.readLong();
            case "float16" -> (short) in.readLong(0, 0xffff, "float16 bit pattern");
            case "float64" -> in.readDouble();
            case "complex64" -> {
                in.readArrayHeader(2, "complex64 in-band");
                yield new Complex(in.readFloat(), in.readFloat());
            }
            case "complex128" -> {
                in.readArrayHeader(2, "complex128 in-band");
                yield new Complex(in.readDouble(), in.readDouble());
            }
            default -> throw new IllegalStateException("no NumpyScalar named " + name);
        };
        return new NumpyScalar(name, value);
    }
}
