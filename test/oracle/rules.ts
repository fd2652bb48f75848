// The oracle's rules, written from DESIGN.md and reference/ptx-mbarrier.md, not from semantics/.
// Roles interpret their statement lists directly; happens-before is vector clocks. Each op either
// blocks, runs, or fails with a violation kind (the state then ends). Kept small on purpose.
import { evalExpr } from '../../src/ir/expr.ts';
import type { Expr, Op, Program, Ref, Resource, Stmt } from '../../src/ir/program.ts';
import { clone, join, knows, type Clock, type OBarrier, type OGroup, type ORole, type OSlot, type OState } from './state.ts';

const MAX_COUNT = 2 ** 20 - 1;
const LIMIT = 0x7fffffff;

/** A planted rule bug (the differential test must notice each). */
export type Plant = 'none' | 'fresh-wait-blocks' | 'complete-below-zero' | 'consumed-no-release' | 'wait-group-no-acquire' | 'no-missed-phase';

export class Fail extends Error {
  readonly kind: string;
  constructor(kind: string, why: string) {
    super(why);
    this.kind = kind;
  }
}

/** The program laid out for the oracle: slots (aref slots, then buffer slots) and barriers by name. */
export interface World {
  readonly program: Program;
  readonly params: Record<string, number>;
  readonly literal: boolean;
  readonly plant: Plant;
  readonly slotBase: ReadonlyMap<string, { base: number; size: number; aref: boolean }>;
  readonly barBase: ReadonlyMap<string, { base: number; size: number; count: number | undefined; tx: boolean }>;
  readonly slotCount: number;
  readonly arefSlots: number;
  readonly barCount: number;
}

export function makeWorld(program: Program, literal: boolean, plant: Plant): World {
  const params: Record<string, number> = {};
  for (const p of program.params) params[p.name] = p.value;
  const slotBase = new Map<string, { base: number; size: number; aref: boolean }>();
  const barBase = new Map<string, { base: number; size: number; count: number | undefined; tx: boolean }>();
  let arefSlots = 0;
  for (const r of program.resources) if (r.kind === 'aref') { slotBase.set(r.name, { base: arefSlots, size: r.depth, aref: true }); arefSlots += r.depth; }
  let slots = arefSlots;
  for (const r of program.resources) if (r.kind === 'buffer') { slotBase.set(r.name, { base: slots, size: r.slots, aref: false }); slots += r.slots; }
  let bars = 0;
  const txNames = new Set<string>();
  const visit = (stmts: readonly Stmt[]): void => {
    for (const s of stmts) {
      if (s.kind === 'op') {
        const o = s.op;
        if (o.kind === 'tma.load') txNames.add(o.barrier.name);
        if (o.kind === 'arrive.expect_tx' || o.kind === 'expect_tx' || o.kind === 'complete_tx') txNames.add(o.target.name);
      } else if (s.kind === 'for') visit(s.body);
      else { visit(s.then); visit(s.else); }
    }
  };
  for (const role of program.roles) visit(role.body);
  for (const r of program.resources as readonly Resource[]) {
    if (r.kind === 'mbarrier') { barBase.set(r.name, { base: bars, size: r.size, count: r.count, tx: txNames.has(r.name) }); bars += r.size; }
  }
  return { program, params, literal, plant, slotBase, barBase, slotCount: slots, arefSlots, barCount: bars };
}

export function initial(w: World): OState {
  const s: OState = {
    roles: w.program.roles.map((_, i) => ({
      frames: [{ block: '', pos: 0 }], env: {}, done: false, bar: 'free', clock: { [`r${i}`]: 1 },
      mmaOpen: [], mma: [], storeOpen: [], store: [],
    })),
    slots: Array.from({ length: w.slotCount }, (): OSlot => ({ value: undefined, full: false, empty: true, write: undefined, generic: false, reads: {}, fences: {}, readFences: {}, clock: {} })),
    barriers: [],
    named: Array.from({ length: 16 }, () => ({ count: 0, threads: 0, clock: {} })),
    tma: [],
    agents: {},
  };
  for (const { size, count } of w.barBase.values()) {
    for (let i = 0; i < size; i++) {
      const b: OBarrier = { valid: count !== undefined, incarnation: 0, phase: 0, pending: count ?? 0, expected: count ?? 0, tx: 0, observed: true, pendingClock: {}, doneClock: {} };
      s.barriers.push(b);
    }
  }
  for (let r = 0; r < s.roles.length; r++) {
    try {
      advance(w, s, r);
    } catch (e) {
      if (!(e instanceof Fail)) throw e;
      s.violation = e.kind;
    }
  }
  return s;
}

