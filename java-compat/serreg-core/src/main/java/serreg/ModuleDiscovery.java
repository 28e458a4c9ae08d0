package serreg;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * Finds the {@link SerializerModule}s on the class path (or module path) with
 * {@link ServiceLoader}, in the order they register. Package-private: used by the registry's
 * default constructor.
 */
final class ModuleDiscovery {
    private ModuleDiscovery() {
    }

    /** Every module the thread's context class loader (else serreg's own) can see, sorted. */
    static List<SerializerModule> discover() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        if (loader == null) {
            loader = SerializerModule.class.getClassLoader();
        }
        List<SerializerModule> modules = new ArrayList<>();
        try {
            for (SerializerModule module : ServiceLoader.load(SerializerModule.class, loader)) {
                modules.add(module);
            }
        } catch (ServiceConfigurationError e) {
            throw new RegistrationException("a serializer module listed in META-INF/services/"
                    + SerializerModule.class.getName() + " could not be loaded: " + e.getMessage(), e);
        }
        modules.sort(Comparator.comparingInt(SerializerModule::order).thenComparing(SerializerModule::name));
        return modules;
    }
}
