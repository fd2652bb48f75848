// Level 2: PTX mbarrier (reference/ptx-mbarrier.md §1.1–1.8).
//
// | op               | premise / error                                  | effect                                    |
// | init(n)          | not valid; 1 ≤ n < 2^20                          | phase 0, pending = expected = n, tx 0     |
// | arrive(c)        | valid; previous phase observed (§1.5); pending ≥ c | pending −= c; release; completion check |
// | arrive.expect_tx | as arrive                                        | tx += b, then arrive(1)                   |
// | expect_tx(b)     | valid                                            | tx += b (no completion check, §1.2)       |
// | complete_tx(b)   | valid                                            | tx −= b; completion check                 |
// | wait(p)          | valid, p ∈ {0,1}; blocks until (phase & 1) ≠ p;  | acquire what completed phases released;   |
// |                  | the phase it means must be current or just done | the waiter now knows the current phase    |
// | inval            | valid                                            | not valid                                 |
// Completion: pending = 0 and tx = 0 exactly (excess bytes never complete, [HW] §1.2):
// phase += 1, pending := expected, the releases of the phase become visible to waiters.
// Which phase a wait means: hb.ts, "phase knowledge"; a waiter 2 or more phases behind the
// phase it means is a protocol error (PTX leaves it undefined; hardware aliases it).
import { arg, fail, peekArg, peekResolve, resolve, type OpCtx, type OpRules } from './context.ts';
import { agePhase, freshPhase, orInto, phaseDistance, waitMisses } from './hb.ts';
import type { Machine } from './machine.ts';
import { NO_TOKEN, tokenOf, type MachineState } from './state.ts';

export const MAX_COUNT = 2 ** 20 - 1;

export function completeIfDone(m: Machine, s: MachineState, b: number): void {
  const bar = s.barriers[b];
  if (!bar || bar.pending !== 0 || bar.tx !== 0) return;
  bar.phase += 1;
  bar.pending = bar.expected;
  bar.observed = 0;
  agePhase(m, s, b);
  ageTokens(s, b);
  const pending = s.hb.barPending[b];
  const done = s.hb.barDone[b];
  if (pending && done) {
    orInto(done, pending);
    pending.fill(0);
  }
}

export function barrierText(s: MachineState, b: number, name: string): string {
  const bar = s.barriers[b];
  if (!bar || !bar.valid) return `${name} is not initialised`;
  const arrivals = `${bar.pending} arrival${bar.pending === 1 ? '' : 's'} pending`;
  const bytes = bar.tx === 0 ? 'no bytes outstanding' : bar.tx > 0 ? `${bar.tx} bytes outstanding` : `${-bar.tx} bytes more than expected (tx = ${bar.tx}: never completes)`;
  return `${name} is in phase ${bar.phase} with ${arrivals} and ${bytes}`;
}

/** Tokens naming a phase of barrier b: one more completion since their arrive (saturating at 2). */
function ageTokens(s: MachineState, b: number): void {
  for (const rs of s.roles) {
    for (let i = 0; i < rs.tokens.length; i++) {
      const t = rs.tokens[i] ?? NO_TOKEN;
      if (t !== NO_TOKEN && t >> 2 === b && (t & 3) < 2) rs.tokens[i] = t + 1;
    }
  }
}

/** An arrive that returns its state: the token names the phase the arrive fell in. */
function setToken(ctx: OpCtx, b: number): void {
  const slot = ctx.instr.token;
  const rs = ctx.s.roles[ctx.r];
  if (slot !== undefined && rs) rs.tokens[slot] = tokenOf(b, 0);
}

function target(ctx: OpCtx, what: string): number | undefined {
  const b = resolve(ctx, 0);
  if (b === undefined) return undefined;
  if (!ctx.s.barriers[b]?.valid) {
    fail(ctx, 'protocol', `${what} on ${ctx.m.barrierNames[b]}, which is not initialised`);
    return undefined;
  }
  return b;
}

function addTx(ctx: OpCtx, b: number, delta: number): boolean {
  const bar = ctx.s.barriers[b];
  if (!bar) return false;
  bar.tx += delta;
  if (Math.abs(bar.tx) > MAX_COUNT) {
    fail(ctx, 'protocol', `tx-count of ${ctx.m.barrierNames[b]} out of range: ${bar.tx} (limit ±${MAX_COUNT})`);
    return false;
  }
  return true;
}

