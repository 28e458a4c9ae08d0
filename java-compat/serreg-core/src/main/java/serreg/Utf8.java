package serreg;

/**
 * Strict UTF-8 for msgpack str, without encoder or decoder objects: the writer and the reader
 * call these on their own byte arrays. Text that is not valid UTF-16 (a lone surrogate) is not
 * encoded, and bytes that are not well-formed UTF-8 (Unicode section 3.9, table 3-7: no overlong
 * forms, no encoded surrogates, nothing above U+10FFFF, no truncated sequence) are not decoded,
 * as Python's strict codec. ASCII, the common case, is copied byte for byte. Package-private.
 */
final class Utf8 {
    private Utf8() {
    }

    /** Whether {@code b[from, to)} is all ASCII (no byte with the high bit set). */
    static boolean isAscii(byte[] b, int from, int to) {
        int n = to - from;
        if (n < 8 && from + 8 <= b.length) {
            // A short str (the common case) with eight readable bytes from its start: one read, its own bytes masked.
            long mask = (1L << (n << 3)) - 1;
            return (Bytes.getLongLE(b, from) & mask & 0x8080808080808080L) == 0;
        }
        return isAsciiLoop(b, from, to);
    }

    /** {@link #isAscii} for a str of 8 bytes or more, or one near the array's end (apart, so that the short case inlines). */
    private static boolean isAsciiLoop(byte[] b, int from, int to) {
        int i = from;
        // Eight bytes at a time: a long with any high bit set has a non-ASCII byte.
        for (; i + 8 <= to; i += 8) {
            if ((Bytes.getLongLE(b, i) & 0x8080808080808080L) != 0) {
                return false;
            }
        }
        for (; i < to; i++) {
            if (b[i] < 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * The UTF-8 length of {@code s}, or -1 - (index of the first lone surrogate) if it has one.
     */
    static long encodedLength(String s) {
        int n = s.length();
        long bytes = n;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x80) {
                if (c < 0x800) {
                    bytes += 1;
                } else if (Character.isSurrogate(c)) {
                    if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                        bytes += 2; // two chars, four bytes
                        i++;
                    } else {
                        return -1L - i;
                    }
                } else {
                    bytes += 2;
                }
            }
        }
        return bytes;
    }

    /**
     * The UTF-8 length of {@code s} as a msgpack str.
     *
     * @throws SerializationException if {@code s} has a lone surrogate or does not fit in one array
     */
    static int strLength(String s) {
        long length = encodedLength(s);
        if (length < 0) {
            throw new SerializationException("string is not valid Unicode text (lone surrogate at index " + (-1 - length)
                    + ") and cannot be sent as a msgpack str");
        }
        if (length > Integer.MAX_VALUE - 16) {
            throw new SerializationException("a string of " + length + " UTF-8 bytes does not fit in one Java array");
        }
        return (int) length;
    }

    /**
     * The chars of a string of at most 8 chars as one little-endian word of ASCII bytes (char
     * {@code i} in byte {@code i}, zeros after), or -1 when one of them is not ASCII (a word of
     * ASCII bytes is never negative). Read without a loop: for 2 to 8 chars a loop's set-up costs
     * more than its passes (measured: 10,000 strings of 2 to 5 chars written in 42 to 46 us
     * against 51 with a loop), and the word is stored at once.
     */
    static long asciiWord(String s, int n) {
        int seen = 0;
        long word = 0;
        char c;
        switch (n) {
            case 8:
                c = s.charAt(7);
                seen |= c;
                word |= (long) c << 56;
            case 7:
                c = s.charAt(6);
                seen |= c;
                word |= (long) c << 48;
            case 6:
                c = s.charAt(5);
                seen |= c;
                word |= (long) c << 40;
            case 5:
                c = s.charAt(4);
                seen |= c;
                word |= (long) c << 32;
            case 4:
                c = s.charAt(3);
                seen |= c;
                word |= (long) c << 24;
            case 3:
                c = s.charAt(2);
                seen |= c;
                word |= (long) c << 16;
            case 2:
                c = s.charAt(1);
                seen |= c;
                word |= (long) c << 8;
            case 1:
                c = s.charAt(0);
                seen |= c;
                word |= c;
            default:
                break;
        }
        return seen < 0x80 ? word : -1L;
    }

