// Is the every-K abstraction exact for this program, and with which period and cutoffs?
// (docs/checker.md, "A proof for every K".)
//
// Every expression is read as a quasi-affine function of two coordinates: inside a loop whose
// bound grows with K (a "K-loop"), u = the loop counter and w = bound − counter; outside, K
// itself. value = a·u + b·w + r, with r bounded and unchanged when the coordinates move by the
// period. Two moves matter: the *shift* (K and every counter advance together, w unchanged) and
// the *far* move (K grows while the counters stay, w grows). The explorer may shift a state or
// leave K open ("far") only where every expression evaluated from then on gives the same value
// (control: indices, parities, counts, conditions) or moves by exactly the shift (value tags,
// compared only for equality). This file checks that, rule by rule, and computes the period L and
// the cutoffs past which comparisons and divisions no longer change.
import type { Expr, Loc, Op, Program, Stmt } from '../ir/program.ts';
import { gcd, isZero, lcm, ONE, rat, radd, rdiv, rmul, rnum, rstr, rsub, ZERO, type Rat } from './rational.ts';

/** value = u·U + w·W + r with r ∈ [lo, hi] (U, W: the context's coordinates). */
interface QA {
  readonly u: Rat;
  readonly w: Rat;
  readonly lo: number;
  readonly hi: number;
}

type Direction = 'shift' | 'far';

interface Ctx {
  /** inside a K-loop: U = its counter, W = its bound − counter; else U = K (and W unused) */
  readonly loop: boolean;
  /** counter steps per unit of K (1 outside K-loops) */
  readonly sigma: Rat;
  /** the lowest value the K-loop's counter starts from */
  readonly fromLo: number;
  /** the moves that can happen while code in this context runs */
  readonly shift: boolean;
  readonly far: boolean;
  readonly vars: ReadonlyMap<string, QA>;
}

/** One loop over K in a role: the compiled variable slot of its counter and its rate. */
export interface KLoop {
  readonly slot: number;
  /** counter steps per unit of K */
  readonly sigma: Rat;
}

export interface Fragment {
  /** the period: K and the counters move by L and σL in one shift */
  readonly period: number;
  /** while K is open, K and K + farPeriod cannot be told apart (K's residue modulo it is kept) */
  readonly farPeriod: number;
  /** a K-loop counter must be ≥ this (after a shift) for comparisons and divisions to stay fixed */
  readonly counterCutoff: number;
  /** while K is open, every K-loop's bound − counter must be ≥ this */
  readonly distanceCutoff: number;
  /** K itself must be ≥ this outside K-loops, for the same reason */
  readonly kCutoff: number;
  /** per role: its K-loops in order (the last one is where a shift may happen) */
  readonly loops: readonly (readonly KLoop[])[];
  /** how far every stored value tag moves in one shift */
  readonly tagShift: number;
  /** per role: per variable slot, how far the variable moves in one shift (slot 0: K itself) */
  readonly slotShift: readonly (readonly number[])[];
  /** the smallest K at which a K-loop is entered with at least `distanceCutoff` to go, by the bounds */
  readonly entryK: number;
}

export interface NotExact {
  readonly message: string;
  readonly loc?: Loc;
}

export type FragmentResult = { readonly exact: true; readonly fragment: Fragment } | { readonly exact: false; readonly reasons: readonly NotExact[] };

const INF = Number.POSITIVE_INFINITY;
const konst = (c: number): QA => ({ u: ZERO, w: ZERO, lo: c, hi: c });
const OPAQUE: QA = { u: ZERO, w: ZERO, lo: -INF, hi: INF };
const BOOL: QA = { u: ZERO, w: ZERO, lo: 0, hi: 1 };
const isConst = (e: QA): boolean => isZero(e.u) && isZero(e.w) && e.lo === e.hi && Number.isFinite(e.lo);
const sorted = (a: number, b: number): [number, number] => (a <= b ? [a, b] : [b, a]);

/** Tags (stored values compared only for equality) vs everything else. */
function tagExprs(op: Op): Expr[] {
  switch (op.kind) {
    case 'put':
      return [op.value];
    case 'get':
    case 'read':
    case 'wgmma.issue':
      return op.expect ? [op.expect] : [];
    case 'tma.load':
    case 'write':
      return op.value ? [op.value] : [];
    default:
      return [];
  }
}