/** arrive-on with release semantics; false when a protocol error was recorded. */
export function arriveOn(ctx: OpCtx, b: number, count: number): boolean {
  const { s, m, r } = ctx;
  const bar = s.barriers[b];
  if (!bar) return false;
  if (bar.phase >= 1 && bar.observed === 0) {
    fail(ctx, 'protocol', `arrive on ${m.barrierNames[b]} in phase ${bar.phase} before any wait observed the completion of phase ${bar.phase - 1} (PTX §9.7.13.15.4; synccheck: "Missing wait")`);
    return false;
  }
  if (!Number.isInteger(count) || count < 1 || count > bar.pending) {
    fail(ctx, 'protocol', `arrive with count ${count} on ${m.barrierNames[b]} past the expected count: only ${bar.pending} of ${bar.expected} arrivals pending in phase ${bar.phase}`);
    return false;
  }
  bar.pending -= count;
  orInto(s.hb.barPending[b] ?? [], s.hb.roles[r] ?? []);
  completeIfDone(m, s, b);
  return true;
}

const init: OpRules = {
  blockedReason: () => undefined,
  execute(ctx) {
    const b = resolve(ctx, 0);
    const n = arg(ctx, 0);
    if (b === undefined || n === undefined) return;
    const bar = ctx.s.barriers[b];
    if (!bar) return;
    if (bar.valid) return fail(ctx, 'protocol', `init of ${ctx.m.barrierNames[b]}, which is already initialised (double init)`);
    if (!Number.isInteger(n) || n < 1 || n > MAX_COUNT) return fail(ctx, 'protocol', `init count ${n} of ${ctx.m.barrierNames[b]} out of range 1..${MAX_COUNT}`);
    Object.assign(bar, { valid: 1, phase: 0, pending: n, expected: n, tx: 0, observed: 1 });
    ctx.s.hb.barPending[b]?.fill(0);
    ctx.s.hb.barDone[b]?.fill(0);
    // a (re)initialised barrier is in phase 0: everyone knows that much
    for (const k of ctx.s.hb.roles) freshPhase(ctx.m, k, b);
  },
};

const inval: OpRules = {
  blockedReason: () => undefined,
  execute(ctx) {
    const b = target(ctx, 'inval');
    const bar = b === undefined ? undefined : ctx.s.barriers[b];
    if (bar) bar.valid = 0;
  },
};

const arrive: OpRules = {
  blockedReason: () => undefined,
  execute(ctx) {
    const b = target(ctx, 'arrive');
    const count = arg(ctx, 0);
    if (b === undefined || count === undefined) return;
    // the token is set before the arrive: an arrive that completes the phase ages it at once
    setToken(ctx, b);
    arriveOn(ctx, b, count);
  },
};

const arriveExpectTx: OpRules = {
  blockedReason: () => undefined,
  execute(ctx) {
    const b = target(ctx, 'arrive.expect_tx');
    const bytes = arg(ctx, 0);
    if (b === undefined || bytes === undefined) return;
    // expect-tx is performed before the arrive (PTX §9.7.13.15.13); the phase check comes first so a missing wait is reported as such
    const bar = ctx.s.barriers[b];
    setToken(ctx, b);
    if (bar && bar.phase >= 1 && bar.observed === 0) {
      arriveOn(ctx, b, 1);
      return;
    }
    if (addTx(ctx, b, bytes)) arriveOn(ctx, b, 1);
  },
};

const expectTx: OpRules = {
  blockedReason: () => undefined,
  execute(ctx) {
    const b = target(ctx, 'expect_tx');
    const bytes = arg(ctx, 0);
    if (b === undefined || bytes === undefined) return;
    addTx(ctx, b, bytes);
  },
};

const completeTx: OpRules = {
  blockedReason: () => undefined,
  execute(ctx) {
    const b = target(ctx, 'complete_tx');
    const bytes = arg(ctx, 0);
    if (b === undefined || bytes === undefined) return;
    if (addTx(ctx, b, -bytes)) completeIfDone(ctx.m, ctx.s, b);
  },
};

/** The waiter is 2 or more phases behind the phase its parity means (an error the wait reports when it runs). */
function misses(ctx: OpCtx, b: number, p: number): boolean {
  const bar = ctx.s.barriers[b];
  return bar !== undefined && waitMisses(bar.phase, phaseDistance(ctx.m, ctx.s.hb.roles[ctx.r] ?? [], b), p);
}

/** Blocked: the barrier is valid, the parity is 0 or 1, its phase has that parity, and the wait does not miss (that is reported at once). */
function waitBlocked(ctx: OpCtx): number | undefined {
  const b = peekResolve(ctx, 0);
  const p = peekArg(ctx, 0);
  const bar = b === undefined ? undefined : ctx.s.barriers[b];
  if (b === undefined || !bar || bar.valid !== 1 || (p !== 0 && p !== 1)) return undefined;
  return (bar.phase & 1) === p && !misses(ctx, b, p) ? b : undefined;
}

