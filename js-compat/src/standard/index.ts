/**
 * Registers the serializers of every core standard class ID of docs/FORMAT.md
 * section 6.1 (the numpy and Arrow ones are in src/numpy/ and src/arrow/).
 * The class each one serves is listed here, once.
 */
import { RemoteError } from "../errors.js";
import type { Registry } from "../registry.js";
import { FrozenSet, PyByteArray, PyMemoryView, Tuple } from "../types/containers.js";
import { Decimal, UUID } from "../types/decimalUuid.js";
import { Complex, Float64 } from "../types/numbers.js";
import { PyDate, PyDateTime, PyTime, TimeDelta } from "../types/time.js";
import {
  ByteArraySerializer, BytesSerializer, ComplexSerializer, FloatSerializer, IntSerializer, MemoryViewSerializer,
  NativeSerializer, SetSerializer, TupleSerializer,
} from "./core.js";
import { DataclassSerializer, DecimalSerializer, ErrorSerializer, Pickle5Serializer, UUIDSerializer } from "./other.js";
import { DateSerializer, DateTimeSerializer, TimeDeltaSerializer, TimeSerializer } from "./time.js";

const BUFFER: Function[] = typeof Buffer === "function" ? [Buffer] : [];

export function installStandard(registry: Registry): void {
  const register = registry.registerSerializer.bind(registry);
  register("None", null, new NativeSerializer("None"));
  register("bool", null, new NativeSerializer("bool"));
  register("int", null, new IntSerializer());
  register("float", [Float64], new FloatSerializer());
  register("str", null, new NativeSerializer("str"));
  register("bytes", [Uint8Array, ...BUFFER], new BytesSerializer());
  register("list", [Array], new NativeSerializer("list"));
  register("dict", [Object, Map], new NativeSerializer("dict"));
  register("tuple", [Tuple], new TupleSerializer());
  register("set", [Set], new SetSerializer(false));
  register("frozenset", [FrozenSet], new SetSerializer(true));
  register("bytearray", [PyByteArray], new ByteArraySerializer());
  register("memoryview", [PyMemoryView], new MemoryViewSerializer());
  register("complex", [Complex], new ComplexSerializer());
  register("datetime", [PyDateTime, Date], new DateTimeSerializer());
  register("date", [PyDate], new DateSerializer());
  register("time", [PyTime], new TimeSerializer());
  register("timedelta", [TimeDelta], new TimeDeltaSerializer());
  register("decimal", [Decimal], new DecimalSerializer());
  register("uuid", [UUID], new UUIDSerializer());
  register("serreg.error", [RemoteError], new ErrorSerializer());
  register(Pickle5Serializer.CLASS_ID, null, new Pickle5Serializer());
  register(DataclassSerializer.CLASS_ID, null, new DataclassSerializer());
}
