// A counterexample found on packed words, shown as the run it is. The packed model stores barrier
// phases canonical (StatePacker.canonicalPhases: 2 + parity past phase 1), so decoded states would
// show phase 2 or 3 where the run is in phase 40, and a message made on such a state would say so
// too. The report therefore replays the trace's actions on readable states from the initial
// state: each replayed state, packed and made canonical, must be the stored one (a guard on the
// canonical form), and the violation's message is made again on the replayed last state.
import { lazyStep, type CheckResult, type TraceStep, type Violation } from '../../checker/index.ts';
import { blockedReasons, cloneState, executeAction, initialState, settleAll, type Action, type Machine, type MachineState } from '../../semantics/index.ts';
import type { StatePacker } from '../../semantics/pack.ts';

/** Replayed states are kept every this many steps; a state between two is replayed from the one before it. */
const CHECKPOINT = 256;

export function rawResult(machine: Machine, packer: StatePacker, result: CheckResult<Int32Array, Action>): CheckResult<MachineState, Action> {
  return { ...result, violations: result.violations.map((v) => rawViolation(machine, packer, v)) };
}

function rawViolation(machine: Machine, packer: StatePacker, v: Violation<Int32Array, Action>): Violation<MachineState, Action> {
  const steps = v.trace;
  const checkpoints: MachineState[] = [];
  let state = settleAll(machine, initialState(machine));
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    if (i > 0) {
      if (step.action === undefined) throw new Error(`trace: step ${i} has no action`);
      state = cloneState(state);
      executeAction(machine, state, step.action);
    }
    if (!sameWords(packer.canonicalPhases(packer.encode(state)), step.state, packer.layout.violation + 1)) {
      throw new Error(`trace: replaying step ${i} on readable states does not reach the stored state (the canonical phases lost something the rules read)`);
    }
    if (i % CHECKPOINT === 0) checkpoints.push(state);
  }
  const last = state;
  // states are read in order (the report describes each step once): step on from the last one read
  let readAt = -1;
  let read: MachineState = last;
  const stateAt = (i: number): MachineState => {
    if (i === steps.length - 1) return last;
    if (i !== readAt + 1 || readAt < 0) {
      readAt = Math.floor(i / CHECKPOINT) * CHECKPOINT;
      read = checkpoints[readAt / CHECKPOINT]!;
    }
    while (readAt < i) {
      read = cloneState(read);
      executeAction(machine, read, steps[++readAt]!.action!);
    }
    return read;
  };
  const trace: TraceStep<MachineState, Action>[] = steps.map((step, i) => {
    const { state: _packed, ...fields } = step;
    return lazyStep(fields, () => stateAt(i));
  });
  return { ...v, message: rawMessage(machine, v, last), trace };
}

/** The violation's message made on the replayed last state (its phases are the run's). */
function rawMessage(machine: Machine, v: Violation<Int32Array, Action>, last: MachineState): string {
  if (v.kind === 'deadlock') return blockedReasons(machine, last).join('\n');
  if (last.violation && last.violation.kind === v.kind) return last.violation.message;
  return v.message;
}

/** Equal words but at `message`: a violation's interned message, whose text names the run's phases. */
function sameWords(a: Int32Array, b: Int32Array, message: number): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && i !== message) return false;
  return true;
}
