// The Tawa pipeline family (DESIGN.md "The Tawa pipeline family"), as a generator of Programs.
// It follows peers/spin/aref.pml step for step, so that the SPIN cross-check compares like with like:
//
//   producer (1 warp):      for k in 0..K: put A[k % D], k
//   consumer c (4 warps):   handles k = c, c+C, …; its j-th iteration is k = c + j*C
//     for j in 0..n_c:
//       get A[k % D] expect k          (FIFO: iteration k reads v_k = k)
//       mma.issue A[k % D]             (the wgmma reading the slot stays outstanding)
//       wgmma.wait P                   (at most P groups outstanding: iteration j - P has retired)
//       if j >= P: consumed A[(c + (j - P)*C) % D]      (release the oldest; SPIN: k - lo >= P*C)
//     wgmma.wait 0
//     release the remaining min(P, n_c) slots, oldest first
//
// n_c = ceil((K - c) / C) is written as an expression over the params, so the printed program
// stays right when a param is overridden (`--param K=…`); the tail loop's `if j >= 0` guard skips
// iterations that never happened when n_c < P.
import { InputError } from './diag.ts';
import { bin, num, v } from './ir/expr.ts';
import type { Expr, Level, Program, Resource, Role, Stmt } from './ir/program.ts';
import { MAX_INT } from './lang/syntax.ts';
import { MBARRIER_MAX } from './lang/op-rules.ts';
import { MAX_ELEMENTS, MAX_WARPS } from './lang/validate.ts';
import { loweredNames, lowerProgram } from './lower.ts';

export interface PipelineOptions {
  /** D: buffer depth (slots in the ring). */
  readonly depth: number;
  /** P: wgmma groups a consumer keeps outstanding before releasing its oldest slot. */
  readonly pending: number;
  /** C: consumer roles taking turns. */
  readonly consumers: number;
  /** K: iterations (puts) in all. */
  readonly iterations: number;
  readonly level: Level;
  /** Bytes per slot (what lowering expects per put); default: lowering's default. */
  readonly bytes?: number;
  /**
   * Cooperative consumers (CUTLASS's KernelTmaWarpSpecializedCooperative): instead of taking
   * turns on k, every consumer role runs the whole loop (k = 0 … K-1) and reads every stage (each
   * its own part of the tile); a slot is free again once all C consumers released it, so the
   * empty barriers count C arrivals. An aref borrows a slot for one role only, so this variant
   * exists at the mbarrier level alone. Default false (the turn-taking family above).
   */
  readonly cooperative?: boolean;
  /**
   * T: output tiles per CTA, one after the other (a persistent kernel). Stage e = t·K + k of tile
   * t: the producer runs all T·K stages without a break (it loads the next tile's k-tiles while
   * the consumers finish the last one); each consumer runs its K-iteration loop once per tile and
   * at the end of each tile retires its wgmma groups (`wgmma.wait 0`) and releases its last P
   * slots. Slot e % D and parity (e / D) & 1 continue across tiles. Adds the param T. Needs one
   * consumer or `cooperative` (turn-taking consumers would split each tile's k-tiles). Default:
   * absent, one tile per CTA (no loop over tiles, no T).
   */
  readonly tiles?: number;
  /**
   * Ping-pong consumers (CUTLASS's KernelTmaWarpSpecializedPingpong), with `tiles: T` and C = 2:
   * the two consumers take turns on whole output tiles, consumer c computing tiles c, c+2, … of the
   * CTA's T tiles (all K k-tiles of each, its own accumulators), so one consumer's epilogue
   * overlaps the other's main loop. The producer is the `tiles` producer (stages in tile order);
   * each slot round is released by the one consumer of its tile (empty count 1). An ordering
   * barrier `order[2]` (count 1) makes the main loops alternate: consumer c waits on order[c]
   * before every tile but the CTA's first and arrives on order[1-c] after its K iterations when
   * the other consumer has a next tile. It is needed for correctness, not only for speed: without
   * it a consumer waiting on a full barrier for its tile's first stage can pass on the parity of
   * a phase two rounds old while the other consumer's tile still streams through the ring.
   * mbarrier level only. Default false.
   */
  readonly pingpong?: boolean;
}

/**
 * The largest values the .aref language accepts for what a pipeline is made of, so that every
 * program the family gives validates and prints back: an aref holds at most MAX_ELEMENTS slots of
 * at most MBARRIER_MAX bytes, and the producer's warp and 4 per consumer fit in one CTA.
 */
export const PIPELINE_MAX = {
  depth: MAX_ELEMENTS,
  bytes: MBARRIER_MAX,
  consumers: Math.floor((MAX_WARPS - 1) / 4),
  pending: MAX_INT,
  iterations: MAX_INT,
  tiles: MAX_INT,
} as const;

/** The aref every generated program uses. */
export const PIPELINE_AREF = 'A';