    /** Copies the {@code n} chars of {@code s} to {@code b[at, at + n)} when they are all ASCII; false (bytes written so far are garbage) when one is not. */
    static boolean putAscii(String s, int n, byte[] b, int at) {
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x80) {
                return false;
            }
            b[at + i] = (byte) c;
        }
        return true;
    }

    /** Encodes {@code s} (already checked by {@link #encodedLength}) at {@code b[at]}; returns the end. */
    static int encode(String s, byte[] b, int at) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                b[at++] = (byte) c;
            } else if (c < 0x800) {
                b[at++] = (byte) (0xc0 | (c >> 6));
                b[at++] = (byte) (0x80 | (c & 0x3f));
            } else if (Character.isHighSurrogate(c)) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                b[at++] = (byte) (0xf0 | (cp >> 18));
                b[at++] = (byte) (0x80 | ((cp >> 12) & 0x3f));
                b[at++] = (byte) (0x80 | ((cp >> 6) & 0x3f));
                b[at++] = (byte) (0x80 | (cp & 0x3f));
            } else {
                b[at++] = (byte) (0xe0 | (c >> 12));
                b[at++] = (byte) (0x80 | ((c >> 6) & 0x3f));
                b[at++] = (byte) (0x80 | (c & 0x3f));
            }
        }
        return at;
    }

    /**
     * Decodes {@code b[from, from + length)} as strict UTF-8.
     *
     * @return the text, or null if the bytes are not well-formed UTF-8
     */
    static String decode(byte[] b, int from, int length) {
        if (isAscii(b, from, from + length)) {
            return latin1(b, from, length);
        }
        return decodeNonAscii(b, from, length);
    }

    /**
     * The Latin-1 text of {@code b[from, from + length)} (the caller has checked that it is
     * ASCII): with compact strings, one copy of the bytes. Measured faster than the
     * {@code ISO_8859_1} and {@code UTF_8} constructors and than a char array compressed.
     */
    @SuppressWarnings("deprecation") // String(byte[], int hibyte, ...): the shortest way to a Latin-1 string
    static String latin1(byte[] b, int from, int length) {
        return new String(b, 0, from, length);
    }

    /** The longest text {@link #shortAscii} makes from its chars (longer text: {@link #latin1}). */
    static final int SHORT_ASCII = 6;

    /**
     * The text of {@code b[from, from + n)}, ASCII bytes (the caller has checked), made without
     * an array copy when {@code n} is at most {@link #SHORT_ASCII}: by string concatenation of
     * the chars, which the JDK compiles into one new Latin-1 array written byte by byte and a
     * String around it, where {@link #latin1} (every public byte-array constructor) copies the
     * bytes through {@code Arrays.copyOfRange}, whose array-copy call costs more than the copy
     * of a few bytes (measured in a loop making 1,000 strings: 2 to 4 chars 7.1 against 10.4
     * us, 5 to 7 chars 9.6 against 10.6; 6 to 8 chars 9.9 against 9.3). Longer text: {@link #latin1}.
     */
    static String shortAscii(byte[] b, int from, int n) {
        // Each byte masked to 7 bits (the caller checked they are ASCII): the JIT then knows every
        // char fits Latin-1 and drops the concatenation's per-char check of the string's coder.
        switch (n) {
            case 0:
                return "";
            case 1:
                return String.valueOf((char) (b[from] & 0x7f));
            case 2:
                return "" + (char) (b[from] & 0x7f) + (char) (b[from + 1] & 0x7f);
            case 3:
                return "" + (char) (b[from] & 0x7f) + (char) (b[from + 1] & 0x7f) + (char) (b[from + 2] & 0x7f);
            case 4:
                return "" + (char) (b[from] & 0x7f) + (char) (b[from + 1] & 0x7f) + (char) (b[from + 2] & 0x7f)
                        + (char) (b[from + 3] & 0x7f);
            case 5:
                return "" + (char) (b[from] & 0x7f) + (char) (b[from + 1] & 0x7f) + (char) (b[from + 2] & 0x7f)
                        + (char) (b[from + 3] & 0x7f) + (char) (b[from + 4] & 0x7f);
            case 6:
                return "" + (char) (b[from] & 0x7f) + (char) (b[from + 1] & 0x7f) + (char) (b[from + 2] & 0x7f)
                        + (char) (b[from + 3] & 0x7f) + (char) (b[from + 4] & 0x7f) + (char) (b[from + 5] & 0x7f);
            default:
                return latin1(b, from, n);
        }
    }

    /**
     * {@link #decode} of text that is not all ASCII. Apart, so that the ASCII case is small
     * enough to inline where strings are read in a loop (measured: one call less per str).
     */
    private static String decodeNonAscii(byte[] b, int from, int length) {
        int end = from + length;
        char[] out = new char[length];
        int n = 0;
        int i = from;
        while (i < end) {
            int b0 = b[i] & 0xff;
            if (b0 < 0x80) {
                out[n++] = (char) b0;
                i++;
                continue;
            }
            int need;
            int cp;
            int lo = 0x80;
            int hi = 0xbf;
            if (b0 >= 0xc2 && b0 <= 0xdf) {
                need = 1;
                cp = b0 & 0x1f;
            } else if (b0 >= 0xe0 && b0 <= 0xef) {
                need = 2;
                cp = b0 & 0x0f;
                if (b0 == 0xe0) {
                    lo = 0xa0; // no overlong forms
                } else if (b0 == 0xed) {
                    hi = 0x9f; // no surrogates
                }
            } else if (b0 >= 0xf0 && b0 <= 0xf4) {
                need = 3;
                cp = b0 & 0x07;
                if (b0 == 0xf0) {
                    lo = 0x90; // no overlong forms
                } else if (b0 == 0xf4) {
                    hi = 0x8f; // nothing above U+10FFFF
                }
            } else {
                return null;
            }
            if (i + need >= end) {
                return null; // truncated
            }
            for (int k = 1; k <= need; k++) {
                int bk = b[i + k] & 0xff;
                if (bk < lo || bk > hi) {
                    return null;
                }
                lo = 0x80;
                hi = 0xbf;
                cp = (cp << 6) | (bk & 0x3f);
            }
            i += need + 1;
            if (cp >= 0x10000) {
                out[n++] = Character.highSurrogate(cp);
                out[n++] = Character.lowSurrogate(cp);
            } else {
                out[n++] = (char) cp;
            }
        }
        return new String(out, 0, n);
    }
}