// ---- control ----------------------------------------------------------------------------

function blockAt(w: World, role: number, path: string): readonly Stmt[] {
  let stmts: readonly Stmt[] = w.program.roles[role]!.body;
  if (path === '') return stmts;
  for (const part of path.split('/')) {
    const [i, which] = part.split('.') as [string, 'body' | 'then' | 'else'];
    const st = stmts[Number(i)]!;
    stmts = st.kind === 'for' ? st.body : st.kind === 'if' ? (which === 'then' ? st.then : st.else) : [];
  }
  return stmts;
}

const child = (path: string, i: number, which: string): string => (path === '' ? `${i}.${which}` : `${path}/${i}.${which}`);

function val(w: World, e: Expr, env: Record<string, number>): number {
  try {
    return evalExpr(e, new Map(Object.entries({ ...w.params, ...env })));
  } catch (err) {
    throw new Fail('protocol', `evaluation: ${(err as Error).message}`);
  }
}

/** The op role r stands at, or undefined when it has finished. */
export function currentOp(w: World, s: OState, r: number): Op | undefined {
  const rs = s.roles[r]!;
  if (rs.done) return undefined;
  const f = rs.frames[rs.frames.length - 1]!;
  const st = blockAt(w, r, f.block)[f.pos];
  return st?.kind === 'op' ? st.op : undefined;
}

/** Move role r forward over control statements until it stands at an op or has finished. */
function advance(w: World, s: OState, r: number): void {
  const rs = s.roles[r]!;
  for (;;) {
    const f = rs.frames[rs.frames.length - 1];
    if (!f) {
      rs.done = true;
      return;
    }
    const stmts = blockAt(w, r, f.block);
    const st = stmts[f.pos];
    if (!st) {
      // end of a block: a loop body goes round again, anything else returns to its parent
      rs.frames.pop();
      if (f.loop) {
        const v = (rs.env[f.loop.name] ?? 0) + 1;
        if (v < f.loop.to) {
          rs.env[f.loop.name] = v;
          rs.frames.push({ block: f.block, pos: 0, loop: f.loop });
          continue;
        }
        delete rs.env[f.loop.name];
      }
      const parent = rs.frames[rs.frames.length - 1];
      if (parent) parent.pos += 1;
      continue;
    }
    if (st.kind === 'op') return;
    if (st.kind === 'for') {
      const from = val(w, st.from, rs.env);
      const to = val(w, st.to, rs.env);
      if (from < to) {
        rs.env[st.var] = from;
        rs.frames.push({ block: child(f.block, f.pos, 'body'), pos: 0, loop: { name: st.var, to } });
      } else f.pos += 1;
      continue;
    }
    const cond = val(w, st.cond, rs.env) !== 0;
    rs.frames.push({ block: child(f.block, f.pos, cond ? 'then' : 'else'), pos: 0 });
  }
}

// ---- operands -----------------------------------------------------------------------------

function value(w: World, e: Expr | undefined, env: Record<string, number>): number | undefined {
  if (e === undefined) return undefined;
  const v = val(w, e, env);
  if (!(v >= -LIMIT && v <= LIMIT)) throw new Error(`oracle: value ${v} out of range`);
  return v;
}

function slotOf(w: World, ref: Ref, env: Record<string, number>): number {
  const res = w.slotBase.get(ref.name)!;
  const i = val(w, ref.index, env);
  if (!Number.isInteger(i) || i < 0 || i >= res.size) throw new Fail('protocol', 'slot index out of range');
  return res.base + i;
}

function barOf(w: World, ref: Ref, env: Record<string, number>): number {
  const res = w.barBase.get(ref.name)!;
  const i = val(w, ref.index, env);
  if (!Number.isInteger(i) || i < 0 || i >= res.size) throw new Fail('protocol', 'barrier index out of range');
  return res.base + i;
}

