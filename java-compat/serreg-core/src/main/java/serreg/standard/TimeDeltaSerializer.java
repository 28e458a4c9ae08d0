package serreg.standard;

import java.time.Duration;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.MsgpackSerializer;
import serreg.SerializationException;
import serreg.SerializerRegistry;

/**
 * Class ID {@code timedelta}: {@link Duration}, array [days, seconds, microseconds] in Python's
 * normalized form ({@code 0 <= seconds < 86400}, {@code 0 <= microseconds < 10^6}, days may be negative).
 */
public final class TimeDeltaSerializer extends MsgpackSerializer<Duration> {
    private static final long MAX_DAYS = 999_999_999L;

    public TimeDeltaSerializer(SerializerRegistry registry) {
        super(registry);
    }

    @Override
    protected void write(Duration value, InBandWriter out) {
        long days = Math.floorDiv(value.getSeconds(), 86_400L);
        if (Math.abs(days) > MAX_DAYS) {
            throw new SerializationException(value + " is outside Python's timedelta range of 999999999 days");
        }
        out.writeArrayHeader(3).writeLong(days).writeLong(Math.floorMod(value.getSeconds(), 86_400L))
                .writeLong(TimeFields.microsOf(value.getNano(), value));
    }

    @Override
    protected Duration read(InBandReader in) {
        in.readArrayHeader(3, "timedelta in-band");
        long days = in.readLong(-MAX_DAYS, MAX_DAYS, "days");
        long seconds = in.readLong(0, 86_399, "seconds");
        long micros = in.readLong(0, 999_999, "microseconds");
        return Duration.ofDays(days).plusSeconds(seconds).plusNanos(micros * 1000);
    }
}
