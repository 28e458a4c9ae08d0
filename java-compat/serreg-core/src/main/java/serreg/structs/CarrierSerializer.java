package serreg.structs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import serreg.InBandWriter;
import serreg.SerializerRegistry;

/**
 * The data carrier's serializer (class ID {@code serreg.struct}): a {@link StructValue} is written
 * with the definition it was read with and its values checked against that definition's types,
 * so a relay gives back the bytes it received.
 */
public final class CarrierSerializer extends InstanceSerializer<StructValue> {
    private final Map<StructSchema.DefinitionKey, List<Conversions.Writer>> writers = new ConcurrentHashMap<>();

    /**
     * The carrier serializer of {@code registry}.
     *
     * @param registry the registry
     */
    public CarrierSerializer(SerializerRegistry registry) {
        super(registry);
    }

    @Override
    protected void write(StructValue value, InBandWriter out) {
        List<Conversions.Writer> w = writers.computeIfAbsent(new StructSchema.DefinitionKey(value.definition()), k -> {
            List<Conversions.Writer> made = new ArrayList<>();
            for (int i = 0; i < value.types().size(); i++) {
                made.add(FieldWriters.writer(value.types().get(i), null, value.classId() + "." + value.fieldNames().get(i),
                        ((StructRegistry) registry.structs())));
            }
            return made;
        });
        int index = StructFrames.indexOf(value.definition());
        out.writeArrayHeader(w.size() + 1).writeLong(index);
        for (int i = 0; i < w.size(); i++) {
            w.get(i).write(out, value.values().get(i));
        }
    }
}
