/**
 * Rebuilds apache-arrow Data from a batch's field nodes and the frame's
 * out-of-band buffers (docs/FORMAT.md, section 6.4), in place: each buffer is a
 * view of the frame (a copy only when its address is not a multiple of the
 * element size). Everything loading relies on is checked first, so hostile
 * nodes give a DeserializationError, never a read past a buffer: buffer counts
 * and sizes, the null count against the validity bitmap, offsets (from 0 or
 * more, non-decreasing, within their data or child), child lengths, the UTF-8
 * of string values (`utf8.ts`), the values of decimals, times and date64s
 * (`values.ts`).
 */
import * as arrow from "apache-arrow";
import { DeserializationError } from "../errors.js";
import type { OutOfBand } from "../oob.js";
import { checkUtf8 } from "./utf8.js";
import { checkValues } from "./values.js";

type TypedCtor = { new (buffer: ArrayBuffer, byteOffset: number, length: number): ArrayLike<unknown>; BYTES_PER_ELEMENT: number };

/** Buffers per node, in IPC order, for each type id (the null type has none). */
export function bufferCount(type: arrow.DataType): number {
  switch (type.typeId) {
    case arrow.Type.Null: return 0;
    case arrow.Type.Struct: case arrow.Type.FixedSizeList: return 1;
    case arrow.Type.Binary: case arrow.Type.Utf8: case arrow.Type.LargeBinary: case arrow.Type.LargeUtf8: return 3;
    default: return 2;
  }
}

/** Bytes per value of a fixed-width type (bits for Bool are handled apart). */
export function fixedWidth(type: arrow.DataType): number {
  switch (type.typeId) {
    case arrow.Type.Int: return (type as arrow.Int).bitWidth / 8;
    case arrow.Type.Float: return [2, 4, 8][(type as arrow.Float).precision]!;
    case arrow.Type.Decimal: return (type as arrow.Decimal).bitWidth / 8;
    case arrow.Type.Date: return (type as arrow.Date_).unit === arrow.DateUnit.DAY ? 4 : 8;
    case arrow.Type.Time: return (type as arrow.Time).bitWidth / 8;
    case arrow.Type.Timestamp: case arrow.Type.Duration: return 8;
    case arrow.Type.FixedSizeBinary: return (type as arrow.FixedSizeBinary).byteWidth;
    default: return 0;
  }
}

function view(ctor: TypedCtor, bytes: Uint8Array): any {
  const size = ctor.BYTES_PER_ELEMENT;
  const data = bytes.byteOffset % size === 0 ? bytes : bytes.slice();
  return new ctor(data.buffer as ArrayBuffer, data.byteOffset, Math.floor(data.length / size));
}

function popcount(bitmap: Uint8Array, length: number): number {
  let set = 0;
  const whole = length >> 3;
  for (let i = 0; i < whole; i++) {
    let b = bitmap[i]!;
    b = b - ((b >> 1) & 0x55);
    b = (b & 0x33) + ((b >> 2) & 0x33);
    set += (b + (b >> 4)) & 0x0f;
  }
  for (let i = whole * 8; i < length; i++) set += (bitmap[i >> 3]! >> (i & 7)) & 1;
  return set;
}

/** The first slot whose offset is below the one before it, or 0 (two loops: each stays on one array type). */
function decreasing32(offsets: Int32Array, length: number): number {
  let previous = offsets[0]!;
  for (let i = 1; i <= length; i++) {
    const o = offsets[i]!;
    if (o < previous) return i;
    previous = o;
  }
  return 0;
}

function decreasing64(offsets: BigInt64Array, length: number): number {
  let previous = offsets[0]!;
  for (let i = 1; i <= length; i++) {
    const o = offsets[i]!;
    if (o < previous) return i;
    previous = o;
  }
  return 0;
}

export class NodeReader {
  private next = 0;

  /**
   * Every offset is checked in both modes: trusted says who wrote the frame, not that its bytes are
   * intact (docs/BOUNDS.md), and an offset below the one before it reads another slot's values.
   */
  constructor(private readonly nodes: unknown[], private readonly oob: OutOfBand) {}

  finish(): void {
    if (this.next !== this.nodes.length) throw new DeserializationError(`Arrow batch has ${this.nodes.length - this.next} field nodes too many`);
  }

  private node(type: arrow.DataType, where: string): [number, number, number] {
    if (this.next >= this.nodes.length) throw new DeserializationError("Arrow batch has fewer field nodes than its schema needs");
    const node = this.nodes[this.next++];
    if (!Array.isArray(node) || node.length !== 3 || !node.every((n) => typeof n === "number" && Number.isSafeInteger(n) && n >= 0)) {
      throw new DeserializationError(`invalid Arrow field node for ${where}`);
    }
    const [length, nullCount, buffers] = node as [number, number, number];
    if (buffers !== bufferCount(type)) throw new DeserializationError(`Arrow ${String(type)} node of ${where} must have ${bufferCount(type)} buffers, it says ${buffers}`);
    if (nullCount > length) throw new DeserializationError(`Arrow node of ${where} has ${nullCount} nulls in ${length} slots`);
    return [length, nullCount, buffers];
  }

