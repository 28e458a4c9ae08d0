/**
 * The standard types (docs/FORMAT.md section 6.1): one serializer per class ID, and
 * {@link serreg.standard.StandardSerializers}, the one table of them and the
 * {@link serreg.SerializerModule} that registers them. The twin of Python's {@code serreg.standard}.
 */
package serreg.standard;
