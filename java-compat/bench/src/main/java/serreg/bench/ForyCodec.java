package serreg.bench;

import example.Point;
import org.apache.fory.Fory;
import org.apache.fory.config.Language;
import org.apache.fory.logging.LoggerFactory;

/**
 * Apache Fory 0.13.1, in xlang (cross-language) mode or in its native Java mode, with class
 * registration required (Point registered; its JIT-generated serializer) and reference tracking
 * off (none of the payloads shares objects): the configuration a performance-minded user picks.
 * {@code serialize(Object)} returns a fresh byte[] (Fory reuses its internal buffer and copies
 * out), {@code deserialize(byte[])} reads it.
 */
final class ForyCodec implements Codec {
    static {
        LoggerFactory.disableLogging(); // its INFO lines ("Created new fory") would fill the report
    }

    private final Fory fory;

    private ForyCodec(Language language) {
        fory = Fory.builder().withLanguage(language).withRefTracking(false).requireClassRegistration(true)
                .suppressClassRegistrationWarnings(true).build();
        if (language == Language.XLANG) {
            fory.register(Point.class, "example.Point");
            fory.register(StructPoint.class, "bench.Point");
            fory.register(StructReading.class, "bench.Reading");
            fory.register(StructLabelPoint.class, "bench.LabelPoint");
        } else {
            fory.register(Point.class);
            fory.register(StructPoint.class);
            fory.register(StructReading.class);
            fory.register(StructLabelPoint.class);
        }
    }

    static ForyCodec xlang() {
        return new ForyCodec(Language.XLANG);
    }

    static ForyCodec java() {
        return new ForyCodec(Language.JAVA);
    }

    @Override
    public Object adapt(String payload, Object value) {
        return value;
    }

    @Override
    public byte[] encode(Object value) {
        return fory.serialize(value);
    }

    @Override
    public Object decode(byte[] frame) {
        return fory.deserialize(frame);
    }
}
