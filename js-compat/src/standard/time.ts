/**
 * Serializers of `datetime`, `date`, `time` and `timedelta` (docs/FORMAT.md,
 * section 6.1): arrays of the wall-clock fields, as Python stores them; `tz` is
 * nil (naive), [offset in microseconds, name or nil] (a fixed offset) or an
 * IANA zone key. A JS Date is written as an aware UTC datetime.
 */
import type { DecodeContext } from "../serializer.js";
import { DeserializationError } from "../errors.js";
import { Writer } from "../msgpack/writer.js";
import type { OutOfBand } from "../oob.js";
import { FixedOffset, PyDate, PyDateTime, PyTime, TimeDelta, type TimeZone } from "../types/time.js";
import { InlineSerializer, asArray, asInt, checked, describe } from "./core.js";

function writeZone(w: Writer, tz: TimeZone): void {
  if (tz === null) w.nil();
  else if (typeof tz === "string") w.str(tz);
  else {
    w.arrayHeader(2);
    w.int(tz.offsetMicroseconds);
    if (tz.name === null) w.nil();
    else w.str(tz.name);
  }
}

/** IANA zone keys already looked up: whether the zone database has each. */
const KNOWN_ZONES = new Map<string, boolean>();

/**
 * Whether the runtime's zone database (ICU, through Intl) has `key` as written: Python
 * refuses a key its zoneinfo does not find, so a key that is no zone is refused here too,
 * not carried as text. ICU finds keys whatever their case, Python only as written, so a
 * key that names a zone in another case is refused. Without Intl every key is taken.
 */
function knownZone(key: string): boolean {
  let known = KNOWN_ZONES.get(key);
  if (known === undefined) {
    try {
      const resolved = new Intl.DateTimeFormat("en-US", { timeZone: key }).resolvedOptions().timeZone;
      known = resolved === key || resolved.toLowerCase() !== key.toLowerCase();
    } catch (error) {
      known = !(error instanceof RangeError);
    }
    if (KNOWN_ZONES.size < 4096) KNOWN_ZONES.set(key, known);
  }
  return known;
}

function readZone(value: unknown): TimeZone {
  if (value === null) return null;
  if (typeof value === "string") {
    if (value.length === 0) throw new DeserializationError("an IANA zone key is not empty");
    if (typeof Intl === "object" && !knownZone(value)) {
      throw new DeserializationError(`no time zone found with key ${JSON.stringify(value.slice(0, 64))} (an IANA zone key; docs/FORMAT.md, section 6.1)`);
    }
    return value;
  }
  if (Array.isArray(value) && value.length === 2 && (value[1] === null || typeof value[1] === "string")) {
    return new FixedOffset(asInt(value[0], "a UTC offset"), value[1] as string | null);
  }
  throw new DeserializationError(`invalid time zone: ${describe(value)}`);
}

function ints(fields: unknown[], count: number, what: string): number[] {
  return fields.slice(0, count).map((v) => asInt(v, `${what} field`));
}

export class DateTimeSerializer extends InlineSerializer<PyDateTime | Date> {
  write(w: Writer, value: PyDateTime | Date): void {
    const d = value instanceof Date ? PyDateTime.fromDate(value) : value;
    w.arrayHeader(9);
    for (const n of [d.year, d.month, d.day, d.hour, d.minute, d.second, d.microsecond, d.fold]) w.int(n);
    writeZone(w, d.tz);
  }
  deserialize(inBand: Uint8Array, _oob: OutOfBand, context: DecodeContext, base: number | null): PyDateTime {
    const fields = asArray(context.plain(inBand, base), "datetime", 9);
    const [y, mo, d, h, mi, s, us, fold] = ints(fields, 8, "datetime");
    return checked(() => new PyDateTime(y!, mo!, d!, h!, mi!, s!, us!, fold!, readZone(fields[8])));
  }
}

export class DateSerializer extends InlineSerializer<PyDate> {
  write(w: Writer, value: PyDate): void {
    w.arrayHeader(3);
    w.int(value.year);
    w.int(value.month);
    w.int(value.day);
  }
  deserialize(inBand: Uint8Array, _oob: OutOfBand, context: DecodeContext, base: number | null): PyDate {
    const [y, m, d] = ints(asArray(context.plain(inBand, base), "date", 3), 3, "date");
    return checked(() => new PyDate(y!, m!, d!));
  }
}

export class TimeSerializer extends InlineSerializer<PyTime> {
  write(w: Writer, value: PyTime): void {
    w.arrayHeader(6);
    for (const n of [value.hour, value.minute, value.second, value.microsecond, value.fold]) w.int(n);
    writeZone(w, value.tz);
  }
  deserialize(inBand: Uint8Array, _oob: OutOfBand, context: DecodeContext, base: number | null): PyTime {
    const fields = asArray(context.plain(inBand, base), "time", 6);
    const [h, m, s, us, fold] = ints(fields, 5, "time");
    return checked(() => new PyTime(h!, m!, s!, us!, fold!, readZone(fields[5])));
  }
}

/** [days, seconds, microseconds]; a reader normalizes other forms as Python's timedelta() does. */
export class TimeDeltaSerializer extends InlineSerializer<TimeDelta> {
  write(w: Writer, value: TimeDelta): void {
    w.arrayHeader(3);
    w.int(value.days);
    w.int(value.seconds);
    w.int(value.microseconds);
  }
  deserialize(inBand: Uint8Array, _oob: OutOfBand, context: DecodeContext, base: number | null): TimeDelta {
    const [d, s, us] = ints(asArray(context.plain(inBand, base), "timedelta", 3), 3, "timedelta");
    return checked(() => TimeDelta.fromMicroseconds((BigInt(d!) * 86_400n + BigInt(s!)) * 1_000_000n + BigInt(us!)));
  }
}
