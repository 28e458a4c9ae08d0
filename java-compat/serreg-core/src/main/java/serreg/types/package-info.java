/**
 * Value classes for Python types with no plain Java counterpart (docs/FORMAT.md section 7):
 * tuples, frozensets, bytearray and memoryview, complex numbers, unsigned integers, numpy scalars
 * and arrays, decimal specials, and {@link serreg.types.OpaqueValue} for what Java cannot read.
 */
package serreg.types;
