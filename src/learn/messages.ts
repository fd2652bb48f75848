// One step as arrows of a sequence diagram: who acted on what, labelled with the operation and
// what it did to its target. Roles call resources (aref slots, barriers, buffer slots, named
// barriers) and their async units (TMA, wgmma); units answer with dashed arrows.
import { barrierShort, NO_VALUE, type Machine, type MachineState } from '../../semantics/index.ts';
import type { StepRecord } from './session.ts';

/** Who can appear on a lifeline. Keys are stable strings: they become the Mermaid ids. */
export type Party =
  | { readonly kind: 'role'; readonly role: number }
  | { readonly kind: 'tma' }
  | { readonly kind: 'wgmma'; readonly role: number }
  | { readonly kind: 'slot'; readonly slot: number }
  | { readonly kind: 'barrier'; readonly barrier: number }
  | { readonly kind: 'named'; readonly id: number };

export interface Message {
  readonly step: number;
  readonly from: Party;
  readonly to: Party;
  readonly label: string;
  /** an async unit's doing (landing, retirement): drawn dashed */
  readonly dashed: boolean;
  /** the step that produced the violation: drawn with a cross */
  readonly failed: boolean;
}

export function partyId(p: Party): string {
  switch (p.kind) {
    case 'role': return `r${p.role}`;
    case 'tma': return 'tma';
    case 'wgmma': return `w${p.role}`;
    case 'slot': return `s${p.slot}`;
    case 'barrier': return `b${p.barrier}`;
    case 'named': return `n${p.id}`;
  }
}

export function partyName(m: Machine, p: Party): string {
  switch (p.kind) {
    case 'role': return m.roles[p.role]?.name ?? `role${p.role}`;
    case 'tma': return 'TMA';
    case 'wgmma': return `wgmma (${m.roles[p.role]?.name ?? `role${p.role}`})`;
    case 'slot': return m.slotNames[p.slot] ?? `slot${p.slot}`;
    case 'barrier': return m.barrierNames[p.barrier] ?? `barrier${p.barrier}`;
    case 'named': return `bar ${p.id}`;
  }
}

const show = (v: number | undefined): string => (v === undefined || v === NO_VALUE ? '⊥' : String(v));

const sigma = (s: MachineState, slot: number): string => `⟨${show(s.slotValue[slot])}, ${s.arefF[slot]}, ${s.arefE[slot]}⟩`;

