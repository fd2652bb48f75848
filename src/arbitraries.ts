// fast-check arbitraries for users' property tests: random valid Programs and pipeline parameters.
// Every program arbProgram() draws passes validateProgram: indices are `(e) % size` with e built
// only from non-negative parts, parities are `e & 1`, counts and bytes stay in their ranges.
import * as fc from 'fast-check';
import type { BinOp, Expr, Op, Param, Program, Ref, Resource, Role, Stmt } from './ir/program.ts';
import { PIPELINE_MAX } from './pipeline.ts';

/** The Tawa pipeline family's parameters (DESIGN.md): depth D, MMA pending P, consumers C, iterations K. */
export interface PipelineParams {
  readonly depth: number;
  readonly pending: number;
  readonly consumers: number;
  readonly iterations: number;
}

/** An inclusive range of integers. */
export interface IntRange {
  readonly min: number;
  readonly max: number;
}

/** Ranges for arbPipelineParams; each defaults to the small range that is explored exhaustively. */
export interface PipelineRanges {
  readonly depth?: IntRange;
  readonly pending?: IntRange;
  readonly consumers?: IntRange;
  readonly iterations?: IntRange;
}

/** Default D in 1..4, P in 0..3, C in 1..2, K in 1..8: small enough to explore exhaustively. */
export function arbPipelineParams(ranges: PipelineRanges = {}): fc.Arbitrary<PipelineParams> {
  const range = (name: keyof PipelineRanges, lowest: number, fallback: IntRange): fc.Arbitrary<number> => {
    const r = ranges[name] ?? fallback;
    const highest = PIPELINE_MAX[name];
    if (!Number.isInteger(r.min) || !Number.isInteger(r.max) || r.min < lowest || r.max < r.min || r.max > highest)
      throw new RangeError(`arbPipelineParams: ${name} range ${r.min}..${r.max} must be integers with ${lowest} ≤ min ≤ max ≤ ${highest}`);
    return fc.integer(r);
  };
  return fc.record({
    depth: range('depth', 1, { min: 1, max: 4 }),
    pending: range('pending', 0, { min: 0, max: 3 }),
    consumers: range('consumers', 1, { min: 1, max: 2 }),
    iterations: range('iterations', 1, { min: 1, max: 8 }),
  });
}

export interface ArbProgramOptions {
  /** Deepest nesting of for/if inside a role (default 2). */
  readonly maxNesting?: number;
  /** Most statements per block (default 4). */
  readonly maxStatements?: number;
  /** Most roles (default 3). */
  readonly maxRoles?: number;
  /** Whether roles may use `atomic` (default false: SPIN's models have no atomics). */
  readonly atomics?: boolean;
}

const num = (value: number): Expr => ({ kind: 'num', value });
const bin = (op: BinOp, left: Expr, right: Expr): Expr => ({ kind: 'bin', op, left, right });

/** Expressions whose value is never negative, given non-negative variables. */
function nonNegative(vars: readonly string[]): fc.Arbitrary<Expr> {
  const leaf = fc.oneof(
    fc.integer({ min: 0, max: 8 }).map(num),
    ...(vars.length > 0 ? [fc.constantFrom(...vars).map((name): Expr => ({ kind: 'var', name }))] : []),
  );
  const tree = fc.memo((n: number): fc.Arbitrary<Expr> => {
    if (n <= 1) return leaf;
    const sub = tree(n - 1);
    return fc.oneof(
      { arbitrary: leaf, weight: 3 },
      fc.tuple(fc.constantFrom<BinOp>('+', '*', '&', '|', '^'), sub, sub).map(([op, l, r]) => bin(op, l, r)),
      fc.tuple(fc.constantFrom<BinOp>('/', '%'), sub, fc.integer({ min: 1, max: 4 })).map(([op, l, r]) => bin(op, l, num(r))),
      fc.tuple(sub, fc.integer({ min: 0, max: 2 })).map(([l, r]) => bin('>>', l, num(r))),
    );
  });
  return tree(3);
}

/** Any expression that evaluates without error (divisors are non-zero literals). */
function anyExpr(vars: readonly string[]): fc.Arbitrary<Expr> {
  const leaf = fc.oneof(
    fc.integer({ min: -5, max: 9 }).map(num),
    ...(vars.length > 0 ? [fc.constantFrom(...vars).map((name): Expr => ({ kind: 'var', name }))] : []),
  );
  const tree = fc.memo((n: number): fc.Arbitrary<Expr> => {
    if (n <= 1) return leaf;
    const sub = tree(n - 1);
    return fc.oneof(
      { arbitrary: leaf, weight: 3 },
      fc.tuple(fc.constantFrom<BinOp>('+', '-', '*', '&', '|', '^', '==', '!=', '<', '<=', '>', '>=', '&&', '||'), sub, sub).map(([op, l, r]) => bin(op, l, r)),
      fc.tuple(fc.constantFrom<BinOp>('/', '%'), sub, fc.constantFrom(-3, -1, 1, 2, 3)).map(([op, l, r]) => bin(op, l, num(r))),
      fc.tuple(fc.constantFrom<BinOp>('<<', '>>'), sub, fc.integer({ min: 0, max: 3 })).map(([op, l, r]) => bin(op, l, num(r))),
      fc.tuple(fc.constantFrom('-', '!') as fc.Arbitrary<'-' | '!'>, sub).map(([op, arg]): Expr => ({ kind: 'un', op, arg })),
    );
  });
  return tree(3);
}

