package serreg;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Multi-byte reads and writes on byte arrays in one access each (msgpack is big-endian; the
 * ASCII check reads little-endian longs). Package-private.
 */
final class Bytes {
    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle SHORT_BE = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);

    private Bytes() {
    }

    static long getLongBE(byte[] b, int at) {
        return (long) LONG_BE.get(b, at);
    }

    static long getLongLE(byte[] b, int at) {
        return (long) LONG_LE.get(b, at);
    }

    static int getIntBE(byte[] b, int at) {
        return (int) INT_BE.get(b, at);
    }

    static int getShortBE(byte[] b, int at) {
        return (short) SHORT_BE.get(b, at);
    }

    static void putLongBE(byte[] b, int at, long v) {
        LONG_BE.set(b, at, v);
    }

    static void putLongLE(byte[] b, int at, long v) {
        LONG_LE.set(b, at, v);
    }

    static void putIntLE(byte[] b, int at, int v) {
        INT_LE.set(b, at, v);
    }

    static void putIntBE(byte[] b, int at, int v) {
        INT_BE.set(b, at, v);
    }

    static void putShortBE(byte[] b, int at, short v) {
        SHORT_BE.set(b, at, v);
    }
}