/** The arrows of one step (usually one; a TMA landing writes its slot and completes on its barrier). */
export function stepMessages(m: Machine, step: StepRecord): Message[] {
  const { before, after, action: a } = step;
  const failed = !before.violation && after.violation !== undefined;
  const out: Message[] = [];
  const add = (from: Party, to: Party, label: string, dashed = false): void => {
    out.push({ step: step.index, from, to, label: `${step.index}. ${label}`, dashed, failed });
  };

  if (a.kind === 'land') {
    const t = before.tma[a.index];
    if (!t) return out;
    add({ kind: 'tma' }, { kind: 'slot', slot: t.slot }, `lands value ${show(t.value)}`, true);
    add({ kind: 'tma' }, { kind: 'barrier', barrier: t.barrier }, `complete_tx ${t.bytes}${barrierChange(before, after, t.barrier)}`, true);
    return out;
  }
  if (a.kind === 'retire') {
    const rs = before.roles[a.role];
    const unit: 'mma' | 'store' = a.unit;
    const g = (unit === 'mma' ? rs?.mmaGroups : rs?.storeGroups)?.find((x) => !x.retired);
    const reads = g && g.slots.length > 0 ? `reads of ${g.slots.map((x) => m.slotNames[x]).join(', ')} done` : 'empty group';
    const from: Party = unit === 'mma' ? { kind: 'wgmma', role: a.role } : { kind: 'tma' };
    add(from, { kind: 'role', role: a.role }, `${unit === 'mma' ? 'group retires' : 'store group retires'} (${reads})`, true);
    return out;
  }

  const role: Party = { kind: 'role', role: a.role };
  const code = m.roles[a.role]?.code[before.roles[a.role]?.pc ?? -1];
  if (code?.kind !== 'op') return out;
  const vars = before.roles[a.role]?.vars ?? [];
  const val = (i: number): string => {
    try {
      return show(code.args[i]?.(vars));
    } catch {
      return '?';
    }
  };
  const target = (i: number): Party | undefined => {
    const ref = code.refs[i];
    if (!ref) return undefined;
    let idx: number;
    try {
      idx = ref.index(vars);
    } catch {
      return undefined;
    }
    if (idx < 0 || idx >= ref.res.size) return undefined;
    if (ref.res.space === 'barrier') return { kind: 'barrier', barrier: ref.res.base + idx };
    return { kind: 'slot', slot: ref.res.space === 'aref' ? ref.res.base + idx : m.arefSlotCount + ref.res.base + idx };
  };
  // an operand that does not resolve (index out of range): the role talks to itself, the note says why
  const to = (p: Party | undefined): Party => p ?? role;
  const slotOf = (p: Party | undefined): number | undefined => (p?.kind === 'slot' ? p.slot : undefined);
  const barOf = (p: Party | undefined): number | undefined => (p?.kind === 'barrier' ? p.barrier : undefined);
  const arefAfter = (p: Party | undefined): string => {
    const slot = slotOf(p);
    return slot !== undefined && slot < m.arefSlotCount ? ` → ${sigma(after, slot)}` : '';
  };
  const barAfter = (p: Party | undefined): string => {
    const b = barOf(p);
    return b === undefined ? '' : barrierChange(before, after, b);
  };
  const expect = (i: number): string => (val(i) === '⊥' ? '' : ` expect ${val(i)}`);
  const op = code.op;
  const t0 = target(0);
  const mma: Party = { kind: 'wgmma', role: a.role };

  switch (op.kind) {
    case 'put':
      add(role, to(t0), `put ${val(0)}${arefAfter(t0)}`);
      break;
    case 'get': {
      const slot = slotOf(t0);
      add(role, to(t0), `get = ${slot === undefined ? '?' : show(before.slotValue[slot])}${expect(0)}${arefAfter(t0)}`);
      break;
    }
    case 'consumed':
      add(role, to(t0), `consumed${arefAfter(t0)}`);
      break;
    case 'init':
    case 'arrive':
    case 'arrive.expect_tx':
    case 'expect_tx':
    case 'complete_tx': {
      const n = op.kind === 'arrive' && val(0) === '1' ? '' : ` ${val(0)}`;
      add(role, to(t0), `${op.kind}${n}${barAfter(t0)}`);
      break;
    }
    case 'wait': {
      const b = barOf(t0);
      const phase = b === undefined ? undefined : before.barriers[b]?.phase;
      add(role, to(t0), `wait parity ${val(0)}${phase === undefined ? '' : ` passes (phase ${phase})`}`);
      break;
    }
    case 'inval':
      add(role, to(t0), 'inval');
      break;
    case 'tma.load': {
      const slot = slotOf(t0);
      const bar = barOf(target(1));
      const where = `${slot === undefined ? '?' : m.slotNames[slot]} value ${val(1)}, ${val(0)} B on ${bar === undefined ? '?' : m.barrierNames[bar]}`;
      add(role, { kind: 'tma' }, `tma.load ${where}`);
      break;
    }
    case 'tma.store': {
      const slot = slotOf(t0);
      add(role, { kind: 'tma' }, `tma.store ${slot === undefined ? '?' : m.slotNames[slot]}`);
      break;
    }
    case 'bulk.commit':
      add(role, { kind: 'tma' }, 'bulk.commit');
      break;
    case 'bulk.wait':
      add(role, { kind: 'tma' }, `bulk.wait ${val(0)}`);
      break;
    case 'wgmma.issue': {
      const slot = slotOf(t0);
      const name = op.commit ? 'mma.issue' : 'wgmma.issue';
      add(role, mma, `${name} ${slot === undefined ? '?' : `${m.slotNames[slot]} (reads ${show(before.slotValue[slot])})`}${expect(0)}`);
      break;
    }
    case 'wgmma.commit':
      add(role, mma, `wgmma.commit → ${outstanding(after, a.role)} outstanding`);
      break;
    case 'wgmma.wait':
      add(role, mma, `wgmma.wait ${val(0)}`);
      break;
    case 'bar.sync':
    case 'bar.arrive': {
      const id = Number(val(0));
      // BAR_RELEASED (semantics/state.ts): the role leaves a bar.sync that has completed
      const released = before.roles[a.role]?.barState === 2 ? ' (released)' : '';
      const party: Party | undefined = Number.isInteger(id) && id >= 0 && id < after.namedCount.length ? { kind: 'named', id } : undefined;
      // an arrival adds threads: a count of 0 after it means it completed the barrier's generation
      const completed = party !== undefined && after.namedCount[id] === 0;
      const count = party ? (completed ? ' → complete, every waiter released' : ` → ${after.namedCount[id]} threads in`) : '';
      add(role, to(party), `${op.kind} ${val(0)}, ${val(1)}${released}${released ? '' : count}`);
      break;
    }
    case 'fence.proxy.async':
      add(role, role, 'fence.proxy.async');
      break;
    case 'read': {
      const slot = slotOf(t0);
      add(role, to(t0), `read = ${slot === undefined ? '?' : show(before.slotValue[slot])}${expect(0)}`);
      break;
    }
    case 'write':
      add(role, to(t0), `write${val(0) === '⊥' ? '' : ` ${val(0)}`}`);
      break;
    case 'atomic':
      add(role, to(t0), 'atomic');
      break;
  }
  return out;
}

function outstanding(s: MachineState, r: number): number {
  const rs = s.roles[r];
  return rs ? rs.mmaGroups.filter((g) => !g.retired).length + (rs.mmaOpen.length > 0 ? 1 : 0) : 0;
}

function barrierChange(before: MachineState, after: MachineState, b: number): string {
  const x = before.barriers[b];
  const y = after.barriers[b];
  if (!x || !y) return '';
  const same = x.valid === y.valid && x.phase === y.phase && x.pending === y.pending && x.tx === y.tx && x.expected === y.expected;
  return same ? '' : ` → ${barrierShort(after, b)}`;
}
