/**
 * The value checks of fixed-width Arrow columns read from a frame that Python's
 * reader makes (Arrow's full validation) and apache-arrow does not: a decimal
 * fits its precision, a time of day lies in [0, 24 h), a date64 is a whole number
 * of days. apache-arrow would hand out such values as they are (a time past
 * midnight, a decimal with more digits than its type); Python refuses the column,
 * and so does this check. Null slots are not looked at (Arrow does not either).
 */
import * as arrow from "apache-arrow";
import { DeserializationError } from "../errors.js";

const DAY_MS = 86_400_000;
/** Ticks per day of a time of day, by unit. */
const DAY: Record<number, [bigint, string]> = {
  [arrow.TimeUnit.SECOND]: [86_400n, "s"], [arrow.TimeUnit.MILLISECOND]: [86_400_000n, "ms"],
  [arrow.TimeUnit.MICROSECOND]: [86_400_000_000n, "us"], [arrow.TimeUnit.NANOSECOND]: [86_400_000_000_000n, "ns"],
};

function isValid(validity: Uint8Array | undefined, i: number): boolean {
  return validity === undefined || ((validity[i >> 3]! >> (i & 7)) & 1) === 1;
}

/** Throws unless every non-null value of a column of `type` in `bytes` (little-endian, `length` values) is in its domain. */
export function checkValues(type: arrow.DataType, bytes: Uint8Array, length: number, validity: Uint8Array | undefined, where: string): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (type.typeId) {
    case arrow.Type.Time: {
      const time = type as arrow.Time;
      const [day, unit] = DAY[time.unit]!;
      const wide = time.bitWidth === 64;
      for (let i = 0; i < length; i++) {
        if (!isValid(validity, i)) continue;
        const v = wide ? view.getBigInt64(8 * i, true) : BigInt(view.getInt32(4 * i, true));
        if (v < 0n || v >= day) {
          throw new DeserializationError(`invalid Arrow time${time.bitWidth}[${unit}] column: ${where} holds ${v} at slot ${i}, outside the range [0, ${day}) ${unit}`);
        }
      }
      return;
    }
    case arrow.Type.Date:
      if ((type as arrow.Date_).unit !== arrow.DateUnit.MILLISECOND) return;
      for (let i = 0; i < length; i++) {
        if (!isValid(validity, i)) continue;
        const v = view.getBigInt64(8 * i, true);
        if (v % BigInt(DAY_MS) !== 0n) {
          throw new DeserializationError(`invalid Arrow date64[ms] column: ${where} holds ${v} at slot ${i}, which is not a whole number of days`);
        }
      }
      return;
    case arrow.Type.Decimal: {
      const decimal = type as arrow.Decimal;
      const words = decimal.bitWidth / 64;
      const limit = 10n ** BigInt(decimal.precision);
      for (let i = 0; i < length; i++) {
        if (!isValid(validity, i)) continue;
        const at = 8 * words * i;
        let v = view.getBigInt64(at + 8 * (words - 1), true);
        for (let w = words - 2; w >= 0; w--) v = (v << 64n) | view.getBigUint64(at + 8 * w, true);
        if (v >= limit || -v >= limit) {
          throw new DeserializationError(`invalid Arrow decimal${decimal.bitWidth}(${decimal.precision}, ${decimal.scale}) column: ${where} holds ${v} at slot ${i}, which does not fit its precision of ${decimal.precision} digits`);
        }
      }
      return;
    }
    default:
      return;
  }
}
