package serreg.standard;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import serreg.InBandReader;
import serreg.InBandWriter;
import serreg.KeyCollisionGuard;
import serreg.MsgpackSerializer;
import serreg.SerializationResult;
import serreg.SerializerRegistry;
import serreg.types.FrozenSet;

/**
 * Class IDs {@code set} ({@code java.util.Set}, decoded as {@code LinkedHashSet}) and
 * {@code frozenset} ({@link FrozenSet}): a msgpack array of the elements sorted by their encoded
 * msgpack bytes, unsigned and shorter-first, so the bytes do not depend on iteration order.
 * Each element's OOB buffers move with it in the sorted order.
 */
public final class SetSerializer<S> extends MsgpackSerializer<S> {
    private record Encoded(byte[] msgpack, List<ByteBuffer> outOfBand) {
    }

    private final Function<S, Collection<?>> elements;
    private final Function<Set<Object>, S> build;

    private SetSerializer(SerializerRegistry registry, Function<S, Collection<?>> elements, Function<Set<Object>, S> build) {
        super(registry);
        this.elements = elements;
        this.build = build;
    }

    public static SetSerializer<Set<?>> forSet(SerializerRegistry registry) {
        return new SetSerializer<>(registry, s -> s, s -> s);
    }

    public static SetSerializer<FrozenSet> forFrozenSet(SerializerRegistry registry) {
        return new SetSerializer<>(registry, FrozenSet::items, FrozenSet::copyOf);
    }

    @Override
    protected void write(S value, InBandWriter out) {
        List<Encoded> encoded = new ArrayList<>();
        for (Object element : elements.apply(value)) {
            SerializationResult r = new InBandWriter(registry).writeValue(element).finish();
            ByteBuffer bytes = r.inBand();
            byte[] array = new byte[bytes.remaining()];
            bytes.get(array);
            encoded.add(new Encoded(array, r.outOfBand()));
        }
        encoded.sort(Comparator.comparing(Encoded::msgpack, Arrays::compareUnsigned));
        out.writeArrayHeader(encoded.size());
        for (Encoded e : encoded) {
            out.writeEncoded(e.msgpack());
            e.outOfBand().forEach(out::addOutOfBand);
        }
    }

    @Override
    protected S read(InBandReader in) {
        long at = in.offset();
        int n = in.openArray();
        Set<Object> set = new LinkedHashSet<>();
        KeyCollisionGuard guard = new KeyCollisionGuard(n, "set", at);
        for (int i = 0; i < n; i++) {
            guard.add(set, in.readValue());
        }
        in.closeContainer();
        return build.apply(set);
    }
}
