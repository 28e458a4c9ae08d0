/**
 * The Arrow types an IPC Schema message may hold, and the checks of their type
 * tables (the twin of Python's `serreg/serializers/arrow_ipc_types.py` and Java's
 * `ArrowIpcTypes`, with their words). `ipcCheck.ts` walks the flatbuffer; for each
 * field it asks {@link checkType} whether the type tag is one serreg carries
 * (docs/FORMAT.md, section 6.4) and whether its type table holds parameters that
 * go together, {@link checkDictionary} does the same for a DictionaryEncoding, and
 * {@link refusedInJs} names what apache-arrow for JS cannot read. The numbers are
 * the type union tags and table slots of Arrow's Schema.fbs.
 */
import { I16, I32, I64, U8, type Flatbuffer, type Table } from "./flatbuffer.js";

const INT = 2, FLOAT = 3, DECIMAL = 7, DATE = 8, TIME = 9, TIMESTAMP = 10, INTERVAL = 11, UNION = 14;
const FIXED_SIZE_BINARY = 15, FIXED_SIZE_LIST = 16, DURATION = 18, RUN_END_ENCODED = 22;
export const STRUCT = 13;
export const MAP = 17;

/** tag -> [name in Schema.fbs, child fields it needs: null = any number]. */
export const TYPES: ReadonlyMap<number, readonly [string, number | null]> = new Map([
  [1, ["Null", 0]], [INT, ["Int", 0]], [FLOAT, ["FloatingPoint", 0]], [4, ["Binary", 0]], [5, ["Utf8", 0]],
  [6, ["Bool", 0]], [DECIMAL, ["Decimal", 0]], [DATE, ["Date", 0]], [TIME, ["Time", 0]], [TIMESTAMP, ["Timestamp", 0]],
  [INTERVAL, ["Interval", 0]], [12, ["List", 1]], [STRUCT, ["Struct_", null]], [UNION, ["Union", null]],
  [FIXED_SIZE_BINARY, ["FixedSizeBinary", 0]], [FIXED_SIZE_LIST, ["FixedSizeList", 1]], [MAP, ["Map", 1]],
  [DURATION, ["Duration", 0]], [19, ["LargeBinary", 0]], [20, ["LargeUtf8", 0]], [21, ["LargeList", 1]],
  [RUN_END_ENCODED, ["RunEndEncoded", 2]], [23, ["BinaryView", 0]], [24, ["Utf8View", 0]], [25, ["ListView", 1]],
  [26, ["LargeListView", 1]],
]);

const INTERVAL_UNITS = ["YEAR_MONTH", "DAY_TIME", "MONTH_DAY_NANO"];
/** A union has at most 128 children (type codes 0..127). */
const MAX_UNION_CHILDREN = 128;
const DECIMAL_DIGITS = new Map([[32, 9], [64, 18], [128, 38], [256, 76]]);
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Why a type tag is refused (null: one serreg carries). */
export function refusedType(tag: number): string | null {
  return TYPES.has(tag) ? null : `type tag ${tag}, which is not an Arrow type serreg knows`;
}

const oneOf = (value: number, allowed: readonly number[]): boolean => allowed.includes(value);

