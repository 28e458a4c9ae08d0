package serreg.numpy;

import java.util.function.BiConsumer;
import java.util.function.Function;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.MsgpackSerializer;
import serreg.SerializerRegistry;

/** One numpy scalar class ID (docs/FORMAT.md section 6.3), written and read by two small functions. */
final class ScalarSerializer<T> extends MsgpackSerializer<T> {
    private final BiConsumer<T, InBandWriter> writer;
    private final Function<InBandReader, T> reader;

    ScalarSerializer(SerializerRegistry registry, BiConsumer<T, InBandWriter> writer, Function<InBandReader, T> reader) {
        super(registry);
        this.writer = writer;
        this.reader = reader;
    }

    @Override
    protected void write(T value, InBandWriter out) {
        writer.accept(value, out);
    }

    @Override
    protected T read(InBandReader in) {
        return reader.apply(in);
    }
}