function controlExprs(op: Op): Expr[] {
  const refs = 'target' in op ? [op.target.index] : [];
  if (op.kind === 'tma.load') refs.push(op.barrier.index);
  switch (op.kind) {
    case 'init':
    case 'arrive':
      return [...refs, op.count];
    case 'arrive.expect_tx':
    case 'expect_tx':
    case 'complete_tx':
      return [...refs, op.bytes];
    case 'wait':
      return [...refs, op.parity];
    case 'tma.load':
      return [...refs, op.bytes, ...(op.slots ? [op.slots] : [])];
    case 'bulk.wait':
    case 'wgmma.wait':
      return [op.pending];
    case 'bar.sync':
    case 'bar.arrive':
      return [op.id, op.threads];
    default:
      return refs;
  }
}

class Analysis {
  readonly periodFactors: Record<Direction, number[]> = { shift: [1], far: [1] };
  counterCutoff = 0;
  distanceCutoff = 1;
  kCutoffShift = 0;
  kCutoffFar = 0;
  entryK = 0;
  readonly reasons: NotExact[] = [];
  private loc: Loc | undefined;

  readonly param: string;
  readonly fixed: ReadonlyMap<string, number>;

  constructor(param: string, fixed: ReadonlyMap<string, number>) {
    this.param = param;
    this.fixed = fixed;
  }

  fail(message: string): QA {
    this.reasons.push(this.loc ? { message, loc: this.loc } : { message });
    return OPAQUE;
  }

  at(loc: Loc | undefined): void {
    this.loc = loc;
  }

  /** How far `e` moves (in units of L) under each move, in `ctx`'s coordinates. */
  delta(e: QA, ctx: Ctx, dir: Direction): Rat {
    if (!ctx.loop) return e.u;
    return rmul(dir === 'shift' ? e.u : e.w, ctx.sigma);
  }

  moves(ctx: Ctx): Direction[] {
    return [...(ctx.shift ? (['shift'] as const) : []), ...(ctx.far ? (['far'] as const) : [])];
  }

  /** The period of move `dir` must make δ·period a multiple of c. */
  needPeriod(dir: Direction, delta: Rat, c: number): void {
    if (isZero(delta)) return;
    const m = Math.abs(c) * delta.d;
    this.periodFactors[dir].push(m / gcd(delta.n, m));
  }

  /**
   * The sign of `e` where move `dir` takes place (once past a cutoff, recorded here); undefined
   * (and a reason) when it is not fixed there.
   */
  fixSign(e: QA, ctx: Ctx, dir: Direction, what: string): 1 | -1 | undefined {
    // x: the coordinate the move advances; y ≥ yLo: the other one
    const a = rnum(ctx.loop ? (dir === 'shift' ? e.u : e.w) : e.u);
    const b = ctx.loop ? rnum(dir === 'shift' ? e.w : e.u) : 0;
    const yLo = ctx.loop ? (dir === 'shift' ? 1 : ctx.fromLo) : 0;
    let cutoff: number;
    let sign: 1 | -1;
    if (a > 0 && b >= 0 && Number.isFinite(e.lo) && Number.isFinite(yLo)) {
      cutoff = Math.floor(-(b * yLo + e.lo) / a) + 1;
      sign = 1;
    } else if (a < 0 && b <= 0 && Number.isFinite(e.hi) && Number.isFinite(yLo)) {
      cutoff = Math.floor((b * yLo + e.hi) / -a) + 1;
      sign = -1;
    } else {
      this.fail(`${what} changes sign arbitrarily far from the ends of the loop over ${this.param}`);
      return undefined;
    }
    cutoff = Math.max(0, cutoff);
    if (ctx.loop && dir === 'shift') this.counterCutoff = Math.max(this.counterCutoff, cutoff);
    else if (ctx.loop) this.distanceCutoff = Math.max(this.distanceCutoff, cutoff);
    else if (dir === 'shift') this.kCutoffShift = Math.max(this.kCutoffShift, cutoff);
    else this.kCutoffFar = Math.max(this.kCutoffFar, cutoff);
    return sign;
  }

