/**
 * {@link Decimal} (Python `decimal.Decimal`) and {@link UUID} (Python `uuid.UUID`)
 * as small value classes (docs/FORMAT.md, sections 6.1 and 7).
 *
 * A Decimal keeps sign, coefficient digits and exponent exactly (no binary
 * rounding, trailing zeros kept: `1.50` stays `1.50`), and its text is the
 * General Decimal Arithmetic to-scientific-string, which is what Python's
 * `str(d)` and Java's `BigDecimal.toString()` write. Parsing is linear in the
 * digits.
 */

const NUMBER = /^([+-]?)(?:(\d+)\.?(\d*)|\.(\d+))(?:[eE]([+-]?\d+))?$/;
const SPECIAL = /^([+-]?)(?:(inf|infinity)|(nan|snan)(\d*))$/i;

export type DecimalKind = "finite" | "infinity" | "nan" | "snan";

export class Decimal {
  readonly negative: boolean;
  readonly kind: DecimalKind;
  /** Coefficient digits without leading zeros ("0" for zero); for NaNs, the payload ("" for none). */
  readonly digits: string;
  /** Exponent of the last coefficient digit (finite values only; 0 otherwise). */
  readonly exponent: bigint;

  /** Parses Python's decimal string syntax (no spaces or underscores); RangeError when invalid. */
  constructor(text: string) {
    if (typeof text !== "string") throw new TypeError(`a Decimal is made from its text, not ${typeof text}`);
    const m = NUMBER.exec(text);
    if (m) {
      this.negative = m[1] === "-";
      this.kind = "finite";
      const whole = m[2] ?? "";
      const fraction = m[3] ?? m[4] ?? "";
      this.digits = stripZeros(whole + fraction) || "0";
      this.exponent = (m[5] === undefined ? 0n : BigInt(m[5])) - BigInt(fraction.length);
      return;
    }
    const s = SPECIAL.exec(text);
    if (!s) throw new RangeError(`invalid decimal text ${JSON.stringify(text.slice(0, 40))}`);
    this.negative = s[1] === "-";
    this.exponent = 0n;
    if (s[2] !== undefined) {
      this.kind = "infinity";
      this.digits = "";
    } else {
      this.kind = s[3]!.toLowerCase() === "nan" ? "nan" : "snan";
      this.digits = stripZeros(s[4] ?? "");
    }
  }

  isFinite(): boolean {
    return this.kind === "finite";
  }

  /** The to-scientific-string (Python str(d)). */
  toString(): string {
    const sign = this.negative ? "-" : "";
    if (this.kind === "infinity") return `${sign}Infinity`;
    if (this.kind === "nan") return `${sign}NaN${this.digits}`;
    if (this.kind === "snan") return `${sign}sNaN${this.digits}`;
    const c = this.digits;
    const e = this.exponent;
    const adjusted = e + BigInt(c.length - 1);
    if (e <= 0n && adjusted >= -6n) {
      if (e === 0n) return sign + c;
      const after = Number(-e);
      if (c.length > after) return `${sign}${c.slice(0, c.length - after)}.${c.slice(c.length - after)}`;
      return `${sign}0.${"0".repeat(after - c.length)}${c}`;
    }
    const mantissa = c.length > 1 ? `${c[0]}.${c.slice(1)}` : c;
    return `${sign}${mantissa}E${adjusted >= 0n ? "+" : "-"}${adjusted < 0n ? -adjusted : adjusted}`;
  }

  toJSON(): string {
    return this.toString();
  }
}

function stripZeros(digits: string): string {
  let i = 0;
  while (i < digits.length && digits.charCodeAt(i) === 48) i++;
  return digits.slice(i);
}

const UUID_TEXT = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** A UUID: 16 bytes in RFC 4122 (big-endian) order. */
export class UUID {
  readonly bytes: Uint8Array;
  constructor(value: string | Uint8Array) {
    if (typeof value === "string") {
      if (!UUID_TEXT.test(value)) throw new RangeError(`invalid UUID text ${JSON.stringify(value.slice(0, 40))}`);
      const hex = value.replace(/-/g, "");
      this.bytes = new Uint8Array(16);
      for (let i = 0; i < 16; i++) this.bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
    } else {
      if (!(value instanceof Uint8Array) || value.length !== 16) throw new TypeError("a UUID is 16 bytes or its text");
      this.bytes = value.slice();
    }
  }
  toString(): string {
    const h = Array.from(this.bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
  toJSON(): string {
    return this.toString();
  }
}
