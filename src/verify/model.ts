// A Program as a checker Model: the semantics' states and actions, the packed encoding,
// and the properties of DESIGN.md as invariants (race, fifo, protocol); deadlock and
// termination are decided by the explorer on the state graph. Two models of one machine:
// `modelOfMachine` on readable states (traces, every-K, refinement, the stepper) and
// `packedModelOfMachine` on packed words (the explorer's hot loop, semantics/packed.ts).
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
import { PackedRules } from '../../semantics/packed.ts';
import { AmpleSets } from '../../semantics/ample.ts';
import { roleSymmetry, type RoleSymmetry } from '../../semantics/symmetry.ts';

export const INVARIANT_KINDS = ['race', 'fifo', 'protocol'] as const;

export interface ProgramModel extends Model<MachineState, Action> {
  readonly machine: Machine;
}

export interface PackedProgramModel extends Model<Int32Array, Action> {
  readonly machine: Machine;
  readonly packer: StatePacker;
  /** the interchangeable roles, when some are (the explorer uses `canonical` under CheckOptions.symmetry) */
  readonly symmetry?: RoleSymmetry;
}

export function programModel(program: Program, options: MachineOptions = {}): ProgramModel {
  const machine = compileMachine(program, options);
  return modelOfMachine(machine);
}

/** What both models say the same way: action names, the parties of weak fairness. */
type Naming = Pick<Model<unknown, Action>, 'formatAction' | 'actor' | 'actorName'>;

function naming(machine: Machine): Required<Naming> {
  const roles = machine.roles.length;
  return {
    formatAction: (a) => (a.kind === 'role' ? (machine.roles[a.role]?.name ?? `role${a.role}`) : a.kind === 'land' ? `TMA landing #${a.index}` : `${a.unit} retire (${machine.roles[a.role]?.name})`),
    // parties for weak fairness: each role, the TMA unit, and each role's async units
    actor: (a) => Math.min(31, a.kind === 'role' ? a.role : a.kind === 'land' ? roles : roles + 1 + a.role),
    actorName: (actor) => (actor < roles ? (machine.roles[actor]?.name ?? `role${actor}`) : actor === roles ? 'TMA unit' : `async unit of ${machine.roles[actor - roles - 1]?.name}`),
  };
}

/** The machine's ample sets, built on first use: unrolling the roles costs time a run without reduction does not spend. */
function lazyAmple(machine: Machine): () => AmpleSets {
  let sets: AmpleSets | undefined;
  return () => (sets ??= new AmpleSets(machine));
}

export function modelOfMachine(machine: Machine): ProgramModel {
  const packer = new StatePacker(machine);
  const ample = lazyAmple(machine);
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
    blocks: packer.layout.collapseBlocks(),
    ...naming(machine),
    // every action executes one operation or completes one async op: the sum strictly grows
    progress: (s) => s.asyncDone + s.roles.reduce((sum, r) => sum + r.steps, 0),
    ample: (s, actions) => ample().choose(s, actions),
  };
}

/**
 * The same model on packed words: its states are the words the explorer stores, successors come
 * from semantics/packed.ts, and a transition that file leaves to the readable rules (a violation,
 * the end checks, a rare op) runs them on the decoded state. Barrier phases are stored canonical
 * (2 + parity past phase 1), so a decoded state's phases are not the run's: replay a trace's
 * actions on readable states (`rawResult`, src/verify/raw-trace.ts) to show it.
 */
export function packedModelOfMachine(machine: Machine): PackedProgramModel {
  const packer = new StatePacker(machine);
  const rules = new PackedRules(machine, packer.layout);
  const ample = lazyAmple(machine);
  const at = packer.layout.violation;
  const invariants: Invariant<Int32Array>[] = INVARIANT_KINDS.map((kind, i) => ({
    kind,
    check: (w: Int32Array) => (w[at] === i + 1 ? packer.violationOf(i + 1, w[at + 1] ?? 0, w[at + 2] ?? 0).message : undefined),
  }));
  const symmetry = roleSymmetry(machine, packer);
  return {
    machine,
    packer,
    ...(symmetry ? { symmetry, canonical: (w: Int32Array) => symmetry.canonical(w), sameOrbit: (a: Int32Array, b: Int32Array) => symmetry.sameOrbit(a, b) } : {}),
    // phases are stored canonical (packer.canonicalPhases): the rules read them only by parity and distance
    initialStates: () => [packer.canonicalPhases(packer.encode(settleAll(machine, initialState(machine))))],
    actions: (w, out) => rules.enabled(w, out),
    successor(w, a) {
      const next = rules.step(w, a);
      if (next) return packer.canonicalPhases(next);
      const s = packer.decode(w);
      executeAction(machine, s, a);
      return packer.canonicalPhases(packer.encode(s));
    },
    nextState(w, a) {
      return this.successor!(w, a).slice();
    },
    invariants,
    isFinal: (w) => w[at] !== 0 || rules.isFinished(w),
    explainDeadlock: (w) => blockedReasons(machine, packer.decode(w)).join('\n'),
    // the words are the state: the explorer stores a copy, and never writes to what it reads
    encode: (w) => w,
    decode: (w) => w,
    blocks: packer.layout.collapseBlocks(),
    ...naming(machine),
    progress: (w) => rules.progress(w),
    // one action, or a violation, is never reduced (choose says so): skip decoding the state for it
    ample: (w, actions) => (actions.length <= 1 || w[at] !== 0 ? undefined : ample().choose(packer.decode(w), actions)),
  };
}