function validBar(s: OState, b: number): OBarrier {
  const bar = s.barriers[b]!;
  if (!bar.valid) throw new Fail('protocol', 'barrier not initialised');
  return bar;
}

// ---- happens-before checks ----------------------------------------------------------------

function tick(rs: ORole, r: number): void {
  rs.clock[`r${r}`] = (rs.clock[`r${r}`] ?? 0) + 1;
}

const here = (rs: ORole, r: number): { agent: string; at: number } => ({ agent: `r${r}`, at: rs.clock[`r${r}`] ?? 0 });

function asyncReading(s: OState, slot: number): boolean {
  return s.roles.some((rs) =>
    rs.mmaOpen.includes(slot) || rs.storeOpen.includes(slot) ||
    rs.mma.some((g) => !g.retired && g.slots.includes(slot)) || rs.store.some((g) => !g.retired && g.slots.includes(slot)));
}

function checkWrite(s: OState, slot: number, clock: Clock, async = false, value?: number): void {
  const sl = s.slots[slot]!;
  if (s.tma.some((t) => slot >= t.slot && slot < t.slot + t.span)) throw new Fail('race', 'write while a copy lands');
  if (asyncReading(s, slot)) throw new Fail('race', 'write while an async read is outstanding');
  // two generic stores of the same data need no order (PTX does not require data-race freedom)
  const sameData = value !== undefined && sl.generic && sl.value === value;
  if (sl.write && !knows(clock, sl.write) && !sameData) throw new Fail('race', 'write after write');
  for (const e of Object.values(sl.reads)) if (!knows(clock, e)) throw new Fail('race', 'write after read');
  if (!async) return;
  if (sl.write && sl.generic && !Object.values(sl.fences).some((f) => knows(clock, f))) throw new Fail('race', 'async write without proxy fence');
  for (const key of Object.keys(sl.reads)) {
    if (!key.startsWith('generic:') && !key.startsWith('atomic:')) continue;
    if (!Object.values(sl.readFences[key] ?? {}).some((f) => knows(clock, f))) throw new Fail('race', 'async write after a generic access without proxy fence');
  }
}

/** An atomic read-modify-write: ordered like a write, except after other atomics (kept with the reads, keyed atomic:ROLE). */
function checkAtomic(s: OState, slot: number, clock: Clock): void {
  const sl = s.slots[slot]!;
  if (s.tma.some((t) => slot >= t.slot && slot < t.slot + t.span)) throw new Fail('race', 'atomic while a copy lands');
  if (asyncReading(s, slot)) throw new Fail('race', 'atomic while an async read is outstanding');
  if (sl.write && !knows(clock, sl.write)) throw new Fail('race', 'atomic after write');
  for (const [key, e] of Object.entries(sl.reads)) if (!key.startsWith('atomic:') && !knows(clock, e)) throw new Fail('race', 'atomic after read');
}

function checkRead(s: OState, slot: number, clock: Clock, async: boolean): void {
  const sl = s.slots[slot]!;
  if (s.tma.some((t) => slot >= t.slot && slot < t.slot + t.span)) throw new Fail('race', 'read while a copy lands');
  if (sl.write && !knows(clock, sl.write)) throw new Fail('race', 'read after write');
  if (async && sl.write && sl.generic && !Object.values(sl.fences).some((f) => knows(clock, f))) throw new Fail('race', 'async read without proxy fence');
  for (const [key, e] of Object.entries(sl.reads)) {
    if (!key.startsWith('atomic:')) continue;
    if (!knows(clock, e)) throw new Fail('race', 'read after atomic');
    if (async && !Object.values(sl.readFences[key] ?? {}).some((f) => knows(clock, f))) throw new Fail('race', 'async read after an atomic without proxy fence');
  }
}

function checkFifo(s: OState, slot: number, expect: number | undefined): void {
  if (expect !== undefined && s.slots[slot]!.value !== expect) throw new Fail('fifo', 'unexpected value');
}

function write(s: OState, slot: number, v: number | undefined, generic: boolean, event: { agent: string; at: number }): void {
  const sl = s.slots[slot]!;
  sl.value = v;
  sl.generic = generic;
  sl.write = event;
  sl.reads = {};
  sl.fences = {};
  sl.readFences = {};
}

