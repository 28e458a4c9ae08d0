/**
 * Date and time value classes (docs/FORMAT.md, sections 6.1 and 7): a JS `Date`
 * holds an instant to the millisecond and no zone, so Python's datetime, date,
 * time and timedelta come back as these classes, which keep every field as
 * Python has it (wall-clock fields, microseconds, fold, the zone). A JS `Date`
 * is written as an aware UTC datetime (offset 0) and reads back as a
 * {@link PyDateTime}; `toDate()` converts where an instant is defined.
 */

/** A fixed UTC offset (Python `datetime.timezone`), in microseconds, with an optional name. */
export class FixedOffset {
  constructor(readonly offsetMicroseconds: number, readonly name: string | null = null) {
    if (!Number.isSafeInteger(offsetMicroseconds) || Math.abs(offsetMicroseconds) >= 86_400_000_000) {
      throw new RangeError(`a UTC offset is strictly between -24 h and 24 h, in whole microseconds; not ${offsetMicroseconds}`);
    }
    if (name !== null && typeof name !== "string") throw new TypeError("a FixedOffset name is a string or null");
  }
  static readonly UTC = new FixedOffset(0);
}

/** Python tzinfo as serreg carries it: none (naive), a fixed offset, or an IANA zone key. */
export type TimeZone = null | FixedOffset | string;

function checkInt(name: string, v: number, lo: number, hi: number): void {
  if (!Number.isSafeInteger(v) || v < lo || v > hi) throw new RangeError(`${name} must be an integer in [${lo}, ${hi}], not ${String(v)}`);
}

function checkZone(tz: TimeZone): void {
  if (tz === null || tz instanceof FixedOffset) return;
  if (typeof tz !== "string" || tz.length === 0) throw new TypeError("a time zone is null, a FixedOffset or an IANA zone key string");
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Python datetime.date. */
export class PyDate {
  constructor(readonly year: number, readonly month: number, readonly day: number) {
    checkInt("year", year, 1, 9999);
    checkInt("month", month, 1, 12);
    checkInt("day", day, 1, daysInMonth(year, month));
  }
  toString(): string {
    return `${String(this.year).padStart(4, "0")}-${pad(this.month)}-${pad(this.day)}`;
  }
}

/** Python datetime.time. */
export class PyTime {
  constructor(
    readonly hour: number, readonly minute = 0, readonly second = 0, readonly microsecond = 0,
    readonly fold = 0, readonly tz: TimeZone = null,
  ) {
    checkInt("hour", hour, 0, 23);
    checkInt("minute", minute, 0, 59);
    checkInt("second", second, 0, 59);
    checkInt("microsecond", microsecond, 0, 999_999);
    checkInt("fold", fold, 0, 1);
    checkZone(tz);
  }
  toString(): string {
    return `${pad(this.hour)}:${pad(this.minute)}:${pad(this.second)}.${String(this.microsecond).padStart(6, "0")}${zoneText(this.tz)}`;
  }
}

/** Python datetime.datetime: wall-clock fields, fold, zone. */
export class PyDateTime {
  constructor(
    readonly year: number, readonly month: number, readonly day: number,
    readonly hour = 0, readonly minute = 0, readonly second = 0, readonly microsecond = 0,
    readonly fold = 0, readonly tz: TimeZone = null,
  ) {
    new PyDate(year, month, day);
    new PyTime(hour, minute, second, microsecond, fold, tz);
  }

  /** An aware UTC datetime at the instant of `date` (milliseconds become microseconds). */
  static fromDate(date: Date): PyDateTime {
    const t = date.getTime();
    if (Number.isNaN(t)) throw new RangeError("an invalid Date has no datetime");
    return new PyDateTime(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), date.getUTCHours(),
      date.getUTCMinutes(), date.getUTCSeconds(), date.getUTCMilliseconds() * 1000, 0, FixedOffset.UTC);
  }

  /**
   * The instant, for a datetime with a fixed offset, as a JS Date (microseconds below
   * the millisecond are dropped: that is what a Date can hold). Naive datetimes and
   * IANA zones have no instant without a zone database: TypeError.
   */
  toDate(): Date {
    if (!(this.tz instanceof FixedOffset)) throw new TypeError("only a datetime with a fixed UTC offset converts to a Date");
    const utc = Date.UTC(this.year, this.month - 1, this.day, this.hour, this.minute, this.second, Math.floor(this.microsecond / 1000));
    const date = new Date(0);
    date.setTime(utc - Math.trunc(this.tz.offsetMicroseconds / 1000));
    if (this.year < 100) date.setUTCFullYear(date.getUTCFullYear()); // Date.UTC maps years 0..99 to 1900..1999
    return date;
  }

  toString(): string {
    return `${new PyDate(this.year, this.month, this.day).toString()}T${new PyTime(this.hour, this.minute, this.second, this.microsecond, 0, this.tz).toString()}${this.fold ? " fold=1" : ""}`;
  }
}

const MAX_DAYS = 999_999_999;

/** Python datetime.timedelta in its normalized form: 0 <= seconds < 86400, 0 <= microseconds < 10^6. */
export class TimeDelta {
  constructor(readonly days: number, readonly seconds = 0, readonly microseconds = 0) {
    checkInt("days", days, -MAX_DAYS, MAX_DAYS);
    checkInt("seconds", seconds, 0, 86_399);
    checkInt("microseconds", microseconds, 0, 999_999);
  }

  /** A timedelta of `total` microseconds (normalized as Python does). */
  static fromMicroseconds(total: bigint | number): TimeDelta {
    const t = BigInt(total);
    const perDay = 86_400_000_000n;
    let days = t / perDay;
    let rest = t % perDay;
    if (rest < 0n) {
      rest += perDay;
      days -= 1n;
    }
    return new TimeDelta(Number(days), Number(rest / 1_000_000n), Number(rest % 1_000_000n));
  }

  totalMicroseconds(): bigint {
    return (BigInt(this.days) * 86_400n + BigInt(this.seconds)) * 1_000_000n + BigInt(this.microseconds);
  }
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

function zoneText(tz: TimeZone): string {
  if (tz === null) return "";
  if (typeof tz === "string") return `[${tz}]`;
  const us = tz.offsetMicroseconds;
  const sign = us < 0 ? "-" : "+";
  const a = Math.abs(us);
  return `${sign}${pad(Math.floor(a / 3_600_000_000))}:${pad(Math.floor(a / 60_000_000) % 60)}${a % 60_000_000 ? `:${(a % 60_000_000) / 1e6}` : ""}`;
}
