package serreg.standard;

import java.time.DateTimeException;
import java.time.LocalDate;
import serreg.DeserializationException;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.MsgpackSerializer;
import serreg.SerializerRegistry;

/** Class ID {@code date}: {@link LocalDate}, array [year, month, day]. */
public final class DateSerializer extends MsgpackSerializer<LocalDate> {
    public DateSerializer(SerializerRegistry registry) {
        super(registry);
    }

    @Override
    protected void write(LocalDate value, InBandWriter out) {
        out.writeArrayHeader(3).writeLong(TimeFields.checkedYear(value.getYear(), value))
                .writeLong(value.getMonthValue()).writeLong(value.getDayOfMonth());
    }

    @Override
    protected LocalDate read(InBandReader in) {
        long at = in.offset();
        in.readArrayHeader(3, "date in-band");
        int year = TimeFields.readInt(in, 1, 9999, "year");
        int month = TimeFields.readInt(in, 1, 12, "month");
        int day = TimeFields.readInt(in, 1, 31, "day");
        try {
            return LocalDate.of(year, month, day);
        } catch (DateTimeException e) {
            throw new DeserializationException("invalid date: " + e.getMessage(), at, e);
        }
    }
}