// ---- barriers ------------------------------------------------------------------------------

function complete(w: World, s: OState, b: number): void {
  const bar = s.barriers[b]!;
  const done = w.plant === 'complete-below-zero' ? bar.pending === 0 && bar.tx <= 0 : bar.pending === 0 && bar.tx === 0;
  if (!done) return;
  bar.phase += 1;
  bar.pending = bar.expected;
  bar.observed = false;
  join(bar.doneClock, bar.pendingClock);
  bar.pendingClock = {};
}

function arriveOn(w: World, s: OState, r: number, b: number, count: number): void {
  const bar = s.barriers[b]!;
  if (bar.phase >= 1 && !bar.observed) throw new Fail('protocol', 'missing wait');
  if (!Number.isInteger(count) || count < 1 || count > bar.pending) throw new Fail('protocol', 'arrive count');
  bar.pending -= count;
  join(bar.pendingClock, s.roles[r]!.clock);
  complete(w, s, b);
}

function addTx(bar: OBarrier, delta: number): void {
  bar.tx += delta;
  if (Math.abs(bar.tx) > MAX_COUNT) throw new Fail('protocol', 'tx range');
}

const barAgent = (b: number, bar: OBarrier): string => `bar:${b}:${bar.incarnation}`;

/** Completions of b the role knows of: counted in its clock under the barrier's agent (set by passing waits). */
function knownCompletions(rs: ORole, b: number, bar: OBarrier): number {
  return rs.clock[barAgent(b, bar)] ?? 0;
}

/** The phase a wait means: the first phase of its parity at or after the last completed phase the waiter knows of. */
function missesPhase(rs: ORole, b: number, bar: OBarrier, parity: number): boolean {
  const c = knownCompletions(rs, b, bar);
  const j = Math.abs((c - 1) % 2) === parity ? c - 1 : c;
  return bar.phase - j >= 2;
}

// ---- enabledness and steps -----------------------------------------------------------------

/** Can role r move now? (An op that would fail is enabled: the failure is its step.) */
export function canMove(w: World, s: OState, r: number): boolean {
  const op = currentOp(w, s, r);
  if (!op) return false;
  const rs = s.roles[r]!;
  try {
    switch (op.kind) {
      case 'put': return s.slots[slotOf(w, op.target, rs.env)]!.empty;
      case 'get': return s.slots[slotOf(w, op.target, rs.env)]!.full;
      case 'wait': {
        const b = barOf(w, op.target, rs.env);
        const bar = s.barriers[b]!;
        const p = val(w, op.parity, rs.env);
        if (!bar.valid || (p !== 0 && p !== 1)) return true;
        if (w.plant !== 'no-missed-phase' && missesPhase(rs, b, bar, p)) return true;
        if (w.plant === 'fresh-wait-blocks' && bar.phase === 0 && p === 1) return false;
        return (bar.phase & 1) !== p;
      }
      case 'wgmma.wait':
      case 'bulk.wait': {
        const n = val(w, op.pending, rs.env);
        const gs = op.kind === 'wgmma.wait' ? rs.mma : rs.store;
        return gs.filter((g) => !g.retired).length <= n;
      }
      case 'bar.sync': return rs.bar !== 'waiting';
      default: return true;
    }
  } catch (e) {
    if (e instanceof Fail) return true;
    throw e;
  }
}

export type OAction = { kind: 'role'; role: number } | { kind: 'land'; index: number } | { kind: 'retire'; role: number; unit: 'mma' | 'store' };

export function actions(w: World, s: OState): OAction[] {
  if (s.violation) return [];
  const out: OAction[] = [];
  s.roles.forEach((_, r) => {
    if (canMove(w, s, r)) out.push({ kind: 'role', role: r });
  });
  s.tma.forEach((_, i) => out.push({ kind: 'land', index: i }));
  s.roles.forEach((rs, r) => {
    if (rs.mma.some((g) => !g.retired)) out.push({ kind: 'retire', role: r, unit: 'mma' });
    if (rs.store.some((g) => !g.retired)) out.push({ kind: 'retire', role: r, unit: 'store' });
  });
  return out;
}

