/**
 * numpy arrays and scalars (docs/FORMAT.md sections 6.2 and 6.3) on the carrier classes of
 * {@code serreg.types}; no numpy-like Java library is needed. Registered by
 * {@link serreg.numpy.NumpySerializers}, a {@link serreg.SerializerModule} of serreg-core.
 */
package serreg.numpy;
