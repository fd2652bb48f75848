// What each property of DESIGN.md means for one program: checked, vacuous (it cannot fail on
// this input, and why) or not applicable. A verdict is only as strong as the properties it
// checked: a kernel with no synchronization at all verifies nothing, and the report says so.
import type { Machine } from '../../semantics/index.ts';
import { OP_FAMILY, type Op } from '../ir/program.ts';

export const PROPERTY_KINDS = ['deadlock', 'race', 'fifo', 'protocol', 'termination', 'refinement'] as const;
export type PropertyKind = (typeof PROPERTY_KINDS)[number];

export interface PropertyStatus {
  readonly kind: PropertyKind;
  readonly status: 'checked' | 'vacuous' | 'not applicable';
  /** Why a property is vacuous or not applicable. */
  readonly reason?: string;
}

const BLOCKING = new Set<Op['kind']>(['wait', 'get', 'put', 'bar.sync', 'wgmma.wait', 'bulk.wait']);
const SYNC_FAMILIES: ReadonlySet<string> = new Set(['aref', 'mbarrier', 'async', 'named']);

/** Who touches a resource's slots: the issuing role, or an asynchronous unit acting for it. */
function accessor(op: Op, role: number): { agent: string; writes: boolean } | undefined {
  switch (op.kind) {
    case 'put':
    case 'write':
      return { agent: `r${role}`, writes: true };
    case 'get':
    case 'read':
      return { agent: `r${role}`, writes: false };
    case 'tma.load':
      return { agent: `tma${role}`, writes: true };
    case 'wgmma.issue':
      return { agent: `mma${role}`, writes: false };
    case 'tma.store':
      return { agent: `store${role}`, writes: false };
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
    for (const instr of role.code) {
      if (instr.kind !== 'op') continue;
      const op = instr.op;
      if (BLOCKING.has(op.kind)) blocking = true;
      if (SYNC_FAMILIES.has(OP_FAMILY[op.kind])) sync = true;
      if ((op.kind === 'get' || op.kind === 'read' || op.kind === 'wgmma.issue') && op.expect !== undefined) expectations = true;
      const acc = accessor(op, r);
      const res = instr.refs[0]?.res.name;
      if (!acc || res === undefined) continue;
      const entry = agents.get(res) ?? { agents: new Set<string>(), writes: false };
      entry.agents.add(acc.agent);
      entry.writes ||= acc.writes;
      agents.set(res, entry);
    }
  });
  const shared = [...agents.values()].some((e) => e.writes && e.agents.size >= 2);
  const vacuous = (kind: PropertyKind, reason: string): PropertyStatus => ({ kind, status: 'vacuous', reason });
  const checked = (kind: PropertyKind): PropertyStatus => ({ kind, status: 'checked' });
  return [
    blocking ? checked('deadlock') : vacuous('deadlock', 'no operation can block: no wait, get, put, bar.sync or wait_group'),
    shared ? checked('race') : vacuous('race', 'no shared slot is written by one agent and accessed by another'),
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
