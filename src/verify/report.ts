// The verification report: the stable JSON shape of `arefcheck verify --json` (issue 3),
// built from a checker result, with traces described in the semantics' words.
import type { CheckResult, CheckStats, TraceStep } from '../../checker/index.ts';
import type { Loc } from '../ir/program.ts';
import { propertyStatuses, type PropertyStatus } from './properties.ts';
import { actorName, describeAction, describeChanges, currentOp, type Action, type Machine, type MachineState } from '../../semantics/index.ts';
import { explainUnread, unreadBuffers } from './unread.ts';

export interface TraceEntry {
  readonly step: number;
  readonly actor: string;
  readonly action: string;
  readonly changes: readonly string[];
  readonly loc?: Loc;
}

export interface ViolationReport {
  readonly kind: string;
  readonly message: string;
  readonly loc?: Loc;
  readonly trace: readonly TraceEntry[];
  /** position of each step's action among the enabled actions of the state before it (replay) */
  readonly actionIndices: readonly number[];
  /** for termination: the step where the repeating cycle starts */
  readonly loopStart?: number;
  /** for a deadlock: where each role that has not finished is stuck (its current operation) */
  readonly blockedAt?: readonly Loc[];
  /** the parameter values the trace was found at, when they differ from the program's (`K=any`) */
  readonly params?: Readonly<Record<string, number>>;
}

export interface Report {
  readonly verdict: 'verified' | 'violation' | 'inconclusive';
  readonly level: string;
  readonly violations: readonly ViolationReport[];
  readonly stats: CheckStats;
  readonly limit?: { readonly reason: string; readonly message: string };
  readonly notes?: readonly string[];
  /**
   * What the verdict covers when it is less than the program for every input: lifted PTX checked
   * at the launch values of a bounded sweep (`for 3 launch assignments (bounded sweep)`).
   */
  readonly scope?: string;
  /** Each property: checked, vacuous (cannot fail here, and why) or not applicable. */
  readonly properties: readonly PropertyStatus[];
  /** for `--level both`: the report of each level */
  readonly levels?: readonly Report[];
}

export function describeTrace(machine: Machine, trace: readonly TraceStep<MachineState, Action>[]): TraceEntry[] {
  const out: TraceEntry[] = [];
  // each state is read once (reading a step's state decodes it)
  let before = trace[0]?.state;
  for (let i = 1; i < trace.length; i++) {
    const step = trace[i];
    const after = step?.state;
    if (before && after && step?.action) {
      const a = step.action;
      const loc = a.kind === 'role' ? currentOp(machine, before, a.role)?.loc : undefined;
      const entry = {
        step: i,
        actor: actorName(machine, before, a),
        action: describeAction(machine, before, a),
        changes: describeChanges(machine, before, after),
      };
      out.push(loc ? { ...entry, loc } : entry);
    }
    before = after;
  }
  return out;
}

/** The operations the unfinished roles are stuck at. */
function stuckAt(machine: Machine, s: MachineState): Loc[] {
  const out: Loc[] = [];
  for (let r = 0; r < machine.roles.length; r++) {
    const loc = currentOp(machine, s, r)?.loc;
    if (loc) out.push(loc);
  }
  return out;
}

export function buildReport(machine: Machine, level: string, result: CheckResult<MachineState, Action>, refinement = false): Report {
  const unread = unreadBuffers(machine.program);
  const violations = result.violations.map((v): ViolationReport => {
    const last = v.trace[v.trace.length - 1]?.state;
    const blockedAt = v.kind === 'deadlock' && last ? stuckAt(machine, last) : [];
    const trace = describeTrace(machine, v.trace);
    // where to point: the violating operation; for a deadlock the first blocked one; for a
    // termination cycle the first operation of the cycle
    const loc =
      last?.violation?.loc ??
      blockedAt[0] ??
      (v.loopStart !== undefined ? trace.slice(v.loopStart).find((t) => t.loc)?.loc : undefined);
    const base = {
      kind: v.kind,
      message: v.kind === 'race' || v.kind === 'protocol' ? explainUnread(v.message, unread) : v.message,
      trace,
      ...(blockedAt.length > 0 ? { blockedAt } : {}),
      actionIndices: v.trace.slice(1).map((t) => t.actionIndex ?? 0),
      ...(v.loopStart !== undefined ? { loopStart: v.loopStart } : {}),
    };
    return loc ? { ...base, loc } : base;
  });
  return {
    verdict: result.verdict,
    level,
    violations,
    stats: result.stats,
    ...(result.limit ? { limit: result.limit } : {}),
    ...(result.notes ? { notes: result.notes } : {}),
    properties: propertyStatuses(machine, refinement),
  };
}
