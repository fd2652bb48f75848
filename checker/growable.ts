// Typed arrays that grow on demand, under one byte budget shared by all of the explorer's
// structures. Typed-array memory lives off the V8 heap, so the heap limit does not stop a big
// run; the budget (and a failed allocation) does, and turns into an `inconclusive` verdict.

/** Thrown when growing would pass the byte budget or the allocation itself fails. */
export class MemoryLimitError extends Error {
  override readonly name = 'MemoryLimitError';
}

/** Bytes held by the explorer's typed arrays, and the most it may hold. */
export class ByteBudget {
  used = 0;
  readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  /** Allocate a fresh array of `length` elements, charged to the budget. */
  alloc<T extends GrowableArray>(make: new (length: number) => T, length: number): T {
    const bytes = length * (make as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
    this.charge(bytes);
    try {
      return new make(length);
    } catch (e) {
      this.used -= bytes;
      throw asMemoryError(e, bytes);
    }
  }

  /** Free an array that is no longer used (its bytes leave the budget). */
  release(a: GrowableArray): void {
    this.used -= a.byteLength;
  }

  private charge(bytes: number): void {
    if (this.used + bytes > this.max) {
      throw new MemoryLimitError(
        `memory limit: ${fmtBytes(this.used + bytes)} needed, limit ${fmtBytes(this.max)}`,
      );
    }
    this.used += bytes;
  }
}

export interface GrowableArray {
  readonly length: number;
  readonly byteLength: number;
  set(source: ArrayLike<number>, offset?: number): void;
}

/** A copy of `a` with room for at least `needed` elements (capacity grows by half: less slack than doubling). */
export function grow<T extends GrowableArray>(a: T, needed: number, budget: ByteBudget): T {
  let length = Math.max(16, Math.ceil(a.length * 1.5));
  while (length < needed) length = Math.ceil(length * 1.5);
  const make = a.constructor as new (length: number) => T;
  const next = budget.alloc(make, length);
  next.set(a as unknown as ArrayLike<number>);
  budget.release(a);
  return next;
}

function asMemoryError(e: unknown, bytes: number): unknown {
  if (e instanceof RangeError) {
    return new MemoryLimitError(`memory: could not allocate ${fmtBytes(bytes)} (${e.message})`);
  }
  return e;
}

export function fmtBytes(n: number): string {
  if (n >= 2 ** 30) return `${(n / 2 ** 30).toFixed(1)} GiB`;
  if (n >= 2 ** 20) return `${(n / 2 ** 20).toFixed(1)} MiB`;
  if (n >= 2 ** 10) return `${(n / 2 ** 10).toFixed(1)} KiB`;
  return `${n} B`;
}
