// The lifter's value domain. A register of a warp holds one Val: a Scalar shared by every
// lane (the common case), or a 32-entry lane vector where lanes differ (%tid-derived values).
// A Scalar is a known integer (bigint, unsigned in its width), a symbolic address (a param,
// a local variable, a global pointer whose value the lifter does not know), or Unknown with
// the reason it is unknown, so an error can say where an unknown branch condition came from.

export class Unknown {
  readonly why: string;
  /** the line of the ordered global load (`ld.acquire`, `.volatile`) this value came from: a flag other CTAs set */
  readonly flag: number | undefined;
  /** what first made a value unknown, when `why` is a branch on data it flowed through (a division by zero at line 140) */
  readonly origin: string | undefined;
  constructor(why: string, flag?: number, origin?: string) {
    this.why = why;
    this.flag = flag;
    this.origin = origin;
  }
}

/** `base + offset` where base names a variable the lifter does not place in shared memory. */
export class SymAddr {
  readonly base: string;
  readonly offset: bigint;
  constructor(base: string, offset: bigint) {
    this.base = base;
    this.offset = offset;
  }
}

/**
 * The state an mbarrier arrive returns (`mbarrier.arrive … state, [bar]`): which barrier, of which
 * CTA, and the phase the arrive fell in. A token wait (`try_wait … [bar], state`) waits for that
 * phase to complete. `site` identifies the arrive (for naming the token in the model).
 */
export class Token {
  readonly cta: number;
  readonly bar: number;
  readonly phase: number;
  readonly site: number;
  constructor(cta: number, bar: number, phase: number, site: number) {
    this.cta = cta;
    this.bar = bar;
    this.phase = phase;
    this.site = site;
  }
}

export type Scalar = bigint | SymAddr | Unknown | Token;
export type Lanes = readonly Scalar[];
export type Val = Scalar | Lanes;

export const WARP = 32;

/** Generic addresses of shared memory: shared-window offset + this base (cvta.shared / cvta.to.shared). */
export const SHARED_GENERIC_BASE = 0x7000_0000_0000n;
export const SHARED_WINDOW = 1n << 32n;

export function isLanes(v: Val): v is Lanes {
  return Array.isArray(v);
}

export function laneOf(v: Val, lane: number): Scalar {
  if (Array.isArray(v)) return (v as Lanes)[lane] ?? UNINIT;
  return v as Scalar;
}

export const UNINIT = new Unknown('an uninitialised register');

export function sameScalar(a: Scalar, b: Scalar): boolean {
  if (a === b) return true;
  if (a instanceof SymAddr && b instanceof SymAddr) return a.base === b.base && a.offset === b.offset;
  if (a instanceof Token && b instanceof Token) return a.cta === b.cta && a.bar === b.bar && a.phase === b.phase && a.site === b.site;
  return false;
}

/** Collapse a lane vector whose live lanes all hold the same scalar. */
export function canonical(lanes: Lanes, live: number): Val {
  let first: Scalar | undefined;
  for (let l = 0; l < WARP; l++) {
    if (((live >>> l) & 1) === 0) continue;
    const x = lanes[l] ?? UNINIT;
    if (first === undefined) first = x;
    else if (!sameScalar(first, x)) return lanes;
  }
  return first ?? UNINIT;
}

export function popcount(m: number): number {
  let x = m >>> 0;
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

export function firstLane(m: number): number {
  return m === 0 ? -1 : 31 - Math.clz32(m & -m);
}

/** A stable text key for grouping lanes by value. */
export function scalarKey(x: Scalar): string {
  if (typeof x === 'bigint') return x.toString();
  if (x instanceof SymAddr) return `${x.base}+${x.offset}`;
  if (x instanceof Token) return `token:${x.cta}:${x.bar}:${x.phase}:${x.site}`;
  return `?${x.why}`;
}

/** The first Unknown among scalars, if any (its reason explains the result). */
export function firstUnknown(...xs: Scalar[]): Unknown | undefined {
  for (const x of xs) if (x instanceof Unknown) return x;
  return undefined;
}

/** An address plus a constant offset (a symbolic address keeps its base; other values stay as they are). */
export function plusOffset(x: Scalar, off: bigint): Scalar {
  if (off === 0n) return x;
  return typeof x === 'bigint' ? x + off : x instanceof SymAddr ? new SymAddr(x.base, x.offset + off) : x;
}
