/**
 * `numpy.ndarray` (docs/FORMAT.md, section 6.2) as stdlib ndarrays, and the
 * numpy scalars (section 6.3) as {@link Float32} and {@link NumpyScalar}.
 */
import type { DecodeContext, Encoder } from "../serializer.js";
import { DeserializationError } from "../errors.js";
import { Writer } from "../msgpack/writer.js";
import type { OutOfBand } from "../oob.js";
import type { Registry } from "../registry.js";
import { InlineSerializer, asArray, asFloat, asInt, describe } from "../standard/core.js";
import { Complex, Float32, NumpyScalar, type NumpyScalarName, float32FromBits } from "../types/numbers.js";
import {
  STANDARD_DTYPES, type StdlibNdarray, baseNdarray, isContiguous, isNdarrayLike, itemSize, ndarray, ndarrayFromNumpy,
  numpyDtypeOf, packC,
} from "./ndarray.js";

/** numpy's limit on dimensions; a longer shape is refused before its size is computed. */
export const MAX_DIMENSIONS = 64;

export class NDArraySerializer extends InlineSerializer<StdlibNdarray> {
  matches(value: unknown): boolean {
    return isNdarrayLike(value);
  }

  write(w: Writer, array: StdlibNdarray, context: Encoder): void {
    const { dtype, bytes } = numpyDtypeOf(array);
    const size = itemSize(dtype);
    const shape = [...array.shape];
    const strides = [...array.strides];
    let count = 1;
    for (const n of shape) count *= n;
    const forward = strides.every((s, i) => s >= 0 || shape[i]! <= 1);
    const broadcast = shape.map((n, i) => strides[i] === 0 && n > 1);
    let order: "C" | "F" = "C";
    let byteStrides: number[] | null = null;
    let data: Uint8Array;
    if (forward && (isContiguous(shape, strides, "C") || isContiguous(shape, strides, "F"))) {
      order = isContiguous(shape, strides, "C") ? "C" : "F";
      data = bytes.subarray(array.offset * size, (array.offset + count) * size);
    } else if (count > 0 && broadcast.some((b) => b)) {
      // Stride-0 axes: only the memory that exists (each such axis cut to length 1) and the strides that restore it.
      const core = shape.map((n, i) => (broadcast[i] ? 1 : n));
      data = packC(bytes, size, core, strides, array.offset);
      byteStrides = new Array<number>(shape.length).fill(0);
      let step = size;
      for (let i = shape.length - 1; i >= 0; i--) {
        if (!broadcast[i]) {
          byteStrides[i] = step;
          step *= core[i]!;
        }
      }
    } else {
      data = packC(bytes, size, shape, strides, array.offset); // any other layout: a packed C-order copy
    }
    const readOnly = array.flags?.READONLY === true;
    const extended = byteStrides !== null || readOnly;
    w.arrayHeader(extended ? 5 : 3);
    w.str(dtype);
    w.arrayHeader(shape.length);
    for (const n of shape) w.int(n);
    w.str(order);
    if (extended) {
      if (byteStrides === null) {
        w.nil();
      } else {
        w.arrayHeader(byteStrides.length);
        for (const s of byteStrides) w.int(s);
      }
      w.bool(readOnly);
    }
    context.oob.push(data);
  }

