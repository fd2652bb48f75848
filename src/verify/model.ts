// A Program as a checker Model: the semantics' states and actions, the packed encoding,
// and the properties of DESIGN.md as invariants (race, fifo, protocol); deadlock and
// termination are decided by the explorer on the state graph.
import type { Invariant, Model } from '../../checker/model.ts';
import type { Program } from '../ir/program.ts';
import {
  blockedReasons,
  cloneState,
  compileMachine,
  enabledActions,
  executeAction,
  initialState,
  isFinished,
  settleAll,
  type Action,
  type Machine,
  type MachineOptions,
  type MachineState,
} from '../../semantics/index.ts';
import { StatePacker } from '../../semantics/pack.ts';
import { AmpleSets } from '../../semantics/ample.ts';

export const INVARIANT_KINDS = ['race', 'fifo', 'protocol'] as const;

export interface ProgramModel extends Model<MachineState, Action> {
  readonly machine: Machine;
}

export function programModel(program: Program, options: MachineOptions = {}): ProgramModel {
  const machine = compileMachine(program, options);
  return modelOfMachine(machine);
}

export function modelOfMachine(machine: Machine): ProgramModel {
  const packer = new StatePacker(machine);
  const ample = new AmpleSets(machine);
  const roles = machine.roles.length;
  const invariants: Invariant<MachineState>[] = INVARIANT_KINDS.map((kind) => ({
    kind,
    check: (s: MachineState) => (s.violation?.kind === kind ? s.violation.message : undefined),
  }));
  return {
    machine,
    initialStates: () => [settleAll(machine, initialState(machine))],
    actions: (s, out) => void enabledActions(machine, s, out),
    nextState(s, a) {
      const next = cloneState(s);
      executeAction(machine, next, a);
      return next;
    },
    invariants,
    // a state with a violation is an end (reported by its invariant), not a deadlock
    isFinal: (s) => s.violation !== undefined || isFinished(machine, s),
    explainDeadlock: (s) => blockedReasons(machine, s).join('\n'),
    encode: (s) => packer.encode(s),
    decode: (w) => packer.decode(w),
    formatAction: (a) => (a.kind === 'role' ? (machine.roles[a.role]?.name ?? `role${a.role}`) : a.kind === 'land' ? `TMA landing #${a.index}` : `${a.unit} retire (${machine.roles[a.role]?.name})`),
    // parties for weak fairness: each role, the TMA unit, and each role's async units
    actor: (a) => Math.min(31, a.kind === 'role' ? a.role : a.kind === 'land' ? roles : roles + 1 + a.role),
    actorName: (actor) => (actor < roles ? (machine.roles[actor]?.name ?? `role${actor}`) : actor === roles ? 'TMA unit' : `async unit of ${machine.roles[actor - roles - 1]?.name}`),
    // every action executes one operation or completes one async op: the sum strictly grows
    progress: (s) => s.asyncDone + s.roles.reduce((sum, r) => sum + r.steps, 0),
    ample: (s, actions) => ample.choose(s, actions),
  };
}
