/**
 * Cross-language structs (docs/FORMAT.md section 10), the twin of Python's {@code serreg.structs}:
 * {@code registry.registerStruct(Point.class, "example.Point")} makes a record's or a plain
 * class's fields its serializer. A frame carries each definition once, in a table in front of
 * its value ({@code serreg.structs}); each instance is a msgpack ext 1 of its definition's index
 * and its field values. Unknown class IDs decode to {@link serreg.structs.StructValue}, which
 * writes back the bytes it came from.
 */
package serreg.structs;
