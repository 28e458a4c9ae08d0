package serreg.structs;

import serreg.InBandReader;
import serreg.MsgpackSerializer;
import serreg.SerializerRegistry;

/**
 * The base of the serializers whose values are struct instances: inside msgpack documents the
 * registry writes their values as ext 1 (docs/FORMAT.md section 10.3) holding what
 * {@link #write} writes, the instance array; at the top level that array follows the value's
 * ClassIDHash, after the frame's struct table.
 *
 * @param <T> the values' type
 */
public abstract class InstanceSerializer<T> extends MsgpackSerializer<T> {
    /**
     * A serializer on {@code registry}.
     *
     * @param registry the registry it belongs to
     */
    protected InstanceSerializer(SerializerRegistry registry) {
        super(registry);
    }

    @Override
    @SuppressWarnings("unchecked")
    protected T read(InBandReader in) {
        return (T) StructFrames.readInstance(in);
    }
}
