// What each property of DESIGN.md means for one program: checked, vacuous (it cannot fail on
// this input, and why) or not applicable. A verdict is only as strong as the properties it
// checked: a kernel with no synchronization at all verifies nothing, and the report says so.
import type { Machine } from '../../semantics/index.ts';
import { OP_FAMILY, type Op, type OpKind } from '../ir/program.ts';

export const PROPERTY_KINDS = ['deadlock', 'race', 'fifo', 'protocol', 'termination', 'refinement'] as const;
export type PropertyKind = (typeof PROPERTY_KINDS)[number];

export interface PropertyStatus {
  readonly kind: PropertyKind;
  readonly status: 'checked' | 'vacuous' | 'not applicable';
  /** Why a property is vacuous or not applicable. */
  readonly reason?: string;
}

/** Which ops may block the role that runs them: a table over every op kind, so a new kind must say. */
const BLOCKS = {
  put: true, get: true, consumed: false,
  init: false, arrive: false, 'arrive.expect_tx': false, expect_tx: false, complete_tx: false, wait: true, 'wait.token': true, inval: false,
  'tma.load': false, 'tma.store': false, 'bulk.commit': false, 'bulk.wait': true,
  'wgmma.issue': false, 'wgmma.commit': false, 'wgmma.wait': true,
  'bar.sync': true, 'bar.arrive': false, 'fence.proxy.async': false, read: false, write: false, atomic: false,
} as const satisfies Record<OpKind, boolean>;
const SYNC_FAMILIES: ReadonlySet<string> = new Set(['aref', 'mbarrier', 'async', 'named']);

/**
 * Who touches a resource's slots: the issuing role, or an asynchronous unit acting for it. Each
 * TMA copy is an agent of its own (copies are ordered with nothing, not even each other), and a
 * copy issued inside a loop is two: two copies one role issues into one buffer can race.
 */
function accessor(op: Op, role: number, at: number, looped: boolean): { agents: string[]; writes: boolean } | undefined {
  switch (op.kind) {
    case 'put':
    case 'write':
    case 'atomic':
      return { agents: [`r${role}`], writes: true };
    case 'get':
    case 'read':
      return { agents: [`r${role}`], writes: false };
    case 'tma.load':
      return { agents: looped ? [`tma${role}:${at}`, `tma${role}:${at}'`] : [`tma${role}:${at}`], writes: true };
    case 'wgmma.issue':
      return { agents: [`mma${role}`], writes: false };
    case 'tma.store':
      return { agents: [`store${role}`], writes: false };
    default:
      return undefined;
  }
}

/**
 * Status of every property for a compiled program. `refinement`: whether a refinement monitor runs
 * (an aref program checked at the mbarrier level). Per resource, not per element: a race is
 * "checked" when two agents touch one buffer or aref and one of them writes.
 */
export function propertyStatuses(machine: Machine, refinement: boolean): PropertyStatus[] {
  let blocking = false;
  let expectations = false;
  let sync = false;
  const agents = new Map<string, { agents: Set<string>; writes: boolean }>();
  machine.roles.forEach((role, r) => {
    // the instructions a loop may run again: from a loop's body, or a backward jump's target, to its end
    const loops = role.code.flatMap((instr, j) => (instr.kind === 'loop-next' ? [[instr.body, j] as const] : instr.kind === 'jump' && instr.target <= j ? [[instr.target, j] as const] : []));
    for (const [at, instr] of role.code.entries()) {
      if (instr.kind !== 'op') continue;
      const op = instr.op;
      if (BLOCKS[op.kind]) blocking = true;
      if (SYNC_FAMILIES.has(OP_FAMILY[op.kind])) sync = true;
      if ((op.kind === 'get' || op.kind === 'read' || op.kind === 'wgmma.issue') && op.expect !== undefined) expectations = true;
      const acc = accessor(op, r, at, loops.some(([from, to]) => at >= from && at <= to));
      const res = instr.refs[0]?.res.name;
      if (!acc || res === undefined) continue;
      const entry = agents.get(res) ?? { agents: new Set<string>(), writes: false };
      for (const a of acc.agents) entry.agents.add(a);
      entry.writes ||= acc.writes;
      agents.set(res, entry);
    }
  });
  const shared = [...agents.values()].some((e) => e.writes && e.agents.size >= 2);
  const vacuous = (kind: PropertyKind, reason: string): PropertyStatus => ({ kind, status: 'vacuous', reason });
  const checked = (kind: PropertyKind): PropertyStatus => ({ kind, status: 'checked' });
  return [
    blocking ? checked('deadlock') : vacuous('deadlock', 'no operation can block: no wait (parity or token), get, put, bar.sync or wait_group'),
    shared ? checked('race') : vacuous('race', 'no shared slot is written by one agent (a role, or one TMA copy) and accessed by another'),
    expectations ? checked('fifo') : vacuous('fifo', 'no read carries an expected value to compare, as in lifted PTX'),
    sync ? checked('protocol') : vacuous('protocol', 'no synchronization operation: no aref, mbarrier, async-unit or named-barrier op'),
    vacuous('termination', 'every loop bound is fixed before the loop starts, so every run is finite'),
    refinement ? checked('refinement') : { kind: 'refinement', status: 'not applicable', reason: 'no aref program to refine: the program was not lowered from one' },
  ];
}

/** Nothing the checker decides can fail: the program has no synchronization to check. */
export function nothingChecked(statuses: readonly PropertyStatus[]): boolean {
  return statuses.every((p) => p.status !== 'checked');
}
