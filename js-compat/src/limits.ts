/**
 * Limits on what one deserialize call accepts, so hostile bytes cannot exhaust
 * a process (docs/FORMAT.md, section 4.3). Same limits and defaults as Python's
 * `serreg.Limits` and Java's `serreg.Limits`: `max_frame_size` is `maxFrameSize`
 * here, `max_buffers` is `maxBuffers`, `max_depth` is `maxDepth`, msgpack
 * nesting is `maxMsgpackNesting`, and the memory budget is `memoryPerByte` and
 * `memoryAllowance` (Java's names). `null` switches a limit off (either part of
 * the budget switches the budget off).
 */

export interface LimitsInit {
  /** Largest frame in bytes, checked against the header first (4 GiB). */
  maxFrameSize?: number | null;
  /** Most out-of-band buffers in one frame (100,000). */
  maxBuffers?: number | null;
  /** Most values nested inside each other through serializers (ext 0 levels) (100). */
  maxDepth?: number | null;
  /** Most msgpack arrays and maps open at once inside one in-band (1,024). */
  maxMsgpackNesting?: number | null;
  /**
   * What serializers may build for a frame of S bytes, beyond the frame itself: at most
   * `memoryAllowance + memoryPerByte x S` bytes, counted before it is built (Arrow fields,
   * batches and field nodes at their measured cost) (16).
   */
  memoryPerByte?: number | null;
  /** The fixed part of that budget, in bytes (32 MiB). */
  memoryAllowance?: number | null;
}

export class Limits {
  readonly maxFrameSize: number | null;
  readonly maxBuffers: number | null;
  readonly maxDepth: number | null;
  readonly maxMsgpackNesting: number | null;
  readonly memoryPerByte: number | null;
  readonly memoryAllowance: number | null;

  constructor(init: LimitsInit = {}) {
    this.maxFrameSize = check("maxFrameSize", init.maxFrameSize, 4 * 2 ** 30);
    this.maxBuffers = check("maxBuffers", init.maxBuffers, 100_000);
    this.maxDepth = check("maxDepth", init.maxDepth, 100);
    this.maxMsgpackNesting = check("maxMsgpackNesting", init.maxMsgpackNesting, 1024);
    this.memoryPerByte = check("memoryPerByte", init.memoryPerByte, 16);
    this.memoryAllowance = check("memoryAllowance", init.memoryAllowance, 32 * 2 ** 20);
    Object.freeze(this);
  }

  /** A copy with some limits changed. */
  with(changes: LimitsInit): Limits {
    return new Limits({ ...this, ...changes });
  }
}

function check(name: string, value: number | null | undefined, fallback: number): number | null {
  if (value === undefined) return fallback;
  if (value === null) return null;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`Limits.${name} must be a non-negative integer or null, not ${String(value)}`);
  }
  return value;
}

export const DEFAULT_LIMITS = new Limits();
