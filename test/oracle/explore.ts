// The oracle's explorer: breadth-first search over whole states keyed by their JSON text, no
// packing, no reduction. For every violation kind it reports the depth of the shallowest state
// showing it (a violating state is not explored further), like the checker's "first of each kind".
// At the mbarrier level an aref program is lowered and watched by the oracle's own σ monitor.
import { lowerProgram, loweredNames } from '../../src/lower.ts';
import { evalExpr } from '../../src/ir/expr.ts';
import { programLevel, type Expr, type Level, type Program } from '../../src/ir/program.ts';
import { actions, currentOp, finished, initial, makeWorld, step, type OAction, type Plant, type World } from './rules.ts';
import type { OState } from './state.ts';

export interface OracleResult {
  readonly verdict: 'verified' | 'violation' | 'too big';
  /** kind → depth (actions) of the shallowest state showing it */
  readonly kinds: ReadonlyMap<string, number>;
  readonly states: number;
}

export interface OracleOptions {
  readonly level?: Level;
  readonly literal?: boolean;
  readonly plant?: Plant;
  readonly maxStates?: number;
}

/** σ of each aref slot, watched through the lowered program's events (aref-level rules). */
interface Monitor {
  readonly sigma: { full: boolean; empty: boolean }[];
  bad?: boolean;
  end?: boolean;
}

interface Node {
  readonly s: OState;
  readonly mon: Monitor | undefined;
}

export function oracleCheck(program: Program, options: OracleOptions = {}): OracleResult {
  const own = programLevel(program);
  const level = options.level ?? own;
  const lowered = level === 'mbarrier' && own === 'aref';
  const w = makeWorld(lowered ? lowerProgram(program) : program, options.literal ?? false, options.plant ?? 'none');
  const watch = lowered ? watchedSlots(program, w) : undefined;
  const max = options.maxStates ?? 200_000;

  const first: Node = { s: initial(w), mon: watch ? endOf(w, { sigma: watch.map(() => ({ full: false, empty: true })) }, undefined) : undefined };
  const seen = new Set<string>([key(first)]);
  let frontier: Node[] = [first];
  const kinds = new Map<string, number>();
  for (let depth = 0; frontier.length > 0; depth++) {
    const next: Node[] = [];
    for (const node of frontier) {
      const bad = node.s.violation ?? (node.mon?.bad ? 'refinement' : node.mon?.end ? 'protocol' : undefined);
      if (bad) {
        if (!kinds.has(bad)) kinds.set(bad, depth);
        continue;
      }
      const acts = actions(w, node.s);
      if (acts.length === 0) {
        if (!finished(node.s) && !kinds.has('deadlock')) kinds.set('deadlock', depth);
        continue;
      }
      for (const a of acts) {
        const s = step(w, node.s, a);
        const child: Node = { s, mon: node.mon && watch ? monitorStep(w, watch, node, a, s) : undefined };
        const k = key(child);
        if (seen.has(k)) continue;
        seen.add(k);
        if (seen.size > max) return { verdict: 'too big', kinds, states: seen.size };
        next.push(child);
      }
    }
    frontier = next;
  }
  return { verdict: kinds.size > 0 ? 'violation' : 'verified', kinds, states: seen.size };
}

const key = (n: Node): string => JSON.stringify([n.s, n.mon ?? null]);

interface Watched {
  /** slot ids of A_buf[i] and barrier ids of A_full[i], A_empty[i] in the lowered world */
  readonly buf: number;
  readonly full: number;
  readonly empty: number;
}

function watchedSlots(arefProgram: Program, w: World): Watched[] {
  const out: Watched[] = [];
  for (const r of arefProgram.resources) {
    if (r.kind !== 'aref') continue;
    const n = loweredNames(r.name);
    const buf = w.slotBase.get(n.buffer);
    const full = w.barBase.get(n.full);
    const empty = w.barBase.get(n.empty);
    if (!buf || !full || !empty) throw new Error(`oracle: the lowering has no ${n.buffer}/${n.full}/${n.empty}`);
    for (let i = 0; i < r.depth; i++) out.push({ buf: buf.base + i, full: full.base + i, empty: empty.base + i });
  }
  return out;
}

/** The aref event a step of the lowered program is, judged before it: a landing in A_buf (put), a passing full wait (get), an empty arrive (consumed). */
function monitorStep(w: World, watch: readonly Watched[], before: Node, a: OAction, after: OState): Monitor {
  const mon = before.mon!;
  if (after.violation) return mon;
  let ev: { kind: 'put' | 'get' | 'consumed'; i: number } | undefined;
  if (a.kind === 'land') {
    const t = before.s.tma[a.index]!;
    const i = watch.findIndex((x) => x.buf === t.slot);
    if (i >= 0) ev = { kind: 'put', i };
  } else if (a.kind === 'role') {
    const op = currentOp(w, before.s, a.role);
    if (op && (op.kind === 'wait' || op.kind === 'arrive')) {
      const res = w.barBase.get(op.target.name);
      const idx = evalIndex(w, before.s, a.role, op.target.index);
      if (res && idx !== undefined) {
        const b = res.base + idx;
        const i = watch.findIndex((x) => (op.kind === 'wait' ? x.full : x.empty) === b);
        if (i >= 0) ev = { kind: op.kind === 'wait' ? 'get' : 'consumed', i };
      }
    }
  }
  const sigma = mon.sigma.map((x) => ({ ...x }));
  if (ev) {
    const x = sigma[ev.i]!;
    if (ev.kind === 'put') {
      if (!x.empty) return { sigma, bad: true };
      x.full = true;
      x.empty = false;
    } else if (ev.kind === 'get') {
      if (!x.full) return { sigma, bad: true };
      x.full = false;
    } else {
      if (x.full || x.empty) return { sigma, bad: true };
      x.empty = true;
    }
  }
  return endOf(w, { sigma }, after);
}

function endOf(_w: World, mon: Monitor, s: OState | undefined): Monitor {
  if (s && finished(s) && mon.sigma.some((x) => x.full || !x.empty)) return { ...mon, end: true };
  return mon;
}

function evalIndex(w: World, s: OState, r: number, e: Expr): number | undefined {
  try {
    return evalExpr(e, new Map(Object.entries({ ...w.params, ...s.roles[r]!.env })));
  } catch {
    return undefined;
  }
}
