// Full state valuations for trace files (ITF, as Apalache and Quint write them): every state of a
// counterexample as records of plain values — where each role is and its loop variables, σ of
// every slot, each barrier's phase, pending arrivals and transaction count, the copies in flight
// and each role's committed async groups. Rebuilt by running the trace's actions from the initial
// state, so the report itself stays small.
import { lowerProgram } from '../lower.ts';
import { programLevel, type Level, type Program } from '../ir/program.ts';
import { currentOp, enabledActions, executeAction, NO_VALUE, start, type Machine, type MachineState } from '../../semantics/index.ts';

/** ITF values: integers, strings, booleans, lists and records. */
export type ItfValue = number | string | boolean | readonly ItfValue[] | { readonly [key: string]: ItfValue };

/** The state variables a valuation has (ITF's `vars`, after `changes`). */
export const VALUATION_VARS = ['roles', 'slots', 'barriers', 'inFlight', 'groups'] as const;
export type Valuation = Readonly<Record<(typeof VALUATION_VARS)[number], ItfValue>>;

/** ITF has no null: a slot never written holds "⊥". */
const value = (v: number | undefined): ItfValue => (v === undefined || v === NO_VALUE ? '⊥' : v);

/** Names made unique: a second loop over `k` in one role is `k#2`. */
function uniqueNames(names: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((n) => {
    const count = (seen.get(n) ?? 0) + 1;
    seen.set(n, count);
    return count === 1 ? n : `${n}#${count}`;
  });
}

export function valuation(m: Machine, s: MachineState): Valuation {
  const roles: Record<string, ItfValue> = {};
  const groups: Record<string, ItfValue> = {};
  m.roles.forEach((role, r) => {
    const rs = s.roles[r];
    if (!rs) return;
    const names = uniqueNames(role.varNames);
    const loc = currentOp(m, s, r)?.loc;
    roles[role.name] = {
      at: rs.pc >= role.code.length ? 'done' : loc ? `line ${loc.line}` : `pc ${rs.pc}`,
      vars: Object.fromEntries(names.map((n, i) => [n, rs.vars[i] ?? 0])),
      steps: rs.steps,
    };
    const list = (gs: MachineState['roles'][number]['mmaGroups'], open: readonly number[]): ItfValue => ({
      open: open.map((x) => m.slotNames[x] ?? String(x)),
      committed: gs.map((g) => ({ slots: g.slots.map((x) => m.slotNames[x] ?? String(x)), retired: g.retired })),
    });
    if (rs.mmaGroups.length + rs.mmaOpen.length + rs.storeGroups.length + rs.storeOpen.length > 0)
      groups[role.name] = { wgmma: list(rs.mmaGroups, rs.mmaOpen), store: list(rs.storeGroups, rs.storeOpen) };
  });
  const slots: Record<string, ItfValue> = {};
  for (let x = 0; x < m.slotCount; x++) {
    const name = m.slotNames[x] ?? `slot${x}`;
    slots[name] = x < m.arefSlotCount ? { value: value(s.slotValue[x]), F: s.arefF[x] ?? 0, E: s.arefE[x] ?? 0 } : { value: value(s.slotValue[x]) };
  }
  const barriers: Record<string, ItfValue> = {};
  s.barriers.forEach((b, i) => {
    barriers[m.barrierNames[i] ?? `bar${i}`] = { valid: b.valid === 1, phase: b.phase, pending: b.pending, expected: b.expected, tx: b.tx };
  });
  const inFlight = s.tma.map((t) => ({ slot: m.slotNames[t.slot] ?? String(t.slot), slots: t.span, barrier: m.barrierNames[t.barrier] ?? String(t.barrier), bytes: t.bytes, value: value(t.value) }));
  return { roles, slots, barriers, inFlight, groups };
}

/**
 * The valuation of every state of a trace: the initial state, then after each action (the
 * action at `actionIndices[i]` among those enabled). Stops early where the trace does not fit.
 */
export function traceValuations(program: Program, level: Level, options: { readonly literal: boolean; readonly params: Readonly<Record<string, number>> }, actionIndices: readonly number[]): Valuation[] {
  const lowered = level === 'mbarrier' && programLevel(program) === 'aref';
  const params = new Map(Object.entries(options.params));
  const { machine, state } = start(lowered ? lowerProgram(program) : program, { literal: options.literal, params });
  const out = [valuation(machine, state)];
  let s = state;
  for (const index of actionIndices) {
    const a = enabledActions(machine, s)[index];
    if (!a) break;
    executeAction(machine, s, a);
    out.push(valuation(machine, s));
  }
  return out;
}
