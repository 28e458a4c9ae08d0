/**
 * The container of docs/FORMAT.md sections 2 and 4: ClassIDHash, the frame layout, reading a
 * frame (every rule checked before anything in it is decoded), writing one, and HMAC-SHA256
 * signing. Imports only the errors and {@link serreg.Limits} of the root package. The twin of
 * Python's {@code serreg.wire}.
 */
package serreg.wire;
