package serreg.standard;

import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.Temporal;
import serreg.DeserializationException;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.MsgpackSerializer;
import serreg.SerializationException;
import serreg.SerializerRegistry;

/**
 * Class ID {@code time}: array [hour, minute, second, microsecond, fold, tz]. Naive to
 * {@link LocalTime}, fixed offset to {@link OffsetTime}; a time with an IANA zone has no Java
 * counterpart and is refused. Java always writes fold 0.
 */
public final class TimeSerializer extends MsgpackSerializer<Temporal> {
    public TimeSerializer(SerializerRegistry registry) {
        super(registry);
    }

    @Override
    protected void write(Temporal value, InBandWriter out) {
        LocalTime local;
        ZoneOffset offset;
        if (value instanceof LocalTime l) {
            local = l;
            offset = null;
        } else if (value instanceof OffsetTime o) {
            local = o.toLocalTime();
            offset = o.getOffset();
        } else {
            throw new SerializationException("time is a LocalTime or OffsetTime, not " + value.getClass().getName());
        }
        out.writeArrayHeader(6).writeLong(local.getHour()).writeLong(local.getMinute()).writeLong(local.getSecond())
                .writeLong(TimeFields.microsOf(local.getNano(), value)).writeLong(0);
        TimeFields.writeTz(offset, out);
    }

    @Override
    protected Temporal read(InBandReader in) {
        in.readArrayHeader(6, "time in-band");
        int hour = TimeFields.readInt(in, 0, 23, "hour");
        int minute = TimeFields.readInt(in, 0, 59, "minute");
        int second = TimeFields.readInt(in, 0, 59, "second");
        int micro = TimeFields.readInt(in, 0, 999_999, "microsecond");
        TimeFields.readInt(in, 0, 1, "fold");
        long at = in.offset();
        ZoneId zone = TimeFields.readTz(in);
        LocalTime local = LocalTime.of(hour, minute, second, micro * 1000);
        if (zone == null) {
            return local;
        }
        if (zone instanceof ZoneOffset offset) {
            return OffsetTime.of(local, offset);
        }
        throw new DeserializationException("a time with zone '" + zone + "' has no java.time counterpart", at);
    }
}
