// Where each part of the semantic state lives in the Promela model (docs/scale.md): sizes,
// capacities of the lists that are bounded only by the run, and the happens-before knowledge
// as one table of 31-bit words, one row per knowledge holder.
//
// The events are laid out densely (every slot has a write, a fence per role, a read per reader
// class and role, and a read-fence per role), not pruned to the ones the program can make as
// semantics/events.ts does: an event no op creates is never present, so the meaning is the
// same, and the bit of an event is arithmetic on (slot, class, role) that the model computes.
import type { Machine } from '../../semantics/index.ts';
import { controlStep } from '../../semantics/step.ts';
import type { Op } from '../ir/program.ts';
import { foldExpr } from './expr.ts';

/** Bits per knowledge word: 31, so that no shift reaches the sign bit of a Promela int. */
export const WORD_BITS = 31;

export interface PromelaLayout {
  /** roles, slots (aref slots first, then buffer slots), aref slots, barriers */
  readonly roles: number;
  readonly slots: number;
  readonly arefSlots: number;
  readonly barriers: number;
  /** named barrier ids an op may name (0 when the program has no bar.sync / bar.arrive): the model keeps 0..named-1 */
  readonly named: number;
  /** named barrier ids that exist (the program's declaration): an id past it is a protocol violation */
  readonly namedIds: number;
  /** token variables per role (at least 1, so the array exists) */
  readonly tokens: number;
  /** committed groups a role may hold per unit before the model reports a capacity overflow (0: unit unused) */
  readonly mmaGroups: number;
  readonly storeGroups: number;
  /** TMA copies in flight at once: one per buffer slot at most (a second copy into a slot in flight is a race) */
  readonly tmaFlights: number;
  /** knowledge bits (events, then two phase bits per barrier), words per holder, holders */
  readonly bits: number;
  readonly words: number;
  readonly holders: number;
  /** an upper bound on pan's state vector, for -DVECTORSZ */
  readonly vectorBytes: number;
}

/** Events per slot: the write, a fence per role, a read per reader class (3) and role, a read-fence per role. */
export const eventsPerSlot = (roles: number): number => 1 + 5 * roles;

/** Control steps the group-count walk takes per role before it gives up (then: the largest wait count + 2). */
const WALK_LIMIT = 10_000_000;

/**
 * The most committed groups one role holds at once on a unit. A role's control flow reads only
 * its loop variables and the parameters, so each role runs one fixed sequence of operations
 * whatever the interleaving: walking it gives the exact figure. Undefined when the walk is too
 * long or an expression fails (the checker reports that as a violation; the list cannot grow past it).
 */
function mostGroups(m: Machine, r: number, unit: 'mma' | 'store'): number | undefined {
  const code = m.roles[r]?.code ?? [];
  const vars = new Array<number>(m.roles[r]?.varNames.length ?? 0).fill(0);
  let held = 0;
  let most = 0;
  let pc = 0;
  try {
    for (let steps = 0; steps < WALK_LIMIT; steps++) {
      const instr = code[pc];
      if (!instr) return most;
      if (instr.kind !== 'op') pc = controlStep(instr, vars, pc);
      else {
        const op = instr.op;
        const commits = unit === 'mma' ? op.kind === 'wgmma.commit' || (op.kind === 'wgmma.issue' && op.commit) : op.kind === 'bulk.commit';
        if (commits) most = Math.max(most, ++held);
        if (op.kind === (unit === 'mma' ? 'wgmma.wait' : 'bulk.wait')) held = Math.min(held, Math.max(0, instr.args[0]?.(vars) ?? 0));
        pc += 1;
      }
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** The largest constant pending count of the waits on one unit (a non-constant one counts 8). */
function maxPending(m: Machine, kind: 'wgmma.wait' | 'bulk.wait'): number {
  let most = 0;
  for (const role of m.roles)
    for (const instr of role.code) {
      if (instr.kind !== 'op' || instr.op.kind !== kind) continue;
      const e = foldExpr(instr.op.pending, m.params);
      most = Math.max(most, e.kind === 'num' ? e.value : 8);
    }
  return most;
}

/** Group capacity per role for a unit: the walk's figure for every role, else the largest wait count + 2. */
function groupCapacity(m: Machine, unit: 'mma' | 'store'): number {
  const walked = m.roles.map((_, r) => mostGroups(m, r, unit));
  if (walked.every((n) => n !== undefined)) return Math.max(1, ...walked);
  return maxPending(m, unit === 'mma' ? 'wgmma.wait' : 'bulk.wait') + 2;
}

const usesAny = (m: Machine, kinds: readonly Op['kind'][]): boolean => m.roles.some((r) => r.code.some((i) => i.kind === 'op' && kinds.includes(i.op.kind)));

export interface LayoutOptions {
  /** Committed groups per role and unit the model can hold; default: the most a role ever holds (see groupCapacity). */
  readonly groups?: number;
}

export function promelaLayout(m: Machine, options: LayoutOptions = {}): PromelaLayout {
  const roles = m.roles.length;
  const groupsFor = (used: boolean, unit: 'mma' | 'store'): number => (used ? (options.groups ?? groupCapacity(m, unit)) : 0);
  const mmaGroups = groupsFor(usesAny(m, ['wgmma.issue', 'wgmma.commit', 'wgmma.wait']), 'mma');
  const storeGroups = groupsFor(usesAny(m, ['tma.store', 'bulk.commit', 'bulk.wait']), 'store');
  // ids no op can name never change: the model keeps the ones up to the last an op may name
  const named = m.usesNamedBarriers ? m.namedUsed.lastIndexOf(true) + 1 : 0;
  const bits = m.slotCount * eventsPerSlot(roles) + 2 * m.barrierCount;
  const holders = 1 + roles + 2 * m.barrierCount + m.arefSlotCount + named + roles * (mmaGroups + storeGroups);
  const words = Math.max(1, Math.ceil(bits / WORD_BITS));
  const tmaFlights = usesAny(m, ['tma.load']) ? Math.max(1, m.slotCount - m.arefSlotCount) : 0;
  const groupBytes = roles * (mmaGroups + storeGroups) * (m.slotCount + 1) + 2 * roles * m.slotCount;
  const locals = m.roles.reduce((n, r) => n + 4 * r.varNames.length + 16, 0);
  const vectorBytes = 4 * holders * words + 10 * m.slotCount + 20 * m.barrierCount + 8 * named + 8 * roles * Math.max(1, ...m.roles.map((r) => r.tokenNames.length)) + groupBytes + 20 * tmaFlights + locals + 64;
  return {
    roles,
    slots: m.slotCount,
    arefSlots: m.arefSlotCount,
    barriers: m.barrierCount,
    named,
    namedIds: m.namedBarriers,
    tokens: Math.max(1, ...m.roles.map((r) => r.tokenNames.length)),
    mmaGroups,
    storeGroups,
    tmaFlights,
    bits,
    words,
    holders,
    vectorBytes: Math.max(1024, 2 * vectorBytes),
  };
}
