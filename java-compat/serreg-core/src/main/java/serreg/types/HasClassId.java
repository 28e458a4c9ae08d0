package serreg.types;

/**
 * A value that names the class ID it is serialized under, for Java classes that stand for
 * several wire types (a {@link NumpyScalar} is {@code numpy.int64}, {@code numpy.float16}, ...).
 */
public interface HasClassId {
    String classId();
}
