package serreg.standard;

import java.math.BigDecimal;
import java.util.Locale;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.LimitExceededException;
import serreg.MsgpackSerializer;
import serreg.SerializationException;
import serreg.SerializerRegistry;
import serreg.types.SpecialDecimal;

/**
 * Class ID {@code decimal}: Python's {@code str(Decimal)}, the General Decimal Arithmetic
 * to-scientific-string, which is also what {@link BigDecimal#toString()} produces. Values a
 * BigDecimal cannot hold (NaN, sNaN, infinities, negative zeros) are {@link SpecialDecimal}.
 */
public final class DecimalSerializer extends MsgpackSerializer<Object> {
    public DecimalSerializer(SerializerRegistry registry) {
        super(registry);
    }

    @Override
    protected void write(Object value, InBandWriter out) {
        if (value instanceof BigDecimal d) {
            out.writeString(d.toString());
        } else if (value instanceof SpecialDecimal s) {
            if (!isSpecial(s.text())) {
                throw new SerializationException("SpecialDecimal '" + s.text() + "' is an ordinary number; use BigDecimal");
            }
            out.writeString(s.text());
        } else {
            throw new SerializationException("decimal is a BigDecimal or SpecialDecimal, not " + value.getClass().getName());
        }
    }

    @Override
    protected Object read(InBandReader in) {
        long at = in.offset();
        String text = in.readString();
        int digits = coefficientDigits(text);
        if (digits > in.limits().maxDecimalDigits()) {
            throw new LimitExceededException("decimal of " + digits + " digits, more than maxDecimalDigits="
                    + in.limits().maxDecimalDigits() + " (BigDecimal parses text in time quadratic in its digits); raise it"
                    + " with Limits.withMaxDecimalDigits(...) if such values are expected", at);
        }
        if (isSpecial(text)) {
            return new SpecialDecimal(text);
        }
        try {
            return new BigDecimal(text);
        } catch (NumberFormatException | ArithmeticException e) {
            throw in.error("'" + text + "' is not a decimal number Java can hold", at);
        }
    }

    /** Digits before the exponent (a NaN's payload included). */
    static int coefficientDigits(String text) {
        int digits = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == 'e' || c == 'E') {
                break;
            }
            if (Character.isDigit(c)) { // BigDecimal takes any Unicode digit
                digits++;
            }
        }
        return digits;
    }

    /** NaN, sNaN, infinities (any sign or payload) and negative zeros. */
    static boolean isSpecial(String text) {
        String lower = text.toLowerCase(Locale.ROOT);
        if (lower.contains("nan") || lower.contains("inf")) {
            return true;
        }
        try {
            return text.startsWith("-") && new BigDecimal(text).signum() == 0;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
