package serreg.structs;

import java.util.List;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.Serializer;
import serreg.SerializerRegistry;
import serreg.StructSupport;

/** The {@link StructSupport.Provider} of this package, found through {@link java.util.ServiceLoader}. */
public final class StructSupportProvider implements StructSupport.Provider {
    /** Made by {@link java.util.ServiceLoader}. */
    public StructSupportProvider() {
    }

    @Override
    public StructSupport create(SerializerRegistry registry) {
        return new StructRegistry(registry);
    }

    @Override
    public Object readInstance(InBandReader in) {
        return StructFrames.readInstance(in);
    }

    @Override
    public List<Object> readInstances(InBandReader in) {
        return StructFrames.readInstances(in);
    }

    @Override
    public boolean writeStructList(List<?> list, InBandWriter out) {
        return ColumnWriter.write(list, out, (StructRegistry) out.registry().structs());
    }

    @Override
    public StructSupport.Table openTable(List<byte[]> order) {
        return order == null ? ThreadTables.current().lazy.open() : StructFrames.begin(order);
    }

    @Override
    public boolean writesInstances(Serializer<?> serializer) {
        return serializer instanceof InstanceSerializer;
    }
}
