/**
 * Writes apache-arrow Data as field nodes plus out-of-band buffers (docs/FORMAT.md,
 * section 6.4): for each node, depth-first, [length, null count, buffer count] and
 * its buffers in IPC order (validity, offsets, data), each cut to the bytes the
 * node covers (no copy: views of the arrays' memory). A column with no nulls has
 * a zero-length validity buffer. Every array offset is 0 on the wire: a sliced
 * column is first compacted into fresh buffers (through apache-arrow's IPC writer).
 */
import * as arrow from "apache-arrow";
import { bufferCount, fixedWidth } from "./read.js";

const EMPTY = new Uint8Array(0);

function bytesOf(typed: ArrayBufferView | undefined, length: number): Uint8Array {
  if (typed === undefined || length === 0) return EMPTY;
  return new Uint8Array(typed.buffer, typed.byteOffset, length);
}

function hasOffsets(data: arrow.Data): boolean {
  return data.offset !== 0 || data.children.some(hasOffsets);
}

/** A column whose Data (or a child's) starts at an offset, rebuilt at offset 0. */
function compact(data: arrow.Data): arrow.Data {
  const table = new arrow.Table({ column: arrow.makeVector(data) });
  const again = arrow.tableFromIPC(arrow.tableToIPC(table, "stream"));
  return again.getChildAt(0)!.data[0]!;
}

function write(data: arrow.Data, nodes: number[][], buffers: Uint8Array[]): void {
  const type = data.type;
  const length = data.length;
  if (type.typeId === arrow.Type.Null) {
    nodes.push([length, length, 0]);
    return;
  }
  const nullCount = data.nullCount;
  nodes.push([length, nullCount, bufferCount(type)]);
  buffers.push(nullCount > 0 ? bytesOf(data.nullBitmap, Math.ceil(length / 8)) : EMPTY);
  switch (type.typeId) {
    case arrow.Type.Bool:
      buffers.push(bytesOf(data.values, Math.ceil(length / 8)));
      return;
    case arrow.Type.Binary: case arrow.Type.Utf8: case arrow.Type.LargeBinary: case arrow.Type.LargeUtf8: {
      const offsets = data.valueOffsets as Int32Array | BigInt64Array;
      buffers.push(bytesOf(offsets, (length + 1) * offsets.BYTES_PER_ELEMENT));
      buffers.push(bytesOf(data.values, Number(offsets[length] ?? 0)));
      return;
    }
    case arrow.Type.List: case arrow.Type.LargeList: case arrow.Type.Map: {
      const offsets = data.valueOffsets as Int32Array | BigInt64Array;
      buffers.push(bytesOf(offsets, (length + 1) * offsets.BYTES_PER_ELEMENT));
      write(data.children[0]!, nodes, buffers);
      return;
    }
    case arrow.Type.FixedSizeList:
      write(data.children[0]!, nodes, buffers);
      return;
    case arrow.Type.Struct:
      for (const child of data.children) write(child, nodes, buffers);
      return;
    default:
      buffers.push(bytesOf(data.values, length * fixedWidth(type)));
  }
}

/** [row count, nodes] of one batch; its buffers are appended to `buffers`. */
export function writeBatch(batch: arrow.RecordBatch, buffers: Uint8Array[]): [number, number[][]] {
  const nodes: number[][] = [];
  for (let column of batch.data.children) {
    if (hasOffsets(column)) column = compact(column);
    write(column, nodes, buffers);
  }
  return [batch.numRows, nodes];
}
