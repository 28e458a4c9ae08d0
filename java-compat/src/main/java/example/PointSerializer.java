package example;

import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.MsgpackSerializer;
import serreg.SerializerRegistry;

/** In-band: msgpack array [x: float 64, y: float 64, label: str], the same bytes the Python twin writes. */
public final class PointSerializer extends MsgpackSerializer<Point> {
    public static final String CLASS_ID = "example.Point";

    public PointSerializer(SerializerRegistry registry) {
        super(registry);
    }

    /** Registers the pair on {@code registry}. */
    public static void register(SerializerRegistry registry) {
        registry.registerSerializer(CLASS_ID, Point.class, new PointSerializer(registry));
    }

    @Override
    protected void write(Point value, InBandWriter out) {
        out.writeArrayHeader(3).writeDouble(value.x()).writeDouble(value.y()).writeString(value.label());
    }

    @Override
    protected Point read(InBandReader in) {
        in.readArrayHeader(3, "example.Point in-band");
        return new Point(in.readDouble(), in.readDouble(), in.readString());
    }
}