  private validity(length: number, nullCount: number, where: string): Uint8Array | undefined {
    const bitmap = this.oob.take(`the validity bitmap of ${where}`);
    if (bitmap.length === 0) {
      if (nullCount !== 0) throw new DeserializationError(`Arrow column ${where} has ${nullCount} nulls but no validity bitmap`);
      return undefined;
    }
    if (bitmap.length < Math.ceil(length / 8)) throw new DeserializationError(`Arrow validity bitmap of ${where} has ${bitmap.length} bytes, ${Math.ceil(length / 8)} needed`);
    const nulls = length - popcount(bitmap, length);
    if (nulls !== nullCount) throw new DeserializationError(`Arrow node of ${where} says ${nullCount} nulls, its validity bitmap has ${nulls}`);
    return bitmap;
  }

  private offsets(length: number, large: boolean, where: string): { offsets: any; last: number } {
    const bytes = this.oob.take(`the offsets of ${where}`);
    const width = large ? 8 : 4;
    if (length === 0 && bytes.length === 0) return { offsets: large ? new BigInt64Array(1) : new Int32Array(1), last: 0 };
    if (bytes.length < (length + 1) * width) throw new DeserializationError(`Arrow offsets of ${where} have ${bytes.length} bytes, ${(length + 1) * width} needed`);
    const offsets = view(large ? BigInt64Array : Int32Array, bytes.subarray(0, (length + 1) * width));
    if (Number(offsets[0]) < 0) throw new DeserializationError(`Arrow offsets of ${where} start below 0`);
    const decrease = large ? decreasing64(offsets as BigInt64Array, length) : decreasing32(offsets as Int32Array, length);
    if (decrease !== 0) throw new DeserializationError(`Arrow offsets of ${where} decrease at slot ${decrease}`);
    const last = Number(offsets[length]);
    if (last > Number.MAX_SAFE_INTEGER) throw new DeserializationError(`Arrow offsets of ${where} are too large`);
    return { offsets, last };
  }

  /** The Data of one field (and its children), from the next nodes and buffers. */
  read(field: arrow.Field, where: string): arrow.Data {
    const type = field.type;
    const [length, nullCount] = this.node(type, where);
    if (type.typeId === arrow.Type.Null) return arrow.makeData({ type: type as arrow.Null, length });
    const nullBitmap = this.validity(length, nullCount, where);
    const common = { type, length, nullCount, nullBitmap } as any;
    switch (type.typeId) {
      case arrow.Type.Bool: {
        const data = this.oob.take(`the values of ${where}`);
        if (data.length < Math.ceil(length / 8)) throw new DeserializationError(`Arrow bool values of ${where} have ${data.length} bytes, ${Math.ceil(length / 8)} needed`);
        return arrow.makeData({ ...common, data: data.subarray(0, Math.ceil(length / 8)) });
      }
      case arrow.Type.Binary: case arrow.Type.Utf8: case arrow.Type.LargeBinary: case arrow.Type.LargeUtf8: {
        const large = type.typeId === arrow.Type.LargeBinary || type.typeId === arrow.Type.LargeUtf8;
        const { offsets, last } = this.offsets(length, large, where);
        const data = this.oob.take(`the data of ${where}`);
        if (last > data.length) throw new DeserializationError(`Arrow offsets of ${where} reach byte ${last}, past its ${data.length}-byte data`);
        if (type.typeId === arrow.Type.Utf8 || type.typeId === arrow.Type.LargeUtf8) checkUtf8(data, offsets, length, nullBitmap, where);
        return arrow.makeData({ ...common, valueOffsets: offsets, data: data.subarray(0, last) });
      }
      case arrow.Type.List: case arrow.Type.LargeList: case arrow.Type.Map: {
        const { offsets, last } = this.offsets(length, type.typeId === arrow.Type.LargeList, where);
        const childField = type.children[0]!;
        if (type.typeId === arrow.Type.Map && (childField.type.typeId !== arrow.Type.Struct || childField.type.children.length !== 2)) {
          throw new DeserializationError(`Arrow map ${where} must have a struct child of two fields`);
        }
        const child = this.read(childField, `the child of ${where}`);
        if (last > child.length) throw new DeserializationError(`Arrow offsets of ${where} reach slot ${last}, past its child's ${child.length}`);
        return arrow.makeData({ ...common, valueOffsets: offsets, child });
      }
      case arrow.Type.FixedSizeList: {
        const child = this.read(type.children[0]!, `the child of ${where}`);
        const needed = length * (type as arrow.FixedSizeList).listSize;
        if (child.length < needed) throw new DeserializationError(`Arrow fixed-size list ${where} needs ${needed} child slots, its child has ${child.length}`);
        return arrow.makeData({ ...common, child });
      }
      case arrow.Type.Struct: {
        const children = type.children.map((f: arrow.Field, i: number) => this.read(f, `field ${i} of ${where}`));
        for (const child of children) {
          if (child.length < length) throw new DeserializationError(`Arrow struct ${where} has ${length} slots, a child has ${child.length}`);
        }
        return arrow.makeData({ ...common, children });
      }
      default: {
        const width = fixedWidth(type);
        const data = this.oob.take(`the values of ${where}`);
        if (data.length < length * width) throw new DeserializationError(`Arrow values of ${where} have ${data.length} bytes, ${length * width} needed`);
        checkValues(type, data, length, nullBitmap, where);
        return arrow.makeData({ ...common, data: view(type.ArrayType as TypedCtor, data.subarray(0, length * width)) });
      }
    }
  }
}
