/**
 * Arrow tables and record batches (docs/FORMAT.md sections 6.4 and 9.5) on Arrow Java: the
 * serializers, the checks every batch passes before Arrow loads it, the canonical writer, and
 * {@link serreg.arrow.ArrowSerializers}, the {@link serreg.SerializerModule} that registers them
 * whenever the serreg-arrow artifact is on the class path. Arrow memory is touched first when
 * an Arrow value is read or written.
 */
package serreg.arrow;