export function finished(s: OState): boolean {
  return !s.violation && s.roles.every((rs) => rs.done && !rs.mma.some((g) => !g.retired) && !rs.store.some((g) => !g.retired)) && s.tma.length === 0;
}

/** The successor of s under a (a fresh state). */
export function step(w: World, s0: OState, a: OAction): OState {
  const s = clone(s0);
  try {
    if (a.kind === 'land') land(w, s, a.index);
    else if (a.kind === 'retire') retire(s, a.role, a.unit);
    else runOp(w, s, a.role);
    if (finished(s)) endCheck(w, s);
  } catch (e) {
    if (!(e instanceof Fail)) throw e;
    s.violation = e.kind;
  }
  return s;
}

function land(w: World, s: OState, index: number): void {
  const t = s.tma.splice(index, 1)[0]!;
  const agent = `tma:${t.slot}`;
  const at = (s.agents[agent] ?? 0) + 1;
  s.agents[agent] = at;
  for (let i = t.slot; i < t.slot + t.span; i++) write(s, i, t.value, false, { agent, at });
  const bar = s.barriers[t.barrier]!;
  if (!bar.valid) throw new Fail('protocol', 'copy lands on an invalid barrier');
  // complete_tx releases the copy's own write only (PTX §8.9.1.1)
  join(bar.pendingClock, { [agent]: at });
  bar.tx -= t.bytes;
  complete(w, s, t.barrier);
}

function retire(s: OState, r: number, unit: 'mma' | 'store'): void {
  const rs = s.roles[r]!;
  const g = (unit === 'mma' ? rs.mma : rs.store).find((x) => !x.retired)!;
  g.retired = true;
  const agent = `${unit}:${r}`;
  const at = (s.agents[agent] ?? 0) + 1;
  s.agents[agent] = at;
  g.clock = { [agent]: at };
  for (const slot of g.slots) s.slots[slot]!.reads[`${unit}:${r}`] = { agent, at };
}