export function pipelineProgram(opts: PipelineOptions): Program {
  checkOptions(opts);
  if (opts.cooperative === true) return cooperativeProgram(opts);
  if (opts.pingpong === true) return pingpongProgram(opts);
  const { depth, consumers } = opts;
  const aref: Resource =
    opts.bytes === undefined
      ? { kind: 'aref', name: PIPELINE_AREF, depth }
      : { kind: 'aref', name: PIPELINE_AREF, depth, bytes: opts.bytes };
  const roles: Role[] = [producerRole(opts)];
  for (let c = 0; c < consumers; c++) roles.push(consumerRole(c, opts));
  const program: Program = {
    params: paramsOf(opts),
    resources: [aref],
    roles,
  };
  return opts.level === 'mbarrier' ? lowerProgram(program) : program;
}

/** Number of iterations consumer c handles: k = c, c+C, … < K. */
export function consumerIterations(c: number, consumers: number, iterations: number): number {
  return Math.max(0, Math.ceil((iterations - c) / consumers));
}

function checkOptions(opts: PipelineOptions): void {
  // PIPELINE_MAX: what the .aref language accepts, so that the printed program parses back.
  const want = (name: keyof typeof PIPELINE_MAX, value: number, min: number): void => {
    const max = PIPELINE_MAX[name];
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new InputError(`pipeline: ${name} must be an integer in ${min}..${max}, got ${value}`);
    }
  };
  want('depth', opts.depth, 1);
  want('pending', opts.pending, 0);
  want('consumers', opts.consumers, 1);
  want('iterations', opts.iterations, 0);
  if (opts.bytes !== undefined) want('bytes', opts.bytes, 1);
  if (opts.pingpong === true) {
    if (opts.tiles === undefined || opts.consumers !== 2 || opts.cooperative === true) {
      throw new InputError('pipeline: pingpong needs tiles (a loop over output tiles) and exactly 2 consumers, not cooperative ones');
    }
    if (opts.level !== 'mbarrier') throw new InputError('pipeline: pingpong consumers are ordered by an mbarrier (order[2]); use --level mbarrier');
  }
  if (opts.tiles !== undefined) {
    want('tiles', opts.tiles, 1);
    if (opts.consumers > 1 && opts.cooperative !== true && opts.pingpong !== true) {
      throw new InputError('pipeline: tiles (a persistent loop over output tiles) needs one consumer or cooperative consumers; consumers taking turns would split each tile');
    }
  }
}

function paramsOf(opts: PipelineOptions): Program['params'] {
  const params = [
    { name: 'D', value: opts.depth },
    { name: 'P', value: opts.pending },
    { name: 'C', value: opts.consumers },
    { name: 'K', value: opts.iterations },
  ];
  return opts.tiles === undefined ? params : [...params, { name: 'T', value: opts.tiles }];
}

/** Stage number of k-tile `k` of the current tile: k itself, or t·K + k with a loop over tiles. */
function stageOf(opts: PipelineOptions): (k: Expr) => Expr {
  return opts.tiles === undefined ? (k) => k : (k) => bin('+', bin('*', v('t'), v('K')), k);
}

/** The loop over a CTA's output tiles around `body`, when the program has one. */
function perTile(opts: PipelineOptions, body: Stmt[]): Stmt[] {
  return opts.tiles === undefined ? body : [{ kind: 'for', var: 't', from: num(0), to: v('T'), body }];
}

const op = (o: Extract<Stmt, { kind: 'op' }>['op']): Stmt => ({ kind: 'op', op: o });
const slot = (k: Expr): { name: string; index: Expr } => ({ name: PIPELINE_AREF, index: bin('%', k, v('D')) });

function producerRole(opts: PipelineOptions): Role {
  const e = stageOf(opts)(v('k'));
  return {
    name: 'producer',
    warps: 1,
    body: perTile(opts, [{ kind: 'for', var: 'k', from: num(0), to: v('K'), body: [op({ kind: 'put', target: slot(e), value: e })] }]),
  };
}

function consumerRole(c: number, opts: PipelineOptions): Role {
  return { name: `consumer${c}`, warps: 4, body: perTile(opts, consumerBody(c, opts, stageOf(opts))) };
}

/** One consumer's k loop (iterations j), its `wgmma.wait 0` and its last releases; `stage` maps k to the stage number. */
function consumerBody(c: number, opts: PipelineOptions, stage: (k: Expr) => Expr): Stmt[] {
  const { consumers, pending } = opts;
  const j = v('j');
  // k = c + j*C, written as simply as the values allow (as a stage number with a loop over tiles).
  const kOf = (jj: Expr): Expr => {
    if (consumers === 1) return stage(jj);
    const scaled = bin('*', jj, v('C'));
    return c === 0 ? scaled : bin('+', num(c), scaled);
  };
  // n_c = ceil((K - c) / C) = (K + C - 1 - c) / C for 0 <= c < C.
  const extra = consumers - 1 - c;
  const count: Expr =
    consumers === 1 ? v('K') : bin('/', extra === 0 ? v('K') : bin('+', v('K'), num(extra)), v('C'));

  const k = kOf(j);
  const release = op({ kind: 'consumed', target: slot(kOf(bin('-', j, v('P')))) });
  const loopBody: Stmt[] = [
    op({ kind: 'get', target: slot(k), expect: k }),
    op({ kind: 'wgmma.issue', target: slot(k), commit: true }),
    op({ kind: 'wgmma.wait', pending: v('P') }),
    // With P = 0 every iteration releases its own slot: no condition needed.
    pending === 0
      ? op({ kind: 'consumed', target: slot(k) })
      : { kind: 'if', cond: bin('>=', j, v('P')), then: [release], else: [] },
  ];
  const body: Stmt[] = [
    { kind: 'for', var: 'j', from: num(0), to: count, body: loopBody },
    op({ kind: 'wgmma.wait', pending: num(0) }),
  ];
  if (pending > 0) {
    body.push({
      kind: 'for',
      var: 'j',
      from: bin('-', count, v('P')),
      to: count,
      body: [{ kind: 'if', cond: bin('>=', j, num(0)), then: [op({ kind: 'consumed', target: slot(k) })], else: [] }],
    });
  }
  return body;
}

