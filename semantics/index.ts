// The executable semantics of arefs and of the PTX mbarrier/TMA/wgmma machinery.
export { compileMachine, NO_VALUE, type Machine, type MachineOptions } from './machine.ts';
export { initialState, cloneState, type MachineState, type Violation } from './state.ts';
export {
  enabledActions,
  executeAction,
  settleAll,
  isFinished,
  blockedReasons,
  roleBlockedReason,
  currentOp,
  SettleLimitError,
  type Action,
} from './step.ts';
export { describeAction, describeChanges, describeOp, actorName, barrierShort, flightSlots } from './describe.ts';

import { compileMachine, type Machine, type MachineOptions } from './machine.ts';
import { initialState, type MachineState } from './state.ts';
import { settleAll } from './step.ts';
import type { Program } from '../src/ir/program.ts';

/** Compile a program and build its initial state (every role settled at its first operation). */
export function start(program: Program, options: MachineOptions = {}): { machine: Machine; state: MachineState } {
  const machine = compileMachine(program, options);
  return { machine, state: settleAll(machine, initialState(machine)) };
}