/** Checks the type table of a field of type `tag` with `children` child fields. */
export function checkType(buffer: Flatbuffer, tag: number, table: Table, children: number): void {
  switch (tag) {
    case INT:
      if (!oneOf(table.scalar(0, I32, 0), [8, 16, 32, 64])) buffer.fail("an Int type must be 8, 16, 32 or 64 bits wide", table.position);
      table.scalar(1, U8, 0);
      return;
    case FLOAT:
      if (!oneOf(table.scalar(0, I16, 0), [0, 1, 2])) buffer.fail("a FloatingPoint precision must be HALF, SINGLE or DOUBLE", table.position);
      return;
    case DECIMAL: {
      const precision = table.scalar(0, I32, 0);
      const bits = table.scalar(2, I32, 128);
      table.scalar(1, I32, 0);
      const limit = DECIMAL_DIGITS.get(bits);
      if (limit === undefined || !(precision >= 1 && precision <= limit)) {
        buffer.fail(`a Decimal type of ${bits} bits has precision ${precision} (1..${limit ?? "None"} for 32, 64, 128 or 256 bits)`, table.position);
      }
      return;
    }
    case DATE:
      if (!oneOf(table.scalar(0, I16, 1), [0, 1])) buffer.fail("a Date unit must be DAY or MILLISECOND", table.position);
      return;
    case TIME: {
      const unit = table.scalar(0, I16, 1);
      const bits = table.scalar(1, I32, 32);
      const fits = unit === 0 || unit === 1 ? bits === 32 : unit === 2 || unit === 3 ? bits === 64 : false;
      if (!fits) {
        buffer.fail(`a Time type has unit ${unit} and bit width ${bits}, which do not go together`, table.position);
      }
      return;
    }
    case TIMESTAMP: {
      if (!oneOf(table.scalar(0, I16, 0), [0, 1, 2, 3])) buffer.fail("a Timestamp unit must be SECOND, MILLISECOND, MICROSECOND or NANOSECOND", table.position);
      const zone = table.string(1, "time zone");
      if (zone !== null) {
        try {
          utf8.decode(zone);
        } catch {
          buffer.fail("a Timestamp time zone is not UTF-8", table.position);
        }
      }
      return;
    }
    case DURATION:
      if (!oneOf(table.scalar(0, I16, 1), [0, 1, 2, 3])) buffer.fail("a Duration unit must be SECOND, MILLISECOND, MICROSECOND or NANOSECOND", table.position);
      return;
    case INTERVAL: {
      const unit = table.scalar(0, I16, 0);
      if (!(unit >= 0 && unit <= 2)) buffer.fail(`an Interval unit must be YEAR_MONTH, DAY_TIME or MONTH_DAY_NANO, not ${unit}`, table.position);
      if (unit !== 2) {
        buffer.fail(`the field is an Interval(${INTERVAL_UNITS[unit]}) column, which pyarrow cannot hold as an array in Python (only month_day_nano intervals); serreg does not carry it`, table.position);
      }
      return;
    }
    case FIXED_SIZE_BINARY: case FIXED_SIZE_LIST:
      if (table.scalar(0, I32, 0) < 0) buffer.fail(`a ${TYPES.get(tag)![0]} size is negative`, table.position);
      return;
    case MAP:
      table.scalar(0, U8, 0);
      return;
    case UNION: {
      if (!oneOf(table.scalar(0, I16, 0), [0, 1])) buffer.fail("a Union mode must be Sparse or Dense", table.position);
      if (children > MAX_UNION_CHILDREN) buffer.fail(`a Union has ${children} children, more than ${MAX_UNION_CHILDREN}`, table.position);
      const codes = table.int32Vector(1, "union type ids");
      if (codes !== null && (codes.length !== children || new Set(codes).size !== codes.length || codes.some((c) => c < 0 || c >= 128))) {
        buffer.fail(`a Union's type ids [${codes.slice(0, 8).join(", ")}] must be ${children} distinct codes in 0..127`, table.position);
      }
      return;
    }
    default:
      return;
  }
}

/** Checks a field's DictionaryEncoding table: its index type is an integer of 8 to 64 bits. */
export function checkDictionary(buffer: Flatbuffer, encoding: Table): void {
  encoding.scalar(0, I64, 0); // id: any
  const index = encoding.table(1, "Int");
  if (index === null) buffer.fail("a dictionary has no index type", encoding.position);
  if (!oneOf(index.scalar(0, I32, 0), [8, 16, 32, 64])) buffer.fail("a dictionary's index type must be an integer of 8, 16, 32 or 64 bits", encoding.position);
  index.scalar(1, U8, 0);
  encoding.scalar(2, U8, 0); // isOrdered
  if (encoding.scalar(3, I16, 0) !== 0) buffer.fail("a dictionary's kind must be DenseArray", encoding.position);
}

const JS_READS_NOT = new Map([
  [INTERVAL, "an Interval"], [UNION, "a Union"], [RUN_END_ENCODED, "a RunEndEncoded"], [23, "a BinaryView"],
  [24, "a Utf8View"], [25, "a ListView"], [26, "a LargeListView"],
]);

/**
 * Why apache-arrow for JS cannot read a field that passed the checks above (null: it can).
 * Python and Java read these; this package refuses them before apache-arrow reads the message.
 */
export function refusedInJs(tag: number, table: Table, dictionary: boolean): string | null {
  const what = JS_READS_NOT.get(tag);
  if (what !== undefined) return `the field is ${what} column, which serreg for TypeScript does not read yet (Python and Java do; docs/FORMAT.md, section 6.4)`;
  if (dictionary) return "the field is dictionary-encoded, which serreg for TypeScript does not read yet (Python and Java do; docs/FORMAT.md, section 6.4)";
  if (tag === DECIMAL) {
    const bits = table.scalar(2, I32, 128);
    if (bits !== 128 && bits !== 256) return `a Decimal type of ${bits} bits, which apache-arrow for JS has no reader for (only 128 and 256 bits; docs/FORMAT.md, section 6.4)`;
  }
  return null;
}
