package serreg;

import org.msgpack.core.MessageFormat;

/**
 * The msgpack pieces of the in-band layout (docs/FORMAT.md section 3), the twin of Python's
 * {@code serreg/codec/layout.py}: the ext types serreg uses, what a first byte announces, and the
 * shortest encoding of each header, written straight into a byte array. The writer makes room
 * first; each {@code put} returns the index just past what it wrote. Package-private.
 */
final class InBandLayout {
    /** The msgpack ext type of a nested value: ClassIDHash + serializer in-band. */
    static final int NESTED_EXT_TYPE = 0;
    /** The msgpack ext type of a struct instance: [definition index, field values...] (section 10.3). */
    static final int STRUCT_EXT_TYPE = 1;
    /** The msgpack ext type of a list of struct instances of one definition, by columns (section 10.3). */
    static final int STRUCT_LIST_EXT_TYPE = 2;
    /** The longest header {@link #putStrHeader}, {@link #putBinHeader} and the container headers write. */
    static final int MAX_HEADER = 5;
    /** The longest int {@link #putLong} writes. */
    static final int MAX_INT = 9;

    /** msgpack-core's name for each first byte, for {@code nextFormat()} and the messages. */
    private static final MessageFormat[] FORMATS = new MessageFormat[256];

    static {
        for (int b = 0; b < 256; b++) {
            FORMATS[b] = MessageFormat.valueOf((byte) b);
        }
    }

    private InBandLayout() {
    }

    /** msgpack-core's name for the format a first byte announces. */
    static MessageFormat format(int b) {
        return FORMATS[b];
    }

    /** Whether a first byte starts a fixstr (a str of at most 31 bytes). */
    static boolean isFixStr(int b) {
        return (b & 0xe0) == 0xa0;
    }

    /** Whether a first byte starts an array or a map. */
    static boolean isContainer(int b) {
        return (b >= 0x80 && b <= 0x9f) || (b >= 0xdc && b <= 0xdf);
    }

    /** Whether a container's first byte starts a map (not an array). */
    static boolean isMap(int b) {
        return b <= 0x8f || b >= 0xde;
    }

    /** Whether a first byte starts an ext (fixext or ext 8/16/32). */
    static boolean isExt(int b) {
        return (b >= 0xd4 && b <= 0xd8) || (b >= 0xc7 && b <= 0xc9);
    }

    /** Whether a first byte starts a str. */
    static boolean isStr(int b) {
        return b >= 0xa0 && b <= 0xbf || b >= 0xd9 && b <= 0xdb;
    }

    // ---- writing (the caller made room) ----

    /** An int in its shortest msgpack form, at most {@link #MAX_INT} bytes. */
    static int putLong(byte[] b, int p, long v) {
        if (v >= 0) {
            if (v < 0x80) {
                b[p] = (byte) v;
                return p + 1;
            }
            if (v <= 0xff) {
                b[p] = (byte) 0xcc;
                b[p + 1] = (byte) v;
                return p + 2;
            }
            if (v <= 0xffff) {
                b[p] = (byte) 0xcd;
                Bytes.putShortBE(b, p + 1, (short) v);
                return p + 3;
            }
            if (v <= 0xffffffffL) {
                b[p] = (byte) 0xce;
                Bytes.putIntBE(b, p + 1, (int) v);
                return p + 5;
            }
            return putUint64(b, p, v);
        }
        if (v >= -32) {
            b[p] = (byte) v;
            return p + 1;
        }
        if (v >= Byte.MIN_VALUE) {
            b[p] = (byte) 0xd0;
            b[p + 1] = (byte) v;
            return p + 2;
        }
        if (v >= Short.MIN_VALUE) {
            b[p] = (byte) 0xd1;
            Bytes.putShortBE(b, p + 1, (short) v);
            return p + 3;
        }
        if (v >= Integer.MIN_VALUE) {
            b[p] = (byte) 0xd2;
            Bytes.putIntBE(b, p + 1, (int) v);
            return p + 5;
        }
        b[p] = (byte) 0xd3;
        Bytes.putLongBE(b, p + 1, v);
        return p + 9;
    }

    /** A uint 64 holding a long's bits. */
    static int putUint64(byte[] b, int p, long bits) {
        b[p] = (byte) 0xcf;
        Bytes.putLongBE(b, p + 1, bits);
        return p + 9;
    }

    /** A str header for {@code n} bytes of UTF-8. */
    static int putStrHeader(byte[] b, int p, int n) {
        if (n < 32) {
            b[p] = (byte) (0xa0 | n);
            return p + 1;
        }
        if (n <= 0xff) {
            b[p] = (byte) 0xd9;
            b[p + 1] = (byte) n;
            return p + 2;
        }
        if (n <= 0xffff) {
            b[p] = (byte) 0xda;
            Bytes.putShortBE(b, p + 1, (short) n);
            return p + 3;
        }
        b[p] = (byte) 0xdb;
        Bytes.putIntBE(b, p + 1, n);
        return p + 5;
    }

    /** A bin header for {@code n} bytes. */
    static int putBinHeader(byte[] b, int p, int n) {
        if (n <= 0xff) {
            b[p] = (byte) 0xc4;
            b[p + 1] = (byte) n;
            return p + 2;
        }
        if (n <= 0xffff) {
            b[p] = (byte) 0xc5;
            Bytes.putShortBE(b, p + 1, (short) n);
            return p + 3;
        }
        b[p] = (byte) 0xc6;
        Bytes.putIntBE(b, p + 1, n);
        return p + 5;
    }

    /** An array ({@code fix} 0x90, {@code wide} 0xdc) or map (0x80, 0xde) header for {@code n >= 0} items. */
    static int putContainerHeader(byte[] b, int p, int n, int fix, int wide) {
        if (n < 16) {
            b[p] = (byte) (fix | n);
            return p + 1;
        }
        if (n <= 0xffff) {
            b[p] = (byte) wide;
            Bytes.putShortBE(b, p + 1, (short) n);
            return p + 3;
        }
        b[p] = (byte) (wide + 1);
        Bytes.putIntBE(b, p + 1, n);
        return p + 5;
    }

    /** Size of the shortest ext header for a payload of {@code length} bytes (2, 3, 4 or 6). */
    static int extHeaderSize(int length) {
        return length == 1 || length == 2 || length == 4 || length == 8 || length == 16 ? 2
                : length <= 0xff ? 3 : length <= 0xffff ? 4 : 6;
    }

    /** The ext header of {@code type} for {@code length} bytes, {@link #extHeaderSize} bytes long. */
    static void putExtHeader(byte[] b, int p, int length, int type) {
        int size = extHeaderSize(length);
        switch (size) {
            case 2 -> b[p] = (byte) (length == 1 ? 0xd4 : length == 2 ? 0xd5 : length == 4 ? 0xd6 : length == 8 ? 0xd7 : 0xd8);
            case 3 -> {
                b[p] = (byte) 0xc7;
                b[p + 1] = (byte) length;
            }
            case 4 -> {
                b[p] = (byte) 0xc8;
                Bytes.putShortBE(b, p + 1, (short) length);
            }
            default -> {
                b[p] = (byte) 0xc9;
                Bytes.putIntBE(b, p + 1, length);
            }
        }
        b[p + size - 1] = (byte) type;
    }
}
