// A stepping session on the reference semantics: the learner (or a script, or a seeded random
// scheduler, or a counterexample file) picks one enabled action at a time; every step is kept
// with the state before and after it, so it can be undone, printed, or drawn.
import { produce } from 'immer';
import type { Loc } from '../ir/program.ts';
import {
  actorName,
  blockedReasons,
  currentOp,
  describeAction,
  describeChanges,
  enabledActions,
  executeAction,
  isFinished,
  type Action,
  type Machine,
  type MachineState,
} from '../../semantics/index.ts';

export interface StepRecord {
  /** 1-based, as in `arefcheck run` */
  readonly index: number;
  readonly action: Action;
  readonly actor: string;
  /** describeAction in the state before the step */
  readonly text: string;
  readonly changes: readonly string[];
  /** the source position of a role's operation (async units have none) */
  readonly loc?: Loc;
  readonly before: MachineState;
  readonly after: MachineState;
}

/** How a run ended (or where it stands, when it can still move). */
export type Ending =
  | { readonly kind: 'finished' }
  | { readonly kind: 'stuck'; readonly reasons: readonly string[] }
  | { readonly kind: 'violation'; readonly violation: string; readonly message: string; readonly line?: number }
  /** a termination counterexample: the steps after `loopStart` repeat forever */
  | { readonly kind: 'cycle'; readonly loopStart: number; readonly message: string }
  /** stopped while some action is still enabled */
  | { readonly kind: 'open'; readonly message: string };

/** The ending of state `s`, or undefined while some action is enabled and no violation occurred. */
export function endingOf(m: Machine, s: MachineState): Ending | undefined {
  const v = s.violation;
  if (v) return v.loc ? { kind: 'violation', violation: v.kind, message: v.message, line: v.loc.line } : { kind: 'violation', violation: v.kind, message: v.message };
  if (enabledActions(m, s).length > 0) return undefined;
  return isFinished(m, s) ? { kind: 'finished' } : { kind: 'stuck', reasons: blockedReasons(m, s) };
}

/** Apply `a` to `before` the way the interpreter does (immer), and describe the step. */
export function takeStep(m: Machine, before: MachineState, a: Action, index: number): StepRecord {
  const loc = a.kind === 'role' ? currentOp(m, before, a.role)?.loc : undefined;
  const actor = actorName(m, before, a);
  const text = describeAction(m, before, a);
  const after = produce(before, (draft) => executeAction(m, draft, a));
  const record = { index, action: a, actor, text, changes: describeChanges(m, before, after), before, after };
  return loc ? { ...record, loc } : record;
}

export class Session {
  readonly machine: Machine;
  private readonly initial: MachineState;
  private readonly taken: StepRecord[] = [];

  constructor(machine: Machine, initial: MachineState) {
    this.machine = machine;
    this.initial = initial;
  }

  get state(): MachineState {
    return this.taken[this.taken.length - 1]?.after ?? this.initial;
  }

  get steps(): readonly StepRecord[] {
    return this.taken;
  }

  enabled(): Action[] {
    return enabledActions(this.machine, this.state);
  }

  ending(): Ending | undefined {
    return endingOf(this.machine, this.state);
  }

  /** Take the enabled action at position `choice` (0-based); undefined if there is none. */
  step(choice: number): StepRecord | undefined {
    const a = this.enabled()[choice];
    if (!a) return undefined;
    const record = takeStep(this.machine, this.state, a, this.taken.length + 1);
    this.taken.push(record);
    return record;
  }

  /** Forget the last step; false when there is none. */
  undo(): boolean {
    return this.taken.pop() !== undefined;
  }
}
