// Words for people: an action with its operands evaluated, and what it changed in the state.
import type { OpCtx } from './context.ts';
import { NO_VALUE, type Machine } from './machine.ts';
import type { MachineState, TmaFlight } from './state.ts';
import { currentOp, type Action } from './step.ts';

const show = (v: number | undefined): string => (v === undefined || v === NO_VALUE ? '⊥' : String(v));

function refText(ctx: OpCtx, i: number): string {
  const ref = ctx.instr.refs[i];
  if (!ref) return '?';
  let idx: string;
  try {
    idx = String(ref.index(ctx.s.roles[ctx.r]?.vars ?? []));
  } catch {
    idx = '?';
  }
  return `${ref.res.name}[${idx}]`;
}

function argText(ctx: OpCtx, i: number): string {
  try {
    return show(ctx.instr.args[i]?.(ctx.s.roles[ctx.r]?.vars ?? []));
  } catch {
    return '?';
  }
}

/** The operation role r is about to execute, operands evaluated: `wait full[1], 0`. */
export function describeOp(m: Machine, s: MachineState, r: number): string {
  const instr = currentOp(m, s, r);
  if (!instr) return 'done';
  const ctx: OpCtx = { m, s, r, instr };
  const op = instr.op;
  const t = (i: number): string => refText(ctx, i);
  const a = (i: number): string => argText(ctx, i);
  const opt = (word: string, i: number): string => (a(i) === '⊥' ? '' : ` ${word} ${a(i)}`);
  switch (op.kind) {
    case 'put': return `put ${t(0)}, ${a(0)}`;
    case 'get': return `get ${t(0)}${opt('expect', 0)}`;
    case 'consumed': return `consumed ${t(0)}`;
    case 'init': return `init ${t(0)}, ${a(0)}`;
    case 'arrive': return `arrive ${t(0)}, ${a(0)}${op.token === undefined ? '' : ` -> ${op.token}`}`;
    case 'arrive.expect_tx': return `${op.kind} ${t(0)}, ${a(0)}${op.token === undefined ? '' : ` -> ${op.token}`}`;
    case 'expect_tx':
    case 'complete_tx': return `${op.kind} ${t(0)}, ${a(0)}`;
    case 'wait': return `wait ${t(0)}, parity ${a(0)}`;
    case 'wait.token': return `wait ${t(0)}, token ${op.token}`;
    case 'inval': return `inval ${t(0)}`;
    case 'tma.load': return `tma.load ${t(0)} -> ${t(1)}, ${a(0)}${opt('value', 1)}`;
    case 'tma.store': return `tma.store ${t(0)}`;
    case 'wgmma.issue': return `${op.commit ? 'mma.issue' : 'wgmma.issue'} ${t(0)}${opt('expect', 0)}`;
    case 'bulk.commit':
    case 'wgmma.commit':
    case 'fence.proxy.async': return op.kind;
    case 'bulk.wait':
    case 'wgmma.wait': return `${op.kind} ${a(0)}`;
    case 'bar.sync':
    case 'bar.arrive': return `${op.kind} ${a(0)}, ${a(1)}`;
    case 'read': return `read ${t(0)}${opt('expect', 0)}`;
    case 'write': return `write ${t(0)}${a(0) === '⊥' ? '' : `, ${a(0)}`}`;
    case 'atomic': return `atomic ${t(0)}`;
  }
}

/** Who performs an action: a role name, or the async unit acting for one. */
export function actorName(m: Machine, s: MachineState, a: Action): string {
  if (a.kind === 'role') return m.roles[a.role]?.name ?? `role${a.role}`;
  if (a.kind === 'land') return `TMA (${m.roles[s.tma[a.index]?.role ?? 0]?.name})`;
  return `${a.unit === 'mma' ? 'wgmma' : 'TMA store'} unit (${m.roles[a.role]?.name})`;
}

/** The action as it happens in state `s` (before it). */
export function describeAction(m: Machine, s: MachineState, a: Action): string {
  if (a.kind === 'role') {
    const rs = s.roles[a.role];
    const op = describeOp(m, s, a.role);
    return rs?.barState === 2 ? `${op} (released)` : op;
  }
  if (a.kind === 'land') {
    const t = s.tma[a.index];
    if (!t) return 'TMA lands';
    return `copy lands in ${flightSlots(m, t)} (value ${show(t.value)}), complete_tx ${t.bytes} on ${m.barrierNames[t.barrier]}`;
  }
  const rs = s.roles[a.role];
  const g = (a.unit === 'mma' ? rs?.mmaGroups : rs?.storeGroups)?.find((x) => !x.retired);
  const reads = g && g.slots.length > 0 ? `reads of ${g.slots.map((x) => m.slotNames[x]).join(', ')}` : 'an empty group';
  return `group retires (${reads} complete)`;
}

export function barrierShort(s: MachineState, b: number): string {
  const bar = s.barriers[b];
  if (!bar || !bar.valid) return 'uninitialised';
  return `phase ${bar.phase} pending ${bar.pending}/${bar.expected} tx ${bar.tx}`;
}

/** The parts of the state an action changed, one short string each. */
export function describeChanges(m: Machine, before: MachineState, after: MachineState): string[] {
  const out: string[] = [];
  for (let a = 0; a < m.arefSlotCount; a++) {
    if (before.arefF[a] !== after.arefF[a] || before.arefE[a] !== after.arefE[a] || before.slotValue[a] !== after.slotValue[a])
      out.push(`σ(${m.slotNames[a]}) = ⟨${show(after.slotValue[a])}, ${after.arefF[a]}, ${after.arefE[a]}⟩`);
  }
  for (let slot = m.arefSlotCount; slot < m.slotCount; slot++) {
    if (before.slotValue[slot] !== after.slotValue[slot]) out.push(`${m.slotNames[slot]} = ${show(after.slotValue[slot])}`);
  }
  for (let b = 0; b < m.barrierCount; b++) {
    const x = before.barriers[b];
    const y = after.barriers[b];
    if (x && y && (x.valid !== y.valid || x.phase !== y.phase || x.pending !== y.pending || x.tx !== y.tx || x.expected !== y.expected))
      out.push(`${m.barrierNames[b]}: ${barrierShort(after, b)}`);
  }
  if (before.tma.length !== after.tma.length) out.push(`TMA in flight: ${after.tma.length}`);
  for (let r = 0; r < m.roles.length; r++) {
    const x = before.roles[r];
    const y = after.roles[r];
    if (!x || !y) continue;
    const outstanding = (rs: typeof x): number => rs.mmaGroups.filter((g) => !g.retired).length + (rs.mmaOpen.length > 0 ? 1 : 0);
    if (outstanding(x) !== outstanding(y)) out.push(`${m.roles[r]?.name} wgmma outstanding: ${outstanding(y)}`);
  }
  for (let id = 0; id < after.namedCount.length; id++) {
    if (before.namedCount[id] !== after.namedCount[id]) out.push(`named barrier ${id}: ${after.namedCount[id]} threads in`);
  }
  if (!before.violation && after.violation) out.push(`${after.violation.kind}: ${after.violation.message}`);
  return out;
}

/** The slots a copy in flight fills: `S[2]`, or `S[2..5]` for one copy over several slots. */
export function flightSlots(m: Machine, t: TmaFlight): string {
  const first = m.slotNames[t.slot] ?? `slot${t.slot}`;
  if (t.span === 1) return first;
  const last = m.slotNames[t.slot + t.span - 1] ?? '';
  return `${first.replace(/\]$/, '')}..${/\[(\d+)\]$/.exec(last)?.[1] ?? '?'}]`;
}