/**
 * The cooperative variant: each consumer's body is the C = 1 consumer's (all K iterations), the
 * Program lowered as usual, then every empty barrier expects C arrivals (one release per consumer
 * per round) before the producer may refill the slot.
 */
function cooperativeProgram(opts: PipelineOptions): Program {
  if (opts.level !== 'mbarrier') {
    throw new InputError('pipeline: cooperative consumers share every slot, which an aref (one borrower per slot) cannot express; use --level mbarrier');
  }
  const { depth, consumers } = opts;
  const aref: Resource =
    opts.bytes === undefined ? { kind: 'aref', name: PIPELINE_AREF, depth } : { kind: 'aref', name: PIPELINE_AREF, depth, bytes: opts.bytes };
  const roles: Role[] = [producerRole(opts)];
  for (let c = 0; c < consumers; c++) roles.push({ ...consumerRole(0, { ...opts, consumers: 1 }), name: `consumer${c}` });
  const lowered = lowerProgram({
    params: paramsOf(opts),
    resources: [aref],
    roles,
  });
  const empty = loweredNames(PIPELINE_AREF).empty;
  return {
    ...lowered,
    resources: lowered.resources.map((r) => (r.kind === 'mbarrier' && r.name === empty ? { ...r, count: consumers } : r)),
  };
}

/** The ordering barrier of the pingpong variant: order[c] lets consumer c start a tile's main loop. */
export const PINGPONG_ORDER = 'order';

/**
 * The pingpong variant: the `tiles` producer, and consumer c a loop over its trips i (tile
 * c + 2i, stage (c + 2i)·K + k) around the one-consumer body, ordered by `order[2]`:
 *   if (c, i) is not the CTA's first tile: wait order[c], (i - 1 + c) & 1   (the i-th pass of c)
 *   the K iterations, getting and releasing as the C = 1 consumer
 *   if c + 2i + 1 < T: arrive order[1 - c]            (the other consumer may start tile c + 2i + 1)
 *   wgmma.wait 0, the last releases
 * Consumer 0's passes are i = 1, 2, … (rounds 0, 1, …); consumer 1's are i = 0, 1, … .
 */
function pingpongProgram(opts: PipelineOptions): Program {
  const aref: Resource =
    opts.bytes === undefined ? { kind: 'aref', name: PIPELINE_AREF, depth: opts.depth } : { kind: 'aref', name: PIPELINE_AREF, depth: opts.depth, bytes: opts.bytes };
  const order: Resource = { kind: 'mbarrier', name: PINGPONG_ORDER, size: 2, count: 1 };
  const roles: Role[] = [producerRole(opts)];
  const i = v('i');
  for (const c of [0, 1]) {
    const tile = c === 0 ? bin('*', num(2), i) : bin('+', num(1), bin('*', num(2), i));
    const stage = (k: Expr): Expr => bin('+', bin('*', tile, v('K')), k);
    const [loop, ...tail] = consumerBody(0, { ...opts, consumers: 1 }, stage);
    if (!loop) throw new Error('unreachable: the consumer body starts with its k loop');
    const wait = op({ kind: 'wait', target: { name: PINGPONG_ORDER, index: num(c) }, parity: bin('&', c === 0 ? bin('-', i, num(1)) : i, num(1)) });
    const arrive = op({ kind: 'arrive', target: { name: PINGPONG_ORDER, index: num(1 - c) }, count: num(1) });
    const body: Stmt[] = [
      c === 0 ? { kind: 'if', cond: bin('>=', i, num(1)), then: [wait], else: [] } : wait,
      loop,
      { kind: 'if', cond: bin('<', bin('+', tile, num(1)), v('T')), then: [arrive], else: [] },
      ...tail,
    ];
    // trips of consumer c: tiles c, c + 2, … < T, i.e. (T + 1 - c) / 2
    const trips = c === 0 ? bin('/', bin('+', v('T'), num(1)), num(2)) : bin('/', v('T'), num(2));
    roles.push({ name: `consumer${c}`, warps: 4, body: [{ kind: 'for', var: 'i', from: num(0), to: trips, body }] });
  }
  return lowerProgram({ params: paramsOf(opts), resources: [aref, order], roles });
}
