/**
 * Declaring structs in TypeScript (docs/FORMAT.md section 10): {@link defineStruct}
 * makes a class from a class ID and its fields, typed from them; the option and
 * check types of `registry.registerStruct` for classes you already have live here too.
 *
 *     const Point = defineStruct("example.Point", { x: "int64", y: "int64", label: t.optional("str") });
 *     type Point = InstanceType<typeof Point>;      // { x: number; y: number; label: string | null }
 *     registry.registerStruct(Point);
 *     registry.serialize(new Point({ x: 1, y: 2, label: null }));
 */
import type { Fields, StructOf } from "./fieldTypes.js";

/** Options of `registerStruct` and `defineStruct`. */
export interface StructOptions<F extends Fields> {
  /** Values (or functions making them) for fields a writer's definition lacks (docs/FORMAT.md 10.4). */
  defaults?: { [K in keyof F]?: StructOf<F>[K] | (() => StructOf<F>[K]) };
}

/** Each declared field must be a property of `T` that its read value fits (a compile-time check). */
export type FieldsFitting<T, F extends Fields> = {
  [K in keyof F]: K extends keyof T ? (StructOf<F>[K] extends T[K] ? F[K] : never) : never;
};

/** A class made by {@link defineStruct}: `new Point({ x, y })`, with its class ID and fields attached. */
export interface DefinedStruct<F extends Fields> {
  new (init: StructOf<F>): StructOf<F>;
  readonly classId: string;
  readonly fields: F;
  readonly defaults: Readonly<Record<string, unknown>>;
}

/** A struct class of these fields under `classId` (register it with `registry.registerStruct(cls)`). */
export function defineStruct<F extends Fields>(classId: string, fields: F, options: StructOptions<F> = {}): DefinedStruct<F> {
  if (typeof classId !== "string" || !classId) throw new TypeError("defineStruct needs a non-empty class ID");
  const names = Object.freeze(Object.keys(fields));
  const defined = class {
    constructor(init: StructOf<F>) {
      if (init === null || typeof init !== "object") throw new TypeError(`new ${classId}(init): init is an object of the fields ${names.join(", ")}`);
      for (const name of names) {
        Object.defineProperty(this, name, { value: (init as Record<string, unknown>)[name] ?? null, writable: true, enumerable: true, configurable: true });
      }
    }
  };
  Object.defineProperty(defined, "name", { value: classId.slice(classId.lastIndexOf(".") + 1) || classId });
  Object.defineProperties(defined, {
    classId: { value: classId },
    fields: { value: Object.freeze({ ...fields }) },
    defaults: { value: Object.freeze({ ...(options.defaults ?? {}) }) },
  });
  return defined as unknown as DefinedStruct<F>;
}
