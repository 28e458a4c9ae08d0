package serreg.standard;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import serreg.DeserializationException;

/**
 * Counts the out-of-band buffers a pickle (protocol 5) refers to, by walking its opcodes and
 * counting NEXT_BUFFER. Java never unpickles; it needs the count only to know how many of the
 * frame's OOB buffers belong to a {@code serreg.pickle5} value nested in a document. The opcode
 * argument sizes are those of the pickle protocol (CPython's Lib/pickletools.py documents them).
 */
final class PickleBufferCounter {
    private static final int NEXT_BUFFER = 0x97;
    private static final int STOP = '.';

    private PickleBufferCounter() {
    }

    static int count(ByteBuffer pickle) {
        ByteBuffer p = pickle.slice().order(ByteOrder.LITTLE_ENDIAN);
        int buffers = 0;
        while (p.hasRemaining()) {
            int at = p.position();
            int op = p.get() & 0xff;
            if (op == STOP) {
                return buffers;
            }
            if (op == NEXT_BUFFER) {
                buffers++;
            }
            try {
                skipArgument(op, p);
            } catch (IllegalArgumentException | IndexOutOfBoundsException | java.nio.BufferUnderflowException e) {
                throw new DeserializationException("malformed pickle: opcode 0x" + Integer.toHexString(op)
                        + " at pickle offset " + at + ": " + e.getMessage(), at);
            }
        }
        throw new DeserializationException("malformed pickle: no STOP opcode", p.position());
    }

    private static void skipArgument(int op, ByteBuffer p) {
        switch (op) {
            // Opcodes with no argument.
            case 'N', 0x88, 0x89, ']', 'a', 'e', 'l', ')', 't', 0x85, 0x86, 0x87, '}', 'd', 's', 'u',
                    0x8f, 0x90, 0x91, '0', '2', '(', '1', 0x94, 0x93, 'R', 'b', 'o', 0x81, 0x92, 'Q',
                    0x97, 0x98 -> {
            }
            // Fixed-size arguments.
            case 'K', 'h', 'q', 0x82, 0x80 -> skip(p, 1);
            case 'M', 0x83 -> skip(p, 2);
            case 'J', 'j', 'r', 0x84 -> skip(p, 4);
            case 'G', 0x95 -> skip(p, 8);
            // Length-prefixed arguments.
            case 'U', 'C', 0x8c, 0x8a -> skip(p, 1 + (p.get(p.position()) & 0xff));
            case 0x8b, 'T' -> skip(p, 4 + lengthOf(p.getInt(p.position())));
            case 'B', 'X' -> skip(p, 4 + Integer.toUnsignedLong(p.getInt(p.position())));
            case 0x8e, 0x8d, 0x96 -> skip(p, 8 + p.getLong(p.position()));
            // Newline-terminated text arguments (protocols 0 and 1).
            case 'I', 'L', 'S', 'V', 'F', 'g', 'p', 'P' -> skipLine(p);
            case 'c', 'i' -> {
                skipLine(p);
                skipLine(p);
            }
            default -> throw new IllegalArgumentException("unknown opcode");
        }
    }

    private static long lengthOf(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("negative length " + n);
        }
        return n;
    }

    private static void skip(ByteBuffer p, long n) {
        if (n < 0 || n > p.remaining()) {
            throw new IllegalArgumentException("argument of " + n + " bytes runs past the end");
        }
        p.position(p.position() + (int) n);
    }

    private static void skipLine(ByteBuffer p) {
        while (p.get() != '\n') {
            // consume through the newline
        }
    }
}
