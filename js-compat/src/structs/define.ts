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

type NullableKeys<F extends Fields> = { [K in keyof F]: null extends StructOf<F>[K] ? K : never }[keyof F];
/** What `new` takes: every field, those that may be null (optional, `any`) may be left out. */
export type StructInit<F extends Fields> = Omit<StructOf<F>, NullableKeys<F>> & Partial<Pick<StructOf<F>, NullableKeys<F>>>;

/** A class made by {@link defineStruct}: `new Point({ x, y })`, with its class ID and fields attached. */
export interface DefinedStruct<F extends Fields> {
  new (init: StructInit<F>): StructOf<F>;
  readonly classId: string;
  readonly fields: F;
  readonly defaults: Readonly<Record<string, unknown>>;
}

/** A struct class of these fields under `classId` (register it with `registry.registerStruct(cls)`). */
export function defineStruct<F extends Fields>(classId: string, fields: F, options: StructOptions<F> = {}): DefinedStruct<F> {
  if (typeof classId !== "string" || !classId) throw new TypeError("defineStruct needs a non-empty class ID");
  const names = Object.freeze(Object.keys(fields));
  const defaults: Record<string, unknown> = options.defaults ?? {};
  const defined = class {
    constructor(init: StructInit<F>) {
      if (init === null || typeof init !== "object") throw new TypeError(`new ${classId}(init): init is an object of the fields ${names.join(", ")}`);
      for (const name of names) {
        let value = (init as Record<string, unknown>)[name];
        if (value === undefined && Object.prototype.hasOwnProperty.call(defaults, name)) {
          const given = defaults[name];
          value = typeof given === "function" ? (given as () => unknown)() : given;
        }
        Object.defineProperty(this, name, { value: value ?? null, writable: true, enumerable: true, configurable: true });
      }
    }
  };
  Object.defineProperty(defined, "name", { value: classId.slice(classId.lastIndexOf(".") + 1) || classId });
  Object.defineProperties(defined, {
    classId: { value: classId },
    fields: { value: Object.freeze({ ...fields }) },
    defaults: { value: Object.freeze({ ...defaults }) },
  });
  return defined as unknown as DefinedStruct<F>;
}
