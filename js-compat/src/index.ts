/**
 * serreg for TypeScript: the public face. `serialize` / `deserialize` act on a
 * default {@link Registry} holding every standard serializer (core types, numpy,
 * Arrow); make your own Registry for a separate set. docs/FORMAT.md is the
 * contract; section 7 maps each Python type to its TypeScript type.
 */
import { Registry, addStandardInstaller, type DeserializeOptions, type FrameInput, type SerializeOptions } from "./registry.js";
import { installStandard } from "./standard/index.js";
import { installNumpy } from "./numpy/index.js";
import { installArrow } from "./arrow/index.js";
import type { SerializationResult } from "./result.js";
import type { Serializer } from "./serializer.js";
import type { Fields } from "./structs/fieldTypes.js";
import type { DefinedStruct, FieldsFitting, StructOptions } from "./structs/define.js";

addStandardInstaller(installStandard);
addStandardInstaller(installNumpy);
addStandardInstaller(installArrow);

export { Registry, STANDARD_DATA_CLASS_IDS } from "./registry.js";
export type { RegistryOptions, SerializeOptions, DeserializeOptions, FrameInput } from "./registry.js";
export type { Serializer, Registration, ExtensionType, Encoder, DecodeContext } from "./serializer.js";
export { SerializationResult } from "./result.js";
export { OutOfBand } from "./oob.js";
export { Limits, DEFAULT_LIMITS } from "./limits.js";
export type { LimitsInit } from "./limits.js";
export { classIdHash, toHex } from "./classId.js";
export { SigningKey } from "./signing.js";
export { Writer } from "./msgpack/writer.js";
export { readPlain } from "./msgpack/reader.js";
export * from "./errors.js";
export { Float64, Float32, Complex, NumpyScalar } from "./types/numbers.js";
export type { NumpyScalarName } from "./types/numbers.js";
export { Tuple, FrozenSet, PyByteArray, PyMemoryView } from "./types/containers.js";
export { OpaqueValue } from "./types/opaque.js";
export { PyDateTime, PyDate, PyTime, TimeDelta, FixedOffset } from "./types/time.js";
export type { TimeZone } from "./types/time.js";
export { Decimal, UUID } from "./types/decimalUuid.js";
export { InlineSerializer } from "./standard/core.js";
export { ndarray, ndarrayFromNumpy, numpyDtypeOf, ByteOrderAccessor } from "./numpy/ndarray.js";
export type { StdlibNdarray } from "./numpy/ndarray.js";
export { t, TypeNode, FieldType } from "./structs/fieldTypes.js";
export type { Atom, FieldSpec, Fields, StructOf, TsOf } from "./structs/fieldTypes.js";
export { defineStruct } from "./structs/define.js";
export type { DefinedStruct, StructInit, StructOptions, FieldsFitting } from "./structs/define.js";
export { StructValue } from "./structs/carrier.js";

let defaultRegistry: Registry | null = null;

/** The registry behind the module-level functions (created on first use). */
export function getDefaultRegistry(): Registry {
  return (defaultRegistry ??= new Registry());
}

export function serialize(value: unknown, options?: SerializeOptions): SerializationResult {
  return getDefaultRegistry().serialize(value, options);
}

export function deserialize(data: FrameInput, options?: DeserializeOptions): unknown {
  return getDefaultRegistry().deserialize(data, options);
}

export function registerSerializer(classId: string, classes: Function | readonly Function[] | null, serializer: Serializer): void {
  getDefaultRegistry().registerSerializer(classId, classes, serializer);
}

/** `registry.registerStruct` on the default registry (docs/FORMAT.md section 10). */
export function registerStruct(cls: DefinedStruct<any>): void;
export function registerStruct<C extends abstract new (...args: any[]) => any, F extends Fields>(
  cls: C, classId: string, fields: F & FieldsFitting<InstanceType<C>, F>, options?: StructOptions<F>): void;
export function registerStruct(cls: any, classId?: string, fields?: any, options?: any): void {
  const registry = getDefaultRegistry();
  if (classId === undefined) registry.registerStruct(cls);
  else registry.registerStruct(cls, classId, fields, options);
}