function runOp(w: World, s: OState, r: number): void {
  const rs = s.roles[r]!;
  const op = currentOp(w, s, r)!;
  const env = rs.env;
  // bar.sync: the second step of a waiter, once the barrier released it
  if (op.kind === 'bar.sync' && rs.bar === 'released') {
    rs.bar = 'free';
    return next(w, s, r);
  }
  tick(rs, r);
  switch (op.kind) {
    case 'put': {
      const a = slotOf(w, op.target, env);
      const v = value(w, op.value, env);
      const sl = s.slots[a]!;
      join(rs.clock, sl.clock);
      checkWrite(s, a, rs.clock);
      write(s, a, v, false, here(rs, r));
      sl.full = true;
      sl.empty = false;
      join(sl.clock, rs.clock);
      break;
    }
    case 'get': {
      const a = slotOf(w, op.target, env);
      const expect = value(w, op.expect, env);
      const sl = s.slots[a]!;
      join(rs.clock, sl.clock);
      checkRead(s, a, rs.clock, false);
      checkFifo(s, a, expect);
      sl.reads[`generic:${r}`] = here(rs, r);
      delete sl.readFences[`generic:${r}`];
      sl.full = false;
      sl.empty = false;
      break;
    }
    case 'consumed': {
      const a = slotOf(w, op.target, env);
      const sl = s.slots[a]!;
      if (!(!sl.full && !sl.empty) && !w.literal) throw new Fail('protocol', 'consumed a slot not borrowed');
      if (w.plant !== 'consumed-no-release') join(sl.clock, rs.clock);
      sl.full = false;
      sl.empty = true;
      break;
    }
    case 'init': {
      const b = barOf(w, op.target, env);
      const n = val(w, op.count, env);
      const bar = s.barriers[b]!;
      if (bar.valid) throw new Fail('protocol', 'double init');
      if (!Number.isInteger(n) || n < 1 || n > MAX_COUNT) throw new Fail('protocol', 'init count');
      Object.assign(bar, { valid: true, incarnation: bar.incarnation + 1, phase: 0, pending: n, expected: n, tx: 0, observed: true, pendingClock: {}, doneClock: {} });
      break;
    }
    case 'inval':
      validBar(s, barOf(w, op.target, env)).valid = false;
      break;
    case 'arrive': {
      const b = barOf(w, op.target, env);
      validBar(s, b);
      arriveOn(w, s, r, b, val(w, op.count, env));
      break;
    }
    case 'arrive.expect_tx': {
      const b = barOf(w, op.target, env);
      const bar = validBar(s, b);
      const bytes = val(w, op.bytes, env);
      if (bar.phase >= 1 && !bar.observed) throw new Fail('protocol', 'missing wait');
      addTx(bar, bytes);
      arriveOn(w, s, r, b, 1);
      break;
    }
    case 'expect_tx': {
      const b = barOf(w, op.target, env);
      addTx(validBar(s, b), val(w, op.bytes, env));
      break;
    }
    case 'complete_tx': {
      const b = barOf(w, op.target, env);
      addTx(validBar(s, b), -val(w, op.bytes, env));
      complete(w, s, b);
      break;
    }
    case 'wait': {
      const b = barOf(w, op.target, env);
      const bar = validBar(s, b);
      const p = val(w, op.parity, env);
      if (p !== 0 && p !== 1) throw new Fail('protocol', 'parity');
      if (w.plant !== 'no-missed-phase' && missesPhase(rs, b, bar, p)) throw new Fail('protocol', 'missed phase');
      join(rs.clock, bar.doneClock);
      rs.clock[barAgent(b, bar)] = Math.max(rs.clock[barAgent(b, bar)] ?? 0, bar.phase);
      bar.observed = true;
      break;
    }
    case 'tma.load': {
      const slot = slotOf(w, op.target, env);
      const b = barOf(w, op.barrier, env);
      const bytes = val(w, op.bytes, env);
      const v = value(w, op.value, env);
      const span = op.slots === undefined ? 1 : val(w, op.slots, env);
      const res = w.slotBase.get(op.target.name)!;
      if (!Number.isInteger(span) || span < 1 || slot - res.base + span > res.size) throw new Fail('protocol', 'tma past the buffer');
      if (!s.barriers[b]!.valid) throw new Fail('protocol', 'tma on invalid barrier');
      if (!Number.isInteger(bytes) || bytes < 0) throw new Fail('protocol', 'tma bytes');
      for (let i = slot; i < slot + span; i++) checkWrite(s, i, rs.clock, true);
      s.tma.push({ slot, span, barrier: b, bytes, value: v, role: r });
      break;
    }
    case 'tma.store':
    case 'wgmma.issue': {
      const slot = slotOf(w, op.target, env);
      const expect = op.kind === 'wgmma.issue' ? value(w, op.expect, env) : undefined;
      checkRead(s, slot, rs.clock, true);
      checkFifo(s, slot, expect);
      (op.kind === 'tma.store' ? rs.storeOpen : rs.mmaOpen).push(slot);
      if (op.kind === 'wgmma.issue' && op.commit) commit(rs, 'mma');
      break;
    }
    case 'bulk.commit':
      commit(rs, 'store');
      break;
    case 'wgmma.commit':
      commit(rs, 'mma');
      break;
    case 'wgmma.wait':
    case 'bulk.wait': {
      const n = val(w, op.pending, env);
      if (!Number.isInteger(n) || n < 0) throw new Fail('protocol', 'wait_group count');
      const gs = op.kind === 'wgmma.wait' ? rs.mma : rs.store;
      const covered = gs.splice(0, Math.max(0, gs.length - n));
      if (w.plant !== 'wait-group-no-acquire') for (const g of covered) join(rs.clock, g.clock);
      break;
    }
    case 'bar.sync':
    case 'bar.arrive': {
      const completed = arriveNamed(w, s, r, val(w, op.id, env), val(w, op.threads, env), op.kind === 'bar.sync');
      if (op.kind === 'bar.sync') {
        // the last arriver is released like the others and leaves in a step of its own
        rs.bar = completed ? 'released' : 'waiting';
        return; // stays at the op
      }
      break;
    }
    case 'fence.proxy.async':
      for (const sl of s.slots) {
        if (sl.write && sl.generic && knows(rs.clock, sl.write) && !sl.fences[`r${r}`]) sl.fences[`r${r}`] = here(rs, r);
        for (const [key, e] of Object.entries(sl.reads))
          if ((key.startsWith('generic:') || key.startsWith('atomic:')) && knows(rs.clock, e)) (sl.readFences[key] ??= {})[`r${r}`] ??= here(rs, r);
      }
      break;
    case 'read': {
      const slot = slotOf(w, op.target, env);
      const expect = value(w, op.expect, env);
      checkRead(s, slot, rs.clock, false);
      checkFifo(s, slot, expect);
      s.slots[slot]!.reads[`generic:${r}`] = here(rs, r);
      delete s.slots[slot]!.readFences[`generic:${r}`];
      break;
    }
    case 'write': {
      const slot = slotOf(w, op.target, env);
      const v = value(w, op.value, env);
      checkWrite(s, slot, rs.clock, false, v);
      write(s, slot, v, true, here(rs, r));
      break;
    }
    case 'atomic': {
      const slot = slotOf(w, op.target, env);
      checkAtomic(s, slot, rs.clock);
      const sl = s.slots[slot]!;
      sl.value = undefined;
      sl.reads[`atomic:${r}`] = here(rs, r);
      delete sl.readFences[`atomic:${r}`];
      break;
    }
  }
  next(w, s, r);
}

