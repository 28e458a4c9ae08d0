package serreg.structs;

import serreg.InBandWriter;
import serreg.SerializerRegistry;

/** The serializer of one registered struct class: its instance array, field by field. */
final class StructSerializer extends InstanceSerializer<Object> {
    private final StructSchema schema;

    StructSerializer(SerializerRegistry registry, StructSchema schema) {
        super(registry);
        this.schema = schema;
    }

    @Override
    protected void write(Object value, InBandWriter out) {
        schema.write(value, out);
    }
}