/** A value in lo..hi: a literal, or `(e) % (hi - lo + 1) + lo`. */
function inRange(vars: readonly string[], lo: number, hi: number): fc.Arbitrary<Expr> {
  const literal = fc.integer({ min: lo, max: hi }).map(num);
  const computed = nonNegative(vars).map((e) => {
    const mod = bin('%', e, num(hi - lo + 1));
    return lo === 0 ? mod : bin('+', mod, num(lo));
  });
  return fc.oneof(literal, computed);
}

function refTo(resources: readonly Resource[], vars: readonly string[]): fc.Arbitrary<Ref> {
  return fc.oneof(...resources.map((r) => {
    const size = r.kind === 'aref' ? r.depth : r.kind === 'mbarrier' ? r.size : r.slots;
    return inRange(vars, 0, size - 1).map((index): Ref => ({ name: r.name, index }));
  }));
}

const optional = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(a, { nil: undefined });

/** Operations of every family whose resources exist, with in-range operands. */
function arbOp(resources: readonly Resource[], vars: readonly string[], atomics = false): fc.Arbitrary<Op> {
  const arefs = resources.filter((r) => r.kind === 'aref');
  const bars = resources.filter((r) => r.kind === 'mbarrier');
  const buffers = resources.filter((r) => r.kind === 'buffer');
  const value = anyExpr(vars);
  const ops: fc.Arbitrary<Op>[] = [
    fc.constantFrom<Op>({ kind: 'bulk.commit' }, { kind: 'wgmma.commit' }, { kind: 'fence.proxy.async' }),
    fc.tuple(fc.constantFrom('bulk.wait', 'wgmma.wait') as fc.Arbitrary<'bulk.wait' | 'wgmma.wait'>, inRange(vars, 0, 3)).map(([kind, pending]): Op => ({ kind, pending })),
    fc.tuple(fc.constantFrom('bar.sync', 'bar.arrive') as fc.Arbitrary<'bar.sync' | 'bar.arrive'>, inRange(vars, 0, 15), inRange(vars, 1, 8))
      .map(([kind, id, warps]): Op => ({ kind, id, threads: bin('*', num(32), warps) })),
  ];
  if (arefs.length > 0) {
    const a = refTo(arefs, vars);
    ops.push(
      fc.tuple(a, value).map(([target, v]): Op => ({ kind: 'put', target, value: v })),
      fc.tuple(a, optional(value)).map(([target, expect]): Op => (expect === undefined ? { kind: 'get', target } : { kind: 'get', target, expect })),
      a.map((target): Op => ({ kind: 'consumed', target })),
    );
  }
  if (bars.length > 0) {
    const b = refTo(bars, vars);
    const bytes = inRange(vars, 1, 65536);
    ops.push(
      fc.tuple(b, inRange(vars, 1, 4)).map(([target, count]): Op => ({ kind: 'init', target, count })),
      fc.tuple(b, inRange(vars, 1, 4)).map(([target, count]): Op => ({ kind: 'arrive', target, count })),
      fc.tuple(fc.constantFrom('arrive.expect_tx', 'expect_tx', 'complete_tx') as fc.Arbitrary<'arrive.expect_tx' | 'expect_tx' | 'complete_tx'>, b, bytes)
        .map(([kind, target, n]): Op => ({ kind, target, bytes: n })),
      fc.tuple(b, fc.oneof(inRange(vars, 0, 1), nonNegative(vars).map((e) => bin('&', e, num(1))), nonNegative(vars).map((e) => bin('^', bin('&', e, num(1)), num(1)))))
        .map(([target, parity]): Op => ({ kind: 'wait', target, parity })),
      b.map((target): Op => ({ kind: 'inval', target })),
    );
  }
  if (buffers.length > 0) {
    const s = refTo(buffers, vars);
    ops.push(
      s.map((target): Op => ({ kind: 'tma.store', target })),
      fc.tuple(s, optional(value)).map(([target, expect]): Op => (expect === undefined ? { kind: 'read', target } : { kind: 'read', target, expect })),
      fc.tuple(s, optional(value)).map(([target, v]): Op => (v === undefined ? { kind: 'write', target } : { kind: 'write', target, value: v })),
    );
    if (atomics) ops.push(s.map((target): Op => ({ kind: 'atomic', target })));
    if (bars.length > 0) {
      // bytes must fit the slot the load writes, so draw the buffer first
      // sometimes one copy over several consecutive slots (as the lifter makes of a finely cut buffer)
      ops.push(fc.oneof(...buffers.map((buf) => fc.tuple(refTo([buf], vars), refTo(bars, vars), inRange(vars, 1, buf.bytes), (buf.slots >= 2 ? optional(fc.integer({ min: 2, max: buf.slots }).map(num)) : fc.constant(undefined)), optional(value))
        .map(([target, barrier, n, slots, v]): Op => ({ kind: 'tma.load', target, barrier, bytes: n, ...(slots !== undefined ? { slots } : {}), ...(v !== undefined ? { value: v } : {}) })))));
    }
  }
  if (buffers.length + arefs.length > 0) {
    ops.push(fc.tuple(refTo([...buffers, ...arefs], vars), optional(value), fc.boolean())
      .map(([target, expect, commit]): Op => (expect === undefined ? { kind: 'wgmma.issue', target, commit } : { kind: 'wgmma.issue', target, expect, commit })));
  }
  return fc.oneof(...ops);
}