  /** e ≠ 0 as a condition: fixed past a cutoff in every move, or moving with none. */
  truth(e: QA, ctx: Ctx, what: string): QA {
    for (const dir of this.moves(ctx)) if (!isZero(this.delta(e, ctx, dir))) this.fixSign(e, ctx, dir, what);
    return BOOL;
  }

  expr(e: Expr, ctx: Ctx): QA {
    switch (e.kind) {
      case 'num':
        return konst(e.value);
      case 'var': {
        const v = ctx.vars.get(e.name);
        if (v) return v;
        const p = this.fixed.get(e.name);
        return p === undefined ? this.fail(`unknown name '${e.name}'`) : konst(p);
      }
      case 'un': {
        const a = this.expr(e.arg, ctx);
        if (e.op === '!') return this.truth(a, ctx, 'a condition');
        return { u: rmul(a.u, rat(-1)), w: rmul(a.w, rat(-1)), lo: -a.hi, hi: -a.lo };
      }
      case 'bin':
        return this.binary(e.op, this.expr(e.left, ctx), this.expr(e.right, ctx), ctx);
    }
  }

  binary(op: Extract<Expr, { kind: 'bin' }>['op'], l: QA, r: QA, ctx: Ctx): QA {
    const moving = (x: QA): boolean => this.moves(ctx).some((d) => !isZero(this.delta(x, ctx, d)));
    const still = (x: QA): boolean => isZero(x.u) && isZero(x.w);
    switch (op) {
      case '+':
        return { u: radd(l.u, r.u), w: radd(l.w, r.w), lo: l.lo + r.lo, hi: l.hi + r.hi };
      case '-':
        return { u: rsub(l.u, r.u), w: rsub(l.w, r.w), lo: l.lo - r.hi, hi: l.hi - r.lo };
      case '*': {
        if (isConst(l)) return this.scale(r, l.lo);
        if (isConst(r)) return this.scale(l, r.lo);
        if (still(l) && still(r)) {
          const ps = [l.lo * r.lo, l.lo * r.hi, l.hi * r.lo, l.hi * r.hi].map((x) => (Number.isNaN(x) ? INF : x));
          return { u: ZERO, w: ZERO, lo: Math.min(...ps, ...(ps.includes(INF) ? [-INF] : [])), hi: Math.max(...ps) };
        }
        return moving(l) || moving(r) ? this.fail('a product of two values that both move with the loop counter') : OPAQUE;
      }
      case '/':
      case '%': {
        if (!isConst(r) || r.lo === 0) {
          if (moving(l) || moving(r)) return this.fail(`'${op}' by a value that is not a constant`);
          const m = Math.max(Math.abs(l.lo), Math.abs(l.hi));
          return { u: ZERO, w: ZERO, lo: -m, hi: m };
        }
        const c = r.lo;
        if (still(l)) {
          if (op === '/') return { u: ZERO, w: ZERO, ...bounds(sorted(Math.trunc(l.lo / c), Math.trunc(l.hi / c))) };
          const m = Math.abs(c) - 1;
          return { u: ZERO, w: ZERO, lo: l.lo >= 0 ? 0 : -m, hi: l.hi <= 0 ? 0 : m };
        }
        const signs = new Set<number>();
        for (const dir of this.moves(ctx)) {
          const d = this.delta(l, ctx, dir);
          if (isZero(d)) continue;
          const s = this.fixSign(l, ctx, dir, `the operand of '${op}'`);
          if (s === undefined) return OPAQUE;
          signs.add(s);
          this.needPeriod(dir, d, c);
        }
        if (op === '%') {
          const m = Math.abs(c) - 1;
          return { u: ZERO, w: ZERO, lo: signs.has(-1) || signs.size === 0 ? -m : 0, hi: signs.has(1) || signs.size === 0 ? m : 0 };
        }
        const [lo, hi] = sorted(l.lo / c, l.hi / c);
        return { u: rdiv(l.u, rat(c)), w: rdiv(l.w, rat(c)), lo: lo - 1, hi: hi + 1 };
      }
      case '&': {
        const [x, mask] = isConst(r) ? [l, r.lo] : isConst(l) ? [r, l.lo] : [undefined, 0];
        if (x === undefined || mask < 0) {
          if (moving(l) || moving(r)) return this.fail(`'&' of a moving value with a value that is not a non-negative constant`);
          return l.lo >= 0 && r.lo >= 0 ? { u: ZERO, w: ZERO, lo: 0, hi: Math.min(l.hi, r.hi) } : OPAQUE;
        }
        // x & mask depends on x mod 2^bits only (two's complement): periodic for any sign
        const period = 2 ** Math.ceil(Math.log2(mask + 1));
        for (const dir of this.moves(ctx)) this.needPeriod(dir, this.delta(x, ctx, dir), period);
        return { u: ZERO, w: ZERO, lo: 0, hi: mask };
      }
      case '|':
      case '^':
        if (moving(l) || moving(r)) return this.fail(`'${op}' of a value that moves with the loop counter`);
        return OPAQUE;
      case '<<':
        if (isConst(r) && r.lo >= 0 && r.lo <= 31) return this.scale(l, 2 ** r.lo);
        if (moving(l) || moving(r)) return this.fail(`'<<' by a value that is not a constant`);
        return OPAQUE;
      case '>>': {
        if (!isConst(r) || r.lo < 0 || r.lo > 31) {
          if (moving(l) || moving(r)) return this.fail(`'>>' by a value that is not a constant`);
          return OPAQUE;
        }
        const p = 2 ** r.lo;
        if (still(l)) return { u: ZERO, w: ZERO, lo: Math.floor(l.lo / p), hi: Math.floor(l.hi / p) };
        // floor division: exact under a move of a multiple of 2^s, whatever the sign
        for (const dir of this.moves(ctx)) this.needPeriod(dir, this.delta(l, ctx, dir), p);
        return { u: rdiv(l.u, rat(p)), w: rdiv(l.w, rat(p)), lo: l.lo / p - 1, hi: l.hi / p + 1 };
      }
      case '==':
      case '!=':
      case '<':
      case '<=':
      case '>':
      case '>=':
        return this.truth(this.binary('-', l, r, ctx), ctx, `the comparison '${op}'`);
      case '&&':
      case '||':
        this.truth(l, ctx, `the operand of '${op}'`);
        return this.truth(r, ctx, `the operand of '${op}'`);
    }
  }

