/**
 * Serializers of `decimal`, `uuid`, the error frame `serreg.error`, and the two
 * Python-only class IDs, `serreg.pickle5` and `serreg.dataclass`, which
 * TypeScript carries as opaque values (trusted mode only; docs/FORMAT.md,
 * sections 3, 4.4 and 6.1).
 */
import type { DecodeContext } from "../serializer.js";
import { DeserializationError, RemoteError } from "../errors.js";
import { Writer } from "../msgpack/writer.js";
import type { OutOfBand } from "../oob.js";
import { classIdHash } from "../classId.js";
import { Decimal, UUID } from "../types/decimalUuid.js";
import { OpaqueValue } from "../types/opaque.js";
import { InlineSerializer, asArray, checked, describe } from "./core.js";
import { countPickleBuffers } from "./pickle.js";

export class DecimalSerializer extends InlineSerializer<Decimal> {
  write(w: Writer, value: Decimal): void {
    w.str(value.toString());
  }
  deserialize(inBand: Uint8Array, _oob: OutOfBand, context: DecodeContext, base: number | null): Decimal {
    const text = context.plain(inBand, base);
    if (typeof text !== "string") throw new DeserializationError(`a decimal must be a msgpack str, got ${describe(text)}`);
    return checked(() => new Decimal(text));
  }
}

export class UUIDSerializer extends InlineSerializer<UUID> {
  write(w: Writer, value: UUID): void {
    w.bin(value.bytes);
  }
  deserialize(inBand: Uint8Array, _oob: OutOfBand, context: DecodeContext, base: number | null): UUID {
    const raw = context.plain(inBand, base);
    if (!(raw instanceof Uint8Array) || raw.length !== 16) throw new DeserializationError("a uuid must be a 16-byte msgpack bin");
    return new UUID(raw);
  }
}

/** The error frame: serializing a RemoteError writes {"message": ...}; reading one throws RemoteError. */
export class ErrorSerializer extends InlineSerializer<RemoteError> {
  write(w: Writer, value: RemoteError): void {
    w.mapHeader(1);
    w.str("message");
    w.str(value.remoteMessage);
  }
  deserialize(inBand: Uint8Array, _oob: OutOfBand, context: DecodeContext, base: number | null): never {
    const value = context.plain(inBand, base);
    const message = value instanceof Map ? value.get("message") : typeof value === "object" && value !== null ? (value as Record<string, unknown>)["message"] : undefined;
    if (typeof message !== "string") throw new DeserializationError("an error frame must hold a map with a str 'message'");
    throw new RemoteError(message);
  }
}

/** serreg.pickle5: kept opaque; it owns as many buffers as its pickle has NEXT_BUFFER opcodes. */
export class Pickle5Serializer extends InlineSerializer<OpaqueValue> {
  static readonly CLASS_ID = "serreg.pickle5";
  private readonly hash = classIdHash(Pickle5Serializer.CLASS_ID);
  write(w: Writer, value: OpaqueValue): void {
    w.raw(value.inBand);
  }
  deserialize(inBand: Uint8Array, oob: OutOfBand): OpaqueValue {
    const count = countPickleBuffers(inBand);
    if (count > oob.remaining) {
      throw new DeserializationError(`the pickle refers to ${count} out-of-band buffers but the frame has only ${oob.remaining} left`);
    }
    const buffers: Uint8Array[] = [];
    for (let i = 0; i < count; i++) buffers.push(oob.take("a pickle buffer"));
    return new OpaqueValue(this.hash, Pickle5Serializer.CLASS_ID, inBand, buffers);
  }
}

/**
 * serreg.dataclass ([class "module:qualname", state map]): kept opaque; the buffers it
 * owns are those of the nested values in its state, found by decoding them.
 */
export class DataclassSerializer extends InlineSerializer<OpaqueValue> {
  static readonly CLASS_ID = "serreg.dataclass";
  private readonly hash = classIdHash(DataclassSerializer.CLASS_ID);
  write(w: Writer, value: OpaqueValue): void {
    w.raw(value.inBand);
  }
  deserialize(inBand: Uint8Array, oob: OutOfBand, context: DecodeContext, base: number | null): OpaqueValue {
    const first = oob.position;
    const [reference, state] = asArray(context.unpack(inBand, oob, base), "dataclass", 2);
    if (typeof reference !== "string" || !reference.includes(":")) {
      throw new DeserializationError(`a dataclass reference must be a str 'module:qualname', got ${describe(reference)}`);
    }
    if (!(state instanceof Map) && !(typeof state === "object" && state !== null && !Array.isArray(state) && !(state instanceof Uint8Array))) {
      throw new DeserializationError(`the state of ${reference} must be a map`);
    }
    return new OpaqueValue(this.hash, DataclassSerializer.CLASS_ID, inBand, oob.slice(first, oob.position));
  }
}