function next(w: World, s: OState, r: number): void {
  const rs = s.roles[r]!;
  const f = rs.frames[rs.frames.length - 1]!;
  f.pos += 1;
  advance(w, s, r);
}

function commit(rs: ORole, unit: 'mma' | 'store'): void {
  const open = unit === 'mma' ? rs.mmaOpen : rs.storeOpen;
  const g: OGroup = { slots: open.splice(0), retired: false, clock: {} };
  (unit === 'mma' ? rs.mma : rs.store).push(g);
}

function arriveNamed(w: World, s: OState, r: number, id: number, n: number, waits: boolean): boolean {
  if (!Number.isInteger(id) || id < 0 || id > 15) throw new Fail('protocol', 'named id');
  if (!Number.isInteger(n) || n <= 0 || n % 32 !== 0) throw new Fail('protocol', 'named count');
  const nb = s.named[id]!;
  if (nb.threads !== 0 && nb.threads !== n) throw new Fail('protocol', 'named count differs');
  const count = nb.count + w.program.roles[r]!.warps * 32;
  if (count > n) throw new Fail('protocol', 'named overflow');
  nb.threads = n;
  nb.count = count;
  join(nb.clock, s.roles[r]!.clock);
  if (count < n) return false;
  s.roles.forEach((other, o) => {
    const op = currentOp(w, s, o);
    if (other.bar === 'waiting' && op?.kind === 'bar.sync' && safeVal(w, op.id, other.env) === id) {
      join(other.clock, nb.clock);
      other.bar = 'released';
    }
  });
  // only waiting acquires: a bar.arrive that completes the generation learns nothing
  if (waits) join(s.roles[r]!.clock, nb.clock);
  s.named[id] = { count: 0, threads: 0, clock: {} };
  return true;
}

function safeVal(w: World, e: Expr, env: Record<string, number>): number | undefined {
  try {
    return val(w, e, env);
  } catch {
    return undefined;
  }
}

/** When everything has finished: arefs empty, no half-done phase, the last transaction phase waited on, no landed data unread. */
function endCheck(w: World, s: OState): void {
  for (let a = 0; a < w.arefSlots; a++) {
    const sl = s.slots[a]!;
    if (sl.full || !sl.empty) throw new Fail('protocol', 'aref not empty at the end');
  }
  let b = 0;
  for (const res of w.barBase.values()) {
    for (let i = 0; i < res.size; i++, b++) {
      const bar = s.barriers[b]!;
      if (!bar.valid) continue;
      if (bar.tx !== 0) throw new Fail('protocol', 'phase left open with bytes outstanding');
      if (res.tx && bar.phase >= 1 && !bar.observed) throw new Fail('protocol', 'completed phase never waited on');
    }
  }
  for (let slot = w.arefSlots; slot < w.slotCount; slot++) {
    const sl = s.slots[slot]!;
    if (sl.write && !sl.generic && Object.keys(sl.reads).length === 0) throw new Fail('protocol', 'landed data unread');
  }
}
