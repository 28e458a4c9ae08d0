package serreg.structs;

import serreg.InBandReader;
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
}