  deserialize(inBand: Uint8Array, oob: OutOfBand, context: DecodeContext, base: number | null): StdlibNdarray {
    const meta = asArray(context.plain(inBand, base), "ndarray");
    if (meta.length !== 3 && meta.length !== 5) {
      throw new DeserializationError(`ndarray in-band must be [dtype, shape, order] or [dtype, shape, order, strides, read_only], got an array of ${meta.length}`);
    }
    const [dtype, shape, order, stridesValue, readOnly] = meta.length === 5 ? meta : [...meta, null, false];
    if (typeof dtype !== "string" || !STANDARD_DTYPES.has(dtype)) throw unsupportedDtype(dtype);
    if (order !== "C" && order !== "F") throw new DeserializationError(`ndarray order must be "C" or "F", got ${describe(order)}`);
    if (typeof readOnly !== "boolean") throw new DeserializationError(`ndarray read_only must be a bool, got ${describe(readOnly)}`);
    const dims = asArray(shape, "ndarray shape");
    if (dims.length > MAX_DIMENSIONS) throw new DeserializationError(`ndarray shape has ${dims.length} dimensions; numpy allows at most ${MAX_DIMENSIONS}`);
    const sizes = dims.map((n) => {
      const v = asInt(n, "an ndarray dimension");
      if (v < 0) throw new DeserializationError(`invalid ndarray dimension ${v}`);
      return v;
    });
    const buffer = oob.take("numpy.ndarray");
    const size = itemSize(dtype);
    checkElementCount(sizes, size, dtype);
    let count = 1;
    for (const n of sizes) count *= n;
    let strides: number[] | null = null;
    let needed = count * size;
    if (stridesValue !== null) {
      const list = asArray(stridesValue, "ndarray strides");
      if (list.length !== sizes.length || order !== "C") throw new DeserializationError(`ndarray strides must be one per dimension, with order "C"`);
      strides = list.map((s) => {
        const v = asInt(s, "an ndarray stride");
        if (v < 0 || v % size !== 0) throw new DeserializationError(`ndarray stride ${v} is negative or not a multiple of the item size ${size} (the TypeScript reader needs whole elements)`);
        return v;
      });
      needed = count === 0 ? 0 : sizes.reduce((sum, n, i) => sum + (n - 1) * strides![i]!, size);
    }
    if (needed !== buffer.length) {
      throw new DeserializationError(`ndarray of shape [${sizes.join(", ")}] and dtype ${dtype} needs ${needed} bytes, but its buffer has ${buffer.length}`);
    }
    return ndarrayFromNumpy(dtype, sizes, order, buffer, strides === null ? null : strides.map((s) => s / size), readOnly);
  }
}

/**
 * A broadcast array (strides of 0) may declare far more elements than its buffer holds; numpy refuses
 * one whose size times its item size is beyond 2^63 - 1 bytes (Python's reader with it), and a JS index
 * reaches 2^53 - 1 elements at most: either is refused here.
 */
function checkElementCount(sizes: number[], size: number, dtype: unknown): void {
  let total = 1n;
  for (const n of sizes) total *= BigInt(n);
  const shape = `[${sizes.join(", ")}]`;
  if (total * BigInt(size) > 2n ** 63n - 1n) {
    throw new DeserializationError(`ndarray of shape ${shape} and dtype ${String(dtype)} is too big: its size times its item size is beyond 2^63 - 1 bytes, numpy's limit`);
  }
  if (total > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new DeserializationError(`ndarray of shape ${shape} holds ${total} elements, more than a JS index reaches (2^53 - 1)`);
  }
}

const UNSUPPORTED_KINDS: Record<string, string> = { M: "datetime64", m: "timedelta64", S: "bytes", U: "str", V: "void" };

/** The refusal of a dtype this reader has no stdlib array for, naming it (docs/FORMAT.md 7.1). */
function unsupportedDtype(dtype: unknown): DeserializationError {
  if (Array.isArray(dtype)) {
    return new DeserializationError("ndarray of a structured dtype: the TypeScript reader does not support structured dtypes (docs/FORMAT.md 7.1; Python and Java read them)");
  }
  if (typeof dtype === "string") {
    const kind = UNSUPPORTED_KINDS[dtype[1] ?? ""];
    if (kind !== undefined && /^[<>|][MmSUV]/.test(dtype)) {
      return new DeserializationError(`ndarray dtype ${JSON.stringify(dtype.slice(0, 40))} (${kind}): the TypeScript reader does not support ${kind} arrays (docs/FORMAT.md 7.1; Python and Java read them)`);
    }
    return new DeserializationError(`ndarray dtype ${JSON.stringify(dtype.slice(0, 40))} is not a standard dtype string`);
  }
  return new DeserializationError(`ndarray dtype ${describe(dtype)} is not a standard dtype string`);
}

