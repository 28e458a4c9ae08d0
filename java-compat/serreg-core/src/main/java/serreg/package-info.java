/**
 * serreg for Java: the public face. {@link serreg.SerializerRegistry} maps class IDs to
 * {@link serreg.Serializer}s and serializes values to {@link serreg.SerializationResult}s and
 * frames (docs/FORMAT.md) and back; {@link serreg.Serreg} gives the canonical form and digest;
 * {@link serreg.Limits} bounds what one frame may cost; the errors all extend
 * {@link serreg.SerregException}. Serializer authors write with {@link serreg.InBandWriter} and
 * read with {@link serreg.InBandReader} (usually through {@link serreg.MsgpackSerializer}), and
 * ship their serializers as a {@link serreg.SerializerModule} found by {@link java.util.ServiceLoader}.
 *
 * <p>Sub-packages by role, as in Python: {@code serreg.wire} (the frame container),
 * {@code serreg.standard} (the standard types), {@code serreg.numpy} (numpy arrays and scalars),
 * {@code serreg.canonical} (the canonical form), {@code serreg.types} (value classes with no
 * plain Java counterpart); Arrow is {@code serreg.arrow}, in the serreg-arrow artifact. The
 * registry's parts (registration table, value encoder and decoder, module discovery) are
 * package-private classes of this package.
 */
package serreg;