  private scale(x: QA, c: number): QA {
    const [lo, hi] = sorted(x.lo * c, x.hi * c);
    return { u: rmul(x.u, rat(c)), w: rmul(x.w, rat(c)), lo: Number.isNaN(lo) ? -INF : lo, hi: Number.isNaN(hi) ? INF : hi };
  }

  /** Control operands must not move; tags must move by exactly the shift and not at all when K is open. */
  use(e: Expr, ctx: Ctx, kind: 'control' | 'tag'): void {
    const q = this.expr(e, ctx);
    for (const dir of this.moves(ctx)) {
      const d = this.delta(q, ctx, dir);
      // every tag must move by one same amount under the shift (equality between tags is kept)
      if (kind === 'tag' && dir === 'shift') this.tagMove ??= d;
      const want = kind === 'tag' && dir === 'shift' ? (this.tagMove ?? ONE) : ZERO;
      if (d.n !== want.n || d.d !== want.d || (kind === 'tag' && dir === 'shift' && isZero(d))) {
        this.fail(
          kind === 'control'
            ? `an operand moves with ${this.param} (by ${rstr(d)}·L when ${dir === 'shift' ? `${this.param} and the counters advance` : `${this.param} grows`}): only its residue, or a comparison near the ends, may depend on ${this.param}`
            : dir === 'shift'
              ? `a value tag moves by ${rstr(d)}·L when ${this.param} and the counters advance, ${isZero(d) ? 'not at all' : `but another by ${rstr(want)}·L`}: tags compared for equality must move together`
              : `a value tag depends on ${this.param} itself`,
        );
      }
    }
  }

  /** How far every value tag moves under one shift, in units of L (the first tag seen sets it). */
  tagMove: Rat | undefined;
}

function bounds([lo, hi]: [number, number]): { lo: number; hi: number } {
  return { lo: Number.isNaN(lo) ? -INF : lo, hi: Number.isNaN(hi) ? INF : hi };
}

