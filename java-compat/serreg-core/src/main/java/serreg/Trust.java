package serreg;

import java.util.Arrays;
import java.util.Collection;
import java.util.Set;
import serreg.wire.ClassIdHash;

/**
 * Untrusted mode: which class IDs may be decoded from bytes of unknown origin (docs/FORMAT.md
 * section 4.4; Python's twin is {@code serreg/trust.py}, with the same meaning and the same
 * default allow-list).
 *
 * <p>Unpickling or importing a module a frame names runs code chosen by whoever wrote the bytes;
 * Java does neither, but keeps such values as {@link serreg.types.OpaqueValue}s that a trusting
 * Python reader would run when they are sent on. So in untrusted mode {@code serreg.pickle5},
 * {@code serreg.pyobjects} and {@code serreg.dataclass} are always refused, and so is every class
 * ID outside the allow-list (unknown ClassIDHashes included), before a serializer sees a byte, at
 * every nesting level. The default allow-list is {@link #dataClassIds()}: the standard data class IDs, whose serializers
 * build plain data and check what they read; a user's class ID is added once its serializer is
 * known to be safe on hostile bytes.
 */
public final class Trust {
    /** The pickle protocol 5 fallback (Python only). */
    public static final String FALLBACK_CLASS_ID = "serreg.pickle5";
    /** Implicit structs (Python only, docs/FORMAT.md 10.9): decoding unpickles their classes. */
    public static final String PYOBJECTS_CLASS_ID = "serreg.pyobjects";
    /** Dataclass instances (Python only): decoding imports the module the frame names. */
    public static final String DATACLASS_CLASS_ID = "serreg.dataclass";
    /** Decoding these runs code the writer chooses; they can never be allowed. */
    public static final Set<String> CODE_LOADING_CLASS_IDS = Set.of(FALLBACK_CLASS_ID, PYOBJECTS_CLASS_ID,
            DATACLASS_CLASS_ID);

    private static final Set<String> DATA_CLASS_IDS = Set.of(
            // section 6.1: plain data every implementation reads
            "None", "bool", "int", "float", "str", "bytes", "list", "dict", "tuple", "set", "frozenset",
            "bytearray", "memoryview", "complex", "datetime", "date", "time", "timedelta", "decimal", "uuid",
            "serreg.error",
            // section 10: structs (the struct table and instances; an unknown struct is a StructValue)
            "serreg.struct", "serreg.structs",
            // sections 6.2 and 6.3: numpy
            "numpy.ndarray", "numpy.bool", "numpy.int8", "numpy.int16", "numpy.int32", "numpy.int64",
            "numpy.uint8", "numpy.uint16", "numpy.uint32", "numpy.uint64", "numpy.float16", "numpy.float32",
            "numpy.float64", "numpy.complex64", "numpy.complex128",
            "numpy.datetime64", "numpy.timedelta64", "numpy.bytes_", "numpy.str_", "numpy.void",
            "numpy.ma.MaskedArray",
            // sections 6.4 and 6.5: Arrow, and pandas through Arrow (opaque at the top level in Java)
            "ArrowTable", "ArrowRecordBatch", "ArrowChunkedArray", "ArrowSchema", "ArrowTensor",
            "pandas.DataFrame", "pandas.Series");

    private Trust() {
    }

    /**
     * The standard data class IDs: the default allow-list of untrusted mode (Python's
     * {@code serreg.standard.DATA_CLASS_IDS}).
     *
     * @return an immutable set
     */
    public static Set<String> dataClassIds() {
        return DATA_CLASS_IDS;
    }

    /**
     * Refuses to put a code-loading class ID on an allow-list: untrusted mode exists to keep them out.
     *
     * @param classId the class ID to allow
     * @throws IllegalArgumentException if it is {@code serreg.pickle5}, {@code serreg.pyobjects} or
     *     {@code serreg.dataclass}
     */
    static void checkAllowable(String classId) {
        if (classId == null || classId.isEmpty()) {
            throw new IllegalArgumentException("a class ID is a non-empty string");
        }
        if (CODE_LOADING_CLASS_IDS.contains(classId)) {
            throw new IllegalArgumentException("class ID '" + classId + "' runs code while decoding (it unpickles, or"
                    + " imports a module the frame names); it cannot be allowed in untrusted mode. Deserialize in trusted"
                    + " mode instead, and only frames from a sender you trust (check their signature with a key)");
        }
    }

    /** The sorted ClassIDHashes (as u64 little-endian) that the decoder compares. */
    static long[] allowedHashes(Collection<String> classIds) {
        long[] hashes = classIds.stream().mapToLong(id -> ClassIdHash.of(id).toLong()).toArray();
        Arrays.sort(hashes);
        return hashes;
    }

    static boolean allows(long[] allowed, long hash) {
        return allowed == null || Arrays.binarySearch(allowed, hash) >= 0;
    }

    /** The error for a class ID that untrusted mode does not decode: why, and how to allow it. */
    static UntrustedClassIdException refusal(long hash, String classId, long offset) {
        if (FALLBACK_CLASS_ID.equals(classId)) {
            return new UntrustedClassIdException("the frame holds a pickled value (class ID '" + classId + "'), and this"
                    + " is an untrusted deserialize: a Python reader would run code chosen by whoever wrote the frame when"
                    + " unpickling it, so it is refused. Read it in trusted mode only from a sender you trust (for example"
                    + " after checking its signature with a key)", classId, offset);
        }
        if (PYOBJECTS_CLASS_ID.equals(classId)) {
            return new UntrustedClassIdException("the frame holds Python objects whose classes are pickled (class ID '"
                    + classId + "'), and this is an untrusted deserialize: a Python reader would run code chosen by whoever"
                    + " wrote the frame when unpickling those classes, so it is refused. Read it in trusted mode only from a"
                    + " sender you trust (for example after checking its signature with a key)", classId, offset);
        }
        if (DATACLASS_CLASS_ID.equals(classId)) {
            return new UntrustedClassIdException("the frame holds a '" + classId + "' value, and this is an untrusted"
                    + " deserialize: decoding it imports the module the frame names, which runs that module's code, so it"
                    + " is refused. Read it in trusted mode only from a sender you trust", classId, offset);
        }
        if (classId == null) {
            return new UntrustedClassIdException("ClassIDHash " + ClassIdHash.fromLong(hash).toHex() + " is not on the"
                    + " allow-list for untrusted data (and no serializer is registered for it); register the writer's"
                    + " class ID and allow it with registry.allowClassIds(classId) if its serializer is safe on hostile"
                    + " bytes", null, offset);
        }
        return new UntrustedClassIdException("class ID '" + classId + "' is not on the allow-list for untrusted data;"
                + " if its serializer is safe on hostile bytes (builds plain data, checks every length it reads), allow"
                + " it with registry.allowClassIds(\"" + classId + "\"), or deserialize in trusted mode for a sender you"
                + " trust", classId, offset);
    }
}