const wait: OpRules = {
  isBlocked: (ctx) => waitBlocked(ctx) !== undefined,
  blockedReason(ctx) {
    const b = waitBlocked(ctx);
    if (b === undefined) return undefined;
    return `waits ${ctx.m.barrierNames[b]} parity ${peekArg(ctx, 0)}; ${barrierText(ctx.s, b, ctx.m.barrierNames[b] ?? '')}`;
  },
  execute(ctx) {
    const b = target(ctx, 'wait');
    const p = arg(ctx, 0);
    if (b === undefined || p === undefined) return;
    if (p !== 0 && p !== 1) return fail(ctx, 'protocol', `wait parity ${p} on ${ctx.m.barrierNames[b]} is not 0 or 1`);
    const bar = ctx.s.barriers[b];
    if (!bar) return;
    if (misses(ctx, b, p)) {
      const d = phaseDistance(ctx.m, ctx.s.hb.roles[ctx.r] ?? [], b);
      const known = d === 1 ? `phase ${bar.phase - 1}` : `phase ${Math.max(0, bar.phase - 2)} or an earlier one`;
      return fail(
        ctx,
        'protocol',
        `wait on ${ctx.m.barrierNames[b]} with parity ${p} missed its phase: the barrier is in phase ${bar.phase}, the latest phase the waiter knows of (through happens-before) is ${known}, ` +
          'so the parity names a phase 2 or more behind (PTX defines a wait only for the current phase and the one before it; hardware aliases the parity)',
      );
    }
    orInto(ctx.s.hb.roles[ctx.r] ?? [], ctx.s.hb.barDone[b] ?? []);
    freshPhase(ctx.m, ctx.s.hb.roles[ctx.r] ?? [], b);
    bar.observed = 1;
  },
};

/** The token a wait.token names (undefined: the token was never set). */
function tokenOfWait(ctx: OpCtx): number | undefined {
  const slot = ctx.instr.token;
  const t = slot === undefined ? NO_TOKEN : (ctx.s.roles[ctx.r]?.tokens[slot] ?? NO_TOKEN);
  return t === NO_TOKEN ? undefined : t;
}

/** Blocked: the token names this barrier's current phase (d = 0). */
function tokenBlocked(ctx: OpCtx): number | undefined {
  const b = peekResolve(ctx, 0);
  const t = tokenOfWait(ctx);
  const bar = b === undefined ? undefined : ctx.s.barriers[b];
  if (b === undefined || t === undefined || !bar?.valid || t >> 2 !== b) return undefined;
  return (t & 3) === 0 ? b : undefined;
}

// | wait.token t     | valid; t set by an arrive on this barrier; blocks until that arrive's phase completed; 2 or more phases later it missed |
const waitToken: OpRules = {
  isBlocked: (ctx) => tokenBlocked(ctx) !== undefined,
  blockedReason(ctx) {
    const b = tokenBlocked(ctx);
    if (b === undefined) return undefined;
    const name = ctx.instr.op.kind === 'wait.token' ? ctx.instr.op.token : '?';
    return `waits ${ctx.m.barrierNames[b]} for the phase of token ${name}; ${barrierText(ctx.s, b, ctx.m.barrierNames[b] ?? '')}`;
  },
  execute(ctx) {
    const b = target(ctx, 'wait');
    if (b === undefined || ctx.instr.op.kind !== 'wait.token') return;
    const name = ctx.instr.op.token;
    const t = tokenOfWait(ctx);
    if (t === undefined) return fail(ctx, 'protocol', `wait on token ${name} before any arrive set it`);
    if (t >> 2 !== b) return fail(ctx, 'protocol', `wait on ${ctx.m.barrierNames[b]} with token ${name}, which an arrive on ${ctx.m.barrierNames[t >> 2]} returned`);
    const bar = ctx.s.barriers[b];
    if (!bar) return;
    if ((t & 3) >= 2) {
      return fail(ctx, 'protocol', `wait on ${ctx.m.barrierNames[b]} with token ${name} missed its phase: the barrier completed 2 or more phases since the arrive (hardware aliases the token's phase)`);
    }
    orInto(ctx.s.hb.roles[ctx.r] ?? [], ctx.s.hb.barDone[b] ?? []);
    freshPhase(ctx.m, ctx.s.hb.roles[ctx.r] ?? [], b);
    bar.observed = 1;
  },
};

export const mbarrierRules = {
  init,
  inval,
  arrive,
  'arrive.expect_tx': arriveExpectTx,
  expect_tx: expectTx,
  complete_tx: completeTx,
  wait,
  'wait.token': waitToken,
} as const;