/** The role's top-level loops whose bound grows with K (the others are bounded). */
function isKLoop(an: Analysis, s: Extract<Stmt, { kind: 'for' }>, both: Ctx): boolean {
  const scratch = new Analysis(an.param, an.fixed);
  const to = scratch.expr(s.to, both);
  const from = scratch.expr(s.from, both);
  // a loop whose bounds both move with K by the same rate runs a fixed number of times
  return rnum(to.u) > 0 && !(rnum(from.u) === rnum(to.u));
}

/**
 * Decide whether the counter abstraction is exact for `program` with `param` left open (the other
 * params at `fixed`), and compute its period and cutoffs. `slotBase`: the compiled machine's first
 * loop-variable slot (1: slot 0 holds the parameter).
 */
export function analyzeFragment(program: Program, param: string, fixed: ReadonlyMap<string, number>): FragmentResult {
  const an = new Analysis(param, fixed);
  const loops: KLoop[][] = [];
  const slotShift: Rat[][] = [];
  const kTop: QA = { u: ONE, w: ZERO, lo: 0, hi: 0 };
  const both: Ctx = { loop: false, sigma: ONE, fromLo: 0, shift: true, far: true, vars: new Map([[param, kTop]]) };

  // the least trip count of each bounded loop, as computed where it stands
  const trips = new Map<Stmt, number>();
  for (const role of program.roles) {
    const roleLoops: KLoop[] = [];
    const shifts: Rat[] = [ONE];
    let slot = 1;
    // which of the top-level statements are K-loops (before/between/after them: pre, mid, post)
    const kIndices = role.body.flatMap((s, i) => (s.kind === 'for' && isKLoop(an, s, both) ? [i] : []));
    const firstK = kIndices[0];
    const lastK = kIndices[kIndices.length - 1];
    const topCtx = (i: number): Ctx => {
      const none = firstK === undefined || lastK === undefined;
      const pre = none || i < firstK;
      const post = none || i > lastK;
      return { ...both, shift: post, far: pre };
    };

    const walk = (stmts: readonly Stmt[], ctx: Ctx, nested: boolean, top: boolean): void => {
      stmts.forEach((s, i) => {
        an.at(s.loc);
        const here = top ? topCtx(i) : ctx;
        if (s.kind === 'op') {
          for (const e of controlExprs(s.op)) an.use(e, here, 'control');
          for (const e of tagExprs(s.op)) an.use(e, here, 'tag');
        } else if (s.kind === 'if') {
          an.truth(an.expr(s.cond, here), here, 'a condition');
          walk(s.then, here, nested, false);
          walk(s.else, here, nested, false);
        } else if (top && kIndices.includes(i)) {
          kLoop(s, here, kIndices[0] === i, kIndices[kIndices.length - 1] === i);
        } else {
          boundedLoop(s, here, nested);
        }
      });
    };

    const boundedLoop = (s: Extract<Stmt, { kind: 'for' }>, ctx: Ctx, nested: boolean): void => {
      const mySlot = slot++;
      const from = an.expr(s.from, ctx);
      const to = an.expr(s.to, ctx);
      const trip = { u: rsub(to.u, from.u), w: rsub(to.w, from.w), lo: to.lo - from.hi, hi: to.hi - from.lo };
      for (const dir of an.moves(ctx)) {
        if (!isZero(an.delta(trip, ctx, dir))) an.fail(`the trip count of this loop grows with ${param}, but the loop is ${nested || ctx.loop ? 'nested in another loop' : 'not at the top of its role'}: only top-level loops may run to ${param}`);
      }
      trips.set(s, trip.lo);
      const v: QA = { ...from, hi: from.hi + Math.max(0, trip.hi - 1) };
      shifts[mySlot] = ctx.loop ? rmul(from.u, ctx.sigma) : from.u;
      walk(s.body, { ...ctx, vars: new Map(ctx.vars).set(s.var, v) }, true, false);
    };

    const kLoop = (s: Extract<Stmt, { kind: 'for' }>, ctx: Ctx, first: boolean, last: boolean): void => {
      const mySlot = slot++;
      // the bounds are evaluated where the loop starts; their shape is needed for every move
      const from = an.expr(s.from, both);
      const to = an.expr(s.to, both);
      an.truth(an.binary('-', an.expr(s.from, ctx), an.expr(s.to, ctx), ctx), ctx, 'the loop entry');
      if (!isZero(from.u)) an.fail(`both bounds of this loop grow with ${param}: a loop over ${param} must start at a fixed value`);
      if (!Number.isFinite(to.lo) || !Number.isFinite(to.hi) || !Number.isFinite(from.lo) || !Number.isFinite(from.hi)) an.fail(`the bounds of this loop are not understood`);
      const sigma = to.u;
      an.needPeriod('shift', sigma, 1);
      an.needPeriod('far', sigma, 1);

      // inside: U = counter, W = bound − counter; K = (U + W − r_to)/σ
      const inv = rdiv(ONE, sigma);
      const kIn: QA = { u: inv, w: inv, lo: -to.hi / rnum(sigma), hi: -to.lo / rnum(sigma) };
      const counter: QA = { u: ONE, w: ZERO, lo: 0, hi: 0 };
      const body: Ctx = { loop: true, sigma, fromLo: from.lo, shift: last, far: first, vars: new Map([...ctx.vars, [param, kIn], [s.var, counter]]) };
      an.at(s.loc);
      // the implicit condition counter < bound, every iteration: −W < 0 by definition of W
      an.truth({ u: ZERO, w: rat(-1), lo: 0, hi: 0 }, body, 'the loop condition');
      roleLoops.push({ slot: mySlot, sigma });
      shifts[mySlot] = sigma;
      walk(s.body, body, true, false);
      an.at(s.loc);
      if (!executesOp(s.body, trips)) an.fail(`every iteration of a loop over ${param} must execute an operation (this body may execute none: each is under an 'if' or in a loop that may run zero times)`);
      // the loop is entered with at least the distance cutoff to go once σ·K + to.lo − from.hi ≥ it
      // (the body's cutoffs are known by now)
      an.entryK = Math.max(an.entryK, Math.ceil((an.distanceCutoff + from.hi - to.lo) / rnum(sigma)) + 1);
    };

    walk(role.body, both, false, true);
    loops.push(roleLoops);
    slotShift.push(shifts);
  }

  const period = an.periodFactors.shift.reduce(lcm, 1);
  const farPeriod = an.periodFactors.far.reduce(lcm, 1);
  const slotMoves = slotShift.map((shifts) => Array.from(shifts, (q) => rnum(rmul(q ?? ZERO, rat(period)))));
  const tagShift = rnum(rmul(an.tagMove ?? ONE, rat(period)));
  if (!Number.isInteger(tagShift)) an.fail(`value tags move by a fraction when ${param} advances by the period ${period}`);
  if (slotMoves.some((ms) => ms.some((x) => !Number.isInteger(x)))) an.fail(`a loop variable moves by a fraction of a step when ${param} advances by the period ${period}`);
  if (loops.every((l) => l.length === 0)) an.fail(`no loop runs to ${param}: there is nothing to prove for every ${param} (check the values you need)`);
  if (an.reasons.length > 0) return { exact: false, reasons: dedupe(an.reasons) };
  return {
    exact: true,
    fragment: {
      period,
      farPeriod,
      counterCutoff: an.counterCutoff,
      distanceCutoff: an.distanceCutoff + 1,
      kCutoff: Math.max(an.kCutoffFar, an.kCutoffShift),
      loops,
      slotShift: slotMoves,
      tagShift,
      entryK: an.entryK,
    },
  };
}

/** Every pass through `stmts` executes an operation: one at the top, or in a loop that runs at least once. */
function executesOp(stmts: readonly Stmt[], trips: ReadonlyMap<Stmt, number>): boolean {
  return stmts.some((s) => s.kind === 'op' || (s.kind === 'for' && (trips.get(s) ?? 0) >= 1 && executesOp(s.body, trips)));
}

function dedupe(reasons: readonly NotExact[]): NotExact[] {
  const seen = new Set<string>();
  return reasons.filter((r) => {
    const key = `${r.loc?.line}:${r.loc?.col}:${r.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

