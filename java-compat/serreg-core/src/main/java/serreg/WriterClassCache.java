package serreg;

import serreg.types.HasClassId;

/**
 * The registrations an {@link InBandWriter} met last, by exact class: a document mostly repeats a
 * few classes (a list of records: a map, strings, longs, doubles, lists), so each value costs a
 * compare or two instead of a registry lookup: the class met last, then an open-addressed table
 * on the class's identity hash ({@value #PROBES} slots probed; a class that finds them taken by
 * others replaces its first one). Values that
 * name their own class ID ({@link HasClassId}) are never cached; null's registration is kept
 * apart. The cache lives as long as its pooled writer, across serialize calls on one thread, and
 * empties itself when the registry's registrations change ({@link ValueEncoder#generation}).
 * Package-private; not thread-safe.
 */
final class WriterClassCache {
    private static final int SLOTS = 32;
    private static final int PROBES = 4;

    private final ValueEncoder encoder;
    /** Made at the second class met (a writer of one value, as a set's element, needs none). */
    private Class<?>[] classes;
    private RegistrationTable.Registration[] registrations;
    private Class<?> lastClass;
    private RegistrationTable.Registration lastRegistration;
    private RegistrationTable.Registration nullRegistration;
    /** Whether Strings are written by the writer itself (their registration's form is STR): 0 not known yet, 1 yes, 2 no. */
    private byte strings;
    /** The table's generation the entries were found in. */
    private int generation;

    WriterClassCache(ValueEncoder encoder) {
        this.encoder = encoder;
        this.generation = encoder.generation();
    }

    /** Forgets every entry if the registrations changed since they were found (once per serialize call). */
    void revalidate() {
        int now = encoder.generation();
        if (now != generation) {
            classes = null;
            registrations = null;
            lastClass = null;
            lastRegistration = null;
            nullRegistration = null;
            strings = 0;
            generation = now;
        }
    }

    /**
     * Whether a String is written in the writer's own form (its registration's form is STR, as
     * with the standard serializers): then a String needs no lookup at all, and map keys, mostly
     * Strings, leave the last class met to the values.
     */
    boolean stringsInline() {
        byte known = strings;
        if (known == 0) {
            known = strings = encoder.registrationFor("").form() == InlineSerializer.Form.STR ? (byte) 1 : (byte) 2;
        }
        return known == 1;
    }

    /** The registration {@code value} is written with (see {@link RegistrationTable#forValue}). */
    RegistrationTable.Registration forValue(Object value) {
        if (value != null && value.getClass() == lastClass) {
            return lastRegistration;
        }
        return lookUp(value);
    }

    /** The registration of a value whose class is not the last one met (apart, so that {@link #forValue} inlines). */
    private RegistrationTable.Registration lookUp(Object value) {
        if (value == null) {
            RegistrationTable.Registration r = nullRegistration;
            return r != null ? r : (nullRegistration = encoder.registrationFor(null));
        }
        Class<?> cls = value.getClass();
        Class<?>[] known = classes;
        int home = slot(cls);
        if (known != null) {
            for (int i = 0; i < PROBES; i++) {
                int slot = (home + i) & (SLOTS - 1);
                Class<?> k = known[slot];
                if (k == cls) {
                    lastClass = cls;
                    return lastRegistration = registrations[slot];
                }
                if (k == null) {
                    break;
                }
            }
        }
        RegistrationTable.Registration found = encoder.registrationFor(value);
        if (!(value instanceof HasClassId)) {
            if (known == null && lastClass != null) {
                known = classes = new Class<?>[SLOTS];
                registrations = new RegistrationTable.Registration[SLOTS];
                put(lastClass, lastRegistration);
            }
            if (known != null) {
                put(cls, found);
            }
            lastClass = cls;
            lastRegistration = found;
        }
        return found;
    }

    private void put(Class<?> cls, RegistrationTable.Registration registration) {
        int home = slot(cls);
        int at = home;
        for (int i = 0; i < PROBES; i++) {
            int slot = (home + i) & (SLOTS - 1);
            if (classes[slot] == null) {
                at = slot;
                break;
            }
        }
        classes[at] = cls;
        registrations[at] = registration;
    }

    private static int slot(Class<?> cls) {
        int h = cls.hashCode();
        return (h ^ (h >>> 7)) & (SLOTS - 1);
    }
}
