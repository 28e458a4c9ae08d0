package serreg.standard;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZonedDateTime;
import java.time.temporal.Temporal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import serreg.RemoteException;
import serreg.SerializerModule;
import serreg.SerializerRegistry;
import serreg.structs.CarrierSerializer;
import serreg.structs.StructValue;
import serreg.structs.TableSerializer;
import serreg.types.Complex;
import serreg.types.FrozenSet;
import serreg.types.OpaqueValue;
import serreg.types.PyByteArray;
import serreg.types.PyMemoryView;
import serreg.types.SpecialDecimal;
import serreg.types.Tuple;

/**
 * The standard types: the core class IDs of docs/FORMAT.md section 6.1 with their Java classes
 * (section 7). The one table of them in Java (Python's twin: {@code serreg/standard/__init__.py}).
 * A {@link SerializerModule} found through {@code META-INF/services}, registered first.
 */
public final class StandardSerializers implements SerializerModule {
    /** Found by {@link java.util.ServiceLoader}; {@code registry.registerModule(new StandardSerializers())} by hand. */
    public StandardSerializers() {
    }

    @Override
    public String name() {
        return "serreg.standard";
    }

    /** Before every other module, so that any of them may rebind a standard class. */
    @Override
    public int order() {
        return -200;
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public void register(SerializerRegistry r) {
        r.registerSerializer("None", Void.class, new NoneSerializer(r));
        r.registerSerializer("bool", Boolean.class, new BoolSerializer(r));
        r.registerSerializer("int", new IntSerializer(r), List.<Class<? extends Number>>of(Long.class, BigInteger.class));
        r.registerSerializer("float", Double.class, new FloatSerializer(r));
        r.registerSerializer("str", String.class, new StrSerializer(r));
        r.registerSerializer("bytes", byte[].class, new BytesSerializer(r));
        r.registerSerializer("list", (serreg.Serializer) new ListSerializer(r), (List) List.of(ArrayList.class, List.class));
        r.registerSerializer("dict", (serreg.Serializer) new DictSerializer(r), (List) List.of(LinkedHashMap.class, Map.class));
        r.registerSerializer("tuple", Tuple.class, new TupleSerializer(r));
        r.registerSerializer("set", (serreg.Serializer) SetSerializer.forSet(r), (List) List.of(LinkedHashSet.class, Set.class));
        r.registerSerializer("frozenset", FrozenSet.class, SetSerializer.forFrozenSet(r));
        r.registerSerializer("bytearray", PyByteArray.class, new ByteArraySerializer(r));
        r.registerSerializer("memoryview", PyMemoryView.class, new MemoryViewSerializer(r));
        r.registerSerializer("complex", Complex.class, new ComplexSerializer(r));
        r.registerSerializer("datetime", new DateTimeSerializer(r),
                List.<Class<? extends Temporal>>of(LocalDateTime.class, OffsetDateTime.class, ZonedDateTime.class));
        r.registerSerializer("date", LocalDate.class, new DateSerializer(r));
        r.registerSerializer("time", new TimeSerializer(r), List.<Class<? extends Temporal>>of(LocalTime.class, OffsetTime.class));
        r.registerSerializer("timedelta", Duration.class, new TimeDeltaSerializer(r));
        r.registerSerializer("decimal", new DecimalSerializer(r), List.<Class<?>>of(BigDecimal.class, SpecialDecimal.class));
        r.registerSerializer("uuid", UUID.class, new UuidSerializer(r));
        r.registerSerializer(Pickle5Serializer.CLASS_ID, OpaqueValue.class, new Pickle5Serializer());
        r.registerSerializer("serreg.error", RemoteException.class, new ErrorSerializer(r));
        r.registerSerializer("serreg.struct", StructValue.class, new CarrierSerializer(r));
        r.registerSerializer("serreg.structs", (serreg.Serializer) new TableSerializer(r), (List) List.of(TableSerializer.Marker.class));
    }
}
