package serreg.standard;

import java.time.DateTimeException;
import java.time.ZoneId;
import java.time.ZoneOffset;
import serreg.DeserializationException;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.SerializationException;

/**
 * Shared pieces of the date/time serializers: the {@code tz} field and the microsecond checks.
 * Python keeps microseconds; Java nanoseconds that are not whole microseconds are refused rather
 * than rounded.
 */
final class TimeFields {
    private TimeFields() {
    }

    /** Writes tz: nil, [offset microseconds, nil] for a fixed offset, or the IANA zone key. */
    static void writeTz(ZoneId zone, InBandWriter out) {
        if (zone == null) {
            out.writeNil();
        } else if (zone instanceof ZoneOffset offset) {
            out.writeArrayHeader(2).writeLong(offset.getTotalSeconds() * 1_000_000L).writeNil();
        } else {
            out.writeString(zone.getId());
        }
    }

    /** Reads tz: null (naive), a ZoneOffset, or a region ZoneId. A fixed offset's name is dropped. */
    static ZoneId readTz(InBandReader in) {
        long at = in.offset();
        if (in.tryReadNil()) {
            return null;
        }
        switch (in.nextFormat().getValueType()) {
            case STRING: {
                String key = in.readString();
                try {
                    return ZoneId.of(key);
                } catch (DateTimeException e) {
                    throw new DeserializationException("time zone '" + key + "' is unknown to Java", at, e);
                }
            }
            case ARRAY: {
                in.readArrayHeader(2, "a fixed-offset tz");
                long micros = in.readLong();
                if (!in.tryReadNil()) {
                    in.readString();
                }
                if (micros % 1_000_000L != 0 || Math.abs(micros) > 18L * 3600 * 1_000_000L) {
                    throw new DeserializationException("UTC offset of " + micros
                            + " microseconds is not a whole number of seconds within 18 hours, as java.time needs", at);
                }
                return ZoneOffset.ofTotalSeconds((int) (micros / 1_000_000L));
            }
            default:
                throw new DeserializationException("tz must be nil, [offset, name] or a zone key, found "
                        + in.nextFormat(), at);
        }
    }

    static int microsOf(int nanos, Object value) {
        if (nanos % 1000 != 0) {
            throw new SerializationException(value + " has nanoseconds; Python keeps microseconds only,"
                    + " so truncate it first (e.g. truncatedTo(ChronoUnit.MICROS))");
        }
        return nanos / 1000;
    }

    static int checkedYear(int year, Object value) {
        if (year < 1 || year > 9999) {
            throw new SerializationException(value + ": Python dates have years 1..9999");
        }
        return year;
    }

    static int readInt(InBandReader in, long lo, long hi, String what) {
        return (int) in.readLong(lo, hi, what);
    }
}
