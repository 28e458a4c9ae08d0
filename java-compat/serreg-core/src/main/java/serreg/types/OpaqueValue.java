package serreg.types;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import serreg.OpaqueValueException;
import serreg.SerializationResult;
import serreg.wire.ClassIdHash;

/**
 * A value Java cannot read (the Python fallback {@code serreg.pickle5}, or a class ID with no
 * serializer here), kept byte-identical: its serializer in-band and its OOB buffers, as views of
 * the frame it came from. Serializing it writes exactly those bytes back under the same
 * ClassIDHash. {@link #contents()} throws an error naming the class ID.
 */
public final class OpaqueValue {
    private final ClassIdHash classIdHash;
    private final String classId;
    private final ByteBuffer inBand;
    private final List<ByteBuffer> outOfBand;

    private OpaqueValue(ClassIdHash classIdHash, String classId, ByteBuffer inBand, List<ByteBuffer> outOfBand) {
        this.classIdHash = Objects.requireNonNull(classIdHash);
        this.classId = classId;
        this.inBand = inBand.slice();
        this.outOfBand = outOfBand.stream().map(ByteBuffer::slice).toList();
    }

    /** A value under a class ID this process knows (e.g. {@code serreg.pickle5}) but cannot read. */
    public static OpaqueValue of(String classId, ByteBuffer inBand, List<ByteBuffer> outOfBand) {
        return new OpaqueValue(ClassIdHash.of(classId), classId, inBand, outOfBand);
    }

    /** A value under a ClassIDHash no serializer here is registered for. */
    public static OpaqueValue ofUnknown(ClassIdHash hash, ByteBuffer inBand, List<ByteBuffer> outOfBand) {
        return new OpaqueValue(hash, null, inBand, outOfBand);
    }

    public ClassIdHash classIdHash() {
        return classIdHash;
    }

    /** The class ID, or null when only its hash is known. */
    public String classId() {
        return classId;
    }

    /** Always throws: an opaque value's contents can only be read by another language. */
    public Object contents() {
        throw new OpaqueValueException("this value has " + describeClass() + ", which Java has no serializer for;"
                + " it can be passed on and sent back unchanged, but not read in Java");
    }

    /** The value's in-band section (ClassIDHash + in-band) and OOB buffers, exactly as received. */
    public SerializationResult toSerializationResult() {
        ByteBuffer section = ByteBuffer.allocate(ClassIdHash.SIZE + inBand.remaining());
        classIdHash.writeTo(section);
        section.put(inBand.duplicate()).flip();
        return new SerializationResult(section, new ArrayList<>(outOfBand));
    }

    /** The serializer in-band bytes (a view). */
    public ByteBuffer inBand() {
        return inBand.duplicate();
    }

    public List<ByteBuffer> outOfBand() {
        return outOfBand.stream().map(ByteBuffer::duplicate).toList();
    }

    private String describeClass() {
        return classId != null ? "class ID '" + classId + "'" : "unknown ClassIDHash " + classIdHash.toHex();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OpaqueValue v && v.classIdHash.equals(classIdHash) && v.inBand.equals(inBand)
                && v.outOfBand.equals(outOfBand);
    }

    @Override
    public int hashCode() {
        return Objects.hash(classIdHash, inBand, outOfBand);
    }

    @Override
    public String toString() {
        return "OpaqueValue(" + describeClass() + ", " + inBand.remaining() + " in-band bytes, "
                + outOfBand.size() + " OOB buffers)";
    }
}