/** A block at nesting `depth` with `vars` in scope; a loop at depth d binds i<d>, so none shadows another. */
function arbBlock(resources: readonly Resource[], vars: readonly string[], depth: number, o: Required<ArbProgramOptions>): fc.Arbitrary<Stmt[]> {
  const op = arbOp(resources, vars, o.atomics).map((x): Stmt => ({ kind: 'op', op: x }));
  const choices: fc.WeightedArbitrary<Stmt>[] = [{ arbitrary: op, weight: 3 }];
  if (depth < o.maxNesting) {
    const loopVar = `i${depth}`;
    const loopBody = arbBlock(resources, [...vars, loopVar], depth + 1, o);
    const branch = arbBlock(resources, vars, depth + 1, o);
    // small trip counts keep iteration spaces (and anything exploring them) small
    const from = fc.oneof(fc.integer({ min: 0, max: 2 }).map(num), nonNegative(vars).map((e) => bin('%', e, num(3))));
    const to = fc.oneof(fc.integer({ min: 0, max: 5 }).map(num), nonNegative(vars).map((e) => bin('%', e, num(6))));
    choices.push(
      { arbitrary: fc.tuple(from, to, loopBody).map(([from, to, body]): Stmt => ({ kind: 'for', var: loopVar, from, to, body })), weight: 1 },
      { arbitrary: fc.tuple(anyExpr(vars), branch, fc.oneof(fc.constant<Stmt[]>([]), branch)).map(([cond, then, otherwise]): Stmt => ({ kind: 'if', cond, then, else: otherwise })), weight: 1 },
    );
  }
  return fc.array(fc.oneof(...choices), { maxLength: o.maxStatements });
}

/** Random valid programs with params, all three resource kinds and roles using every op family. */
export function arbProgram(options: ArbProgramOptions = {}): fc.Arbitrary<Program> {
  const o: Required<ArbProgramOptions> = { maxNesting: 2, maxStatements: 4, maxRoles: 3, atomics: false, ...options };
  const params = fc.uniqueArray(fc.constantFrom('K', 'N', 'D', 'P'), { maxLength: 3 })
    .chain((names) => fc.tuple(...names.map((name) => fc.integer({ min: 0, max: 6 }).map((value): Param => ({ name, value })))));
  const sized = fc.integer({ min: 1, max: 4 });
  const arefs = fc.array(fc.tuple(sized, optional(fc.constantFrom(1024, 16384))), { maxLength: 2 })
    .map((xs) => xs.map(([depth, bytes], i): Resource => (bytes === undefined ? { kind: 'aref', name: `A${i}`, depth } : { kind: 'aref', name: `A${i}`, depth, bytes })));
  const bars = fc.array(fc.tuple(sized, optional(fc.integer({ min: 1, max: 4 }))), { maxLength: 2 })
    .map((xs) => xs.map(([size, count], i): Resource => (count === undefined ? { kind: 'mbarrier', name: `bar${i}`, size } : { kind: 'mbarrier', name: `bar${i}`, size, count })));
  const buffers = fc.array(fc.tuple(sized, fc.constantFrom(128, 1024, 16384)), { maxLength: 2 })
    .map((xs) => xs.map(([slots, bytes], i): Resource => ({ kind: 'buffer', name: `S${i}`, slots, bytes })));
  return fc.tuple(params, arefs, bars, buffers).chain(([ps, as, bs, ss]) => {
    const resources = [...as, ...bs, ...ss];
    const body = arbBlock(resources, ps.map((p) => p.name), 0, o);
    const roles = fc.array(fc.tuple(fc.integer({ min: 1, max: 4 }), body), { minLength: 1, maxLength: o.maxRoles })
      .map((rs) => rs.map(([warps, b], i): Role => ({ name: `role${i}`, warps, body: b })));
    return roles.map((rs): Program => ({ params: ps, resources, roles: rs }));
  });
}
