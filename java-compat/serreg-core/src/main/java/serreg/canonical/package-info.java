/**
 * The canonical form of docs/FORMAT.md section 9: the rules for the standard and numpy types, and
 * the float rule shared with Arrow. Other types are asked through
 * {@link serreg.Serializer#serializeCanonical}. Used by {@link serreg.Serreg}. The twin of
 * Python's {@code serreg.canonical}.
 */
package serreg.canonical;
