package serreg.arrow;

/**
 * Text the way Python's Arrow checks write it, so that the Java reader's messages about a schema
 * message say the same words as Python's: a name as Python's {@code repr} quotes it, and why bytes
 * are not UTF-8 as Python's strict decoder says it ({@code UnicodeDecodeError.reason}).
 */
final class PythonText {
    private PythonText() {
    }

    /** {@code repr(s)} of a Python str: quotes, and escapes for backslashes, the quote and unprintable characters. */
    static String repr(String s) {
        char quote = s.indexOf('\'') >= 0 && s.indexOf('"') < 0 ? '"' : '\'';
        StringBuilder out = new StringBuilder(s.length() + 2).append(quote);
        s.codePoints().forEach(c -> {
            if (c == quote || c == '\\') {
                out.append('\\').appendCodePoint(c);
            } else if (c == '\t') {
                out.append("\\t");
            } else if (c == '\n') {
                out.append("\\n");
            } else if (c == '\r') {
                out.append("\\r");
            } else if (c >= 0x20 && c < 0x7f || c > 0x7f && printable(c)) {
                out.appendCodePoint(c);
            } else if (c <= 0xff) {
                out.append(String.format("\\x%02x", c));
            } else if (c <= 0xffff) {
                out.append(String.format("\\u%04x", c));
            } else {
                out.append(String.format("\\U%08x", c));
            }
        });
        return out.append(quote).toString();
    }

    /** Python's {@code str.isprintable} of one character beyond ASCII: not a control, format, surrogate, private, unassigned or separator. */
    private static boolean printable(int c) {
        return switch (Character.getType(c)) {
            case Character.CONTROL, Character.FORMAT, Character.SURROGATE, Character.PRIVATE_USE, Character.UNASSIGNED,
                    Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR, Character.SPACE_SEPARATOR -> false;
            default -> true;
        };
    }

    /**
     * Why {@code b} is not UTF-8, in the words of Python's strict decoder ("invalid start byte",
     * "invalid continuation byte", "unexpected end of data"), or null if it is UTF-8.
     */
    static String utf8Problem(byte[] b) {
        int i = 0;
        while (i < b.length) {
            int b0 = b[i] & 0xff;
            if (b0 < 0x80) {
                i++;
                continue;
            }
            int need;
            int lo = 0x80;
            int hi = 0xbf;
            if (b0 >= 0xc2 && b0 <= 0xdf) {
                need = 1;
            } else if (b0 >= 0xe0 && b0 <= 0xef) {
                need = 2;
                lo = b0 == 0xe0 ? 0xa0 : 0x80; // no overlong forms
                hi = b0 == 0xed ? 0x9f : 0xbf; // no surrogates
            } else if (b0 >= 0xf0 && b0 <= 0xf4) {
                need = 3;
                lo = b0 == 0xf0 ? 0x90 : 0x80; // no overlong forms
                hi = b0 == 0xf4 ? 0x8f : 0xbf; // nothing above U+10FFFF
            } else {
                return "invalid start byte";
            }
            for (int k = 1; k <= need; k++) {
                if (i + k >= b.length) {
                    return "unexpected end of data";
                }
                int bk = b[i + k] & 0xff;
                if (bk < lo || bk > hi) {
                    return "invalid continuation byte";
                }
                lo = 0x80;
                hi = 0xbf;
            }
            i += need + 1;
        }
        return null;
    }
}