/** One numpy scalar class ID; its width is kept. */
export class NumpyScalarSerializer extends InlineSerializer<NumpyScalar | Float32> {
  constructor(readonly name: NumpyScalarName | "float32") {
    super();
  }

  accepts(value: NumpyScalar | Float32): boolean {
    return value instanceof Float32 ? this.name === "float32" : value.name === this.name;
  }

  write(w: Writer, value: NumpyScalar | Float32): void {
    if (value instanceof Float32) {
      w.f32bits(value.bits);
      return;
    }
    const v = value.value;
    switch (value.name) {
      case "bool": w.bool(v as boolean); break;
      case "int64": case "uint64": w.bigint(v as bigint); break;
      case "float16": w.int(value.bits!); break;
      case "float64": w.f64(v as number); break;
      case "complex64":
        w.arrayHeader(2);
        w.f32((v as Complex).real);
        w.f32((v as Complex).imag);
        break;
      case "complex128":
        w.arrayHeader(2);
        w.f64((v as Complex).real);
        w.f64((v as Complex).imag);
        break;
      default: w.int(v as number);
    }
  }

  deserialize(inBand: Uint8Array, _oob: OutOfBand, context: DecodeContext, base: number | null): NumpyScalar | Float32 {
    const name = this.name;
    const view = new DataView(inBand.buffer, inBand.byteOffset, inBand.byteLength);
    if (name === "float32") {
      if (inBand.length !== 5 || inBand[0] !== 0xca) throw new DeserializationError("numpy.float32 must be a msgpack float 32");
      return Float32.fromBits(view.getUint32(1));
    }
    if (name === "complex64") {
      if (inBand.length !== 11 || inBand[0] !== 0x92 || inBand[1] !== 0xca || inBand[6] !== 0xca) {
        throw new DeserializationError("numpy.complex64 must be an array of two msgpack float 32");
      }
      return new NumpyScalar(name, new Complex(float32FromBits(view.getUint32(2)), float32FromBits(view.getUint32(7))));
    }
    const value = context.plain(inBand, base);
    switch (name) {
      case "bool":
        if (typeof value !== "boolean") throw new DeserializationError(`numpy.bool in-band holds ${describe(value)}, not a bool`);
        return new NumpyScalar(name, value);
      case "float16": {
        const bits = asInt(value, "numpy.float16 bits");
        if (bits < 0 || bits > 0xffff) throw new DeserializationError(`numpy.float16 bits ${bits} are outside 0..65535`);
        return new NumpyScalar(name, 0, bits);
      }
      case "float64":
        if (inBand[0] !== 0xcb) throw new DeserializationError("numpy.float64 must be a msgpack float 64");
        return new NumpyScalar(name, asFloat(value, "numpy.float64"));
      case "complex128": {
        if (inBand[1] !== 0xcb || inBand[10] !== 0xcb) throw new DeserializationError("numpy.complex128 must be an array of two msgpack float 64");
        const [re, im] = asArray(value, "numpy.complex128", 2);
        return new NumpyScalar(name, new Complex(asFloat(re, "real part"), asFloat(im, "imaginary part")));
      }
      default:
        if (typeof value !== "number" && typeof value !== "bigint") throw new DeserializationError(`numpy.${name} in-band holds ${describe(value)}, not an int`);
        try {
          return new NumpyScalar(name, value);
        } catch (error) {
          throw new DeserializationError((error as Error).message);
        }
    }
  }
}

const SCALAR_NAMES: (NumpyScalarName | "float32")[] = [
  "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
  "float16", "float32", "float64", "complex64", "complex128",
];

export function installNumpy(registry: Registry): void {
  registry.registerSerializer("numpy.ndarray", [ndarray, baseNdarray], new NDArraySerializer());
  for (const name of SCALAR_NAMES) {
    registry.registerSerializer(`numpy.${name}`, name === "float32" ? [Float32] : [NumpyScalar], new NumpyScalarSerializer(name));
  }
}
