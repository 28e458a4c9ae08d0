package serreg.standard;

import java.time.DateTimeException;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.Temporal;
import serreg.DeserializationException;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.MsgpackSerializer;
import serreg.SerializationException;
import serreg.SerializerRegistry;

/**
 * Class ID {@code datetime}: array [year, month, day, hour, minute, second, microsecond, fold, tz]
 * with local wall-clock fields. Naive to {@link LocalDateTime}, fixed offset to
 * {@link OffsetDateTime}, IANA zone to {@link ZonedDateTime} (fold 1 = the later offset of an
 * overlap). A ZonedDateTime whose zone is a bare offset is written as a fixed offset. A wall time
 * that does not exist in its zone (a DST gap) is refused: ZonedDateTime cannot hold it.
 */
public final class DateTimeSerializer extends MsgpackSerializer<Temporal> {
    public DateTimeSerializer(SerializerRegistry registry) {
        super(registry);
    }

    @Override
    protected void write(Temporal value, InBandWriter out) {
        LocalDateTime local;
        ZoneId zone;
        int fold = 0;
        if (value instanceof LocalDateTime l) {
            local = l;
            zone = null;
        } else if (value instanceof OffsetDateTime o) {
            local = o.toLocalDateTime();
            zone = o.getOffset();
        } else if (value instanceof ZonedDateTime z) {
            local = z.toLocalDateTime();
            zone = z.getZone();
            if (!(zone instanceof ZoneOffset) && !z.withEarlierOffsetAtOverlap().getOffset().equals(z.getOffset())) {
                fold = 1;
            }
        } else {
            throw new SerializationException("datetime is a LocalDateTime, OffsetDateTime or ZonedDateTime, not "
                    + value.getClass().getName());
        }
        out.writeArrayHeader(9)
                .writeLong(TimeFields.checkedYear(local.getYear(), value)).writeLong(local.getMonthValue())
                .writeLong(local.getDayOfMonth()).writeLong(local.getHour()).writeLong(local.getMinute())
                .writeLong(local.getSecond()).writeLong(TimeFields.microsOf(local.getNano(), value)).writeLong(fold);
        TimeFields.writeTz(zone, out);
    }

    @Override
    protected Temporal read(InBandReader in) {
        long at = in.offset();
        in.readArrayHeader(9, "datetime in-band");
        int year = TimeFields.readInt(in, 1, 9999, "year");
        int month = TimeFields.readInt(in, 1, 12, "month");
        int day = TimeFields.readInt(in, 1, 31, "day");
        int hour = TimeFields.readInt(in, 0, 23, "hour");
        int minute = TimeFields.readInt(in, 0, 59, "minute");
        int second = TimeFields.readInt(in, 0, 59, "second");
        int micro = TimeFields.readInt(in, 0, 999_999, "microsecond");
        int fold = TimeFields.readInt(in, 0, 1, "fold");
        ZoneId zone = TimeFields.readTz(in);
        LocalDateTime local;
        try {
            local = LocalDateTime.of(year, month, day, hour, minute, second, micro * 1000);
        } catch (DateTimeException e) {
            throw new DeserializationException("invalid datetime: " + e.getMessage(), at, e);
        }
        if (zone == null) {
            return local;
        }
        if (zone instanceof ZoneOffset offset) {
            return OffsetDateTime.of(local, offset);
        }
        ZonedDateTime zoned = ZonedDateTime.ofLocal(local, zone, null);
        if (!zoned.toLocalDateTime().equals(local)) {
            throw new DeserializationException("wall time " + local + " does not exist in zone " + zone
                    + " (a DST gap); java.time cannot represent it", at);
        }
        return fold == 1 ? zoned.withLaterOffsetAtOverlap() : zoned.withEarlierOffsetAtOverlap();
    }
}
