/**
 * {@link StructValue}: the data carrier of a struct whose class ID this
 * registry has not registered (docs/FORMAT.md 10.4), the twin of Python's and
 * Java's `serreg.structs.StructValue`. It keeps the definition it was read with
 * and its field values in that order, so serializing it again gives the bytes
 * it came from: a relay never needs the class. Read fields by name with
 * `get(name)` or `fields`.
 */
import type { FieldType } from "./fieldTypes.js";

export class StructValue {
  /** @internal Made by the struct table reader. */
  constructor(
    readonly classId: string,
    readonly fieldNames: readonly string[],
    readonly values: readonly unknown[],
    /** The packed definition it was read with (written back as is). */
    readonly definition: Uint8Array,
    /** The writer's field types, in order. */
    readonly types: readonly FieldType[],
  ) {
    Object.freeze(this);
  }

  /** Field name -> value, in the definition's order. */
  get fields(): Map<string, unknown> {
    return new Map(this.fieldNames.map((name, i) => [name, this.values[i]]));
  }

  /** The value of field `name`; RangeError if the struct has no such field. */
  get(name: string): unknown {
    const i = this.fieldNames.indexOf(name);
    if (i < 0) throw new RangeError(`struct '${this.classId}' has no field '${name}' (fields: ${this.fieldNames.join(", ")})`);
    return this.values[i];
  }

  toString(): string {
    return `StructValue(${this.classId}: ${this.fieldNames.map((n, i) => `${n}=${String(this.values[i])}`).join(", ")})`;
  }
}
