// Replay: re-run a counterexample through the reference semantics (the immer interpreter's way
// of stepping, not the checker's packed states) and judge whether its end is the violation it
// claims. A trace recorded at the mbarrier level of an aref program runs on the lowered program
// with the refinement monitor of refinement.ts beside it, as `verify` checked it.
import { Immer } from 'immer';

// no auto-freeze: replayed states are never shared
const { produce } = new Immer({ autoFreeze: false });

/**
 * Traces up to this many steps replay through immer, the interpreter's way of stepping, and a
 * lowered trace is compared step by step with the checker's copy-and-execute path; longer ones
 * (a million steps) take the copy-and-execute path alone, three times faster, same rules.
 */
const IMMER_STEPS = 100_000;
import { InputError } from '../diag.ts';
import { programLevel, type Level, type Program } from '../ir/program.ts';
import { lowerProgram } from '../lower.ts';
import {
  actorName,
  blockedReasons,
  cloneState,
  currentOp,
  describeAction,
  describeChanges,
  enabledActions,
  executeAction,
  isFinished,
  start,
  type Action,
  type MachineState,
} from '../../semantics/index.ts';
import type { Model } from '../../checker/model.ts';
import { modelOfMachine } from './model.ts';
import { refinementModel, type RefinementState } from './refinement.ts';
import type { TraceEntry } from './report.ts';
import type { TraceFile } from './trace-json.ts';

export interface ReplayResult {
  /** The level the trace ran at. */
  readonly level: Level;
  /** True when the program was lowered first (an mbarrier trace of an aref program). */
  readonly lowered: boolean;
  readonly steps: readonly TraceEntry[];
  /** What the end of the trace shows: a violation kind, or `finished` / `running`. */
  readonly reached: string;
  readonly message: string;
  /** True when the trace reaches a violation of the recorded kind, at its last step. */
  readonly reproduced: boolean;
}

const INVARIANT_KINDS = new Set(['race', 'fifo', 'protocol', 'refinement']);

/**
 * Re-run `trace` on `program` (its params already applied). Throws InputError when the trace does
 * not fit the program: a level it cannot run at, or a step asking for an action that is not enabled.
 */
export function replayTrace(program: Program, trace: TraceFile, level: Level = trace.level): ReplayResult {
  const own = programLevel(program);
  if (level === 'aref' && own === 'mbarrier') throw new InputError('the trace is at the aref level but the program is at the mbarrier level');
  const lowered = level === 'mbarrier' && own === 'aref';
  const { machine, state } = start(lowered ? lowerProgram(program) : program, { literal: trace.literal });
  const inner = modelOfMachine(machine);
  // the same product the checker explored for a lowered program: states with the monitor's part
  const monitor: Model<RefinementState, Action> | undefined = lowered ? refinementModel(program, machine) : undefined;
  let product: RefinementState | undefined = monitor?.initialStates()[0];

  // state keys only for a lasso (a termination trace): a million-step trace must not keep a million keys
  const lasso = trace.kind === 'termination';
  const keyOf = (s: MachineState): string => (lasso ? (product ? monitor!.encode(product) : inner.encode(s)).join(',') : '');
  const keys: string[] = [keyOf(state)];
  const enabledActors: number[] = [];
  const actingActors: number[] = [];
  const steps: TraceEntry[] = [];
  let s = state;
  const actorOf = (a: Action): number => inner.actor?.(a) ?? 0;
  const actorsOf = (actions: readonly Action[]): number => actions.reduce((bits, a) => bits | (1 << actorOf(a)), 0);
  const immer = trace.actionIndices.length <= IMMER_STEPS;
  const apply = (before: MachineState, a: Action): MachineState => {
    if (immer) return produce(before, (draft) => executeAction(machine, draft, a));
    const next = cloneState(before);
    executeAction(machine, next, a);
    return next;
  };

  for (const [i, index] of trace.actionIndices.entries()) {
    const early = violationIn(s, product);
    if (early) {
      return { level, lowered, steps, reached: early.kind, message: `${early.kind} after step ${i}, before the end of the trace (${trace.actionIndices.length} steps): ${early.message}`, reproduced: false };
    }
    const actions = enabledActions(machine, s);
    const a = actions[index];
    if (!a) {
      const none = actions.length === 0 ? (isFinished(machine, s) ? 'every role has finished' : 'nothing can move') : `only actions #0..#${actions.length - 1} are enabled`;
      throw new InputError(`the trace does not fit the program: step ${i + 1} takes action #${index} but ${none}`);
    }
    enabledActors.push(actorsOf(actions));
    actingActors.push(1 << actorOf(a));
    const before = s;
    const loc = a.kind === 'role' ? currentOp(machine, before, a.role)?.loc : undefined;
    const entry = { step: i + 1, actor: actorName(machine, before, a), action: describeAction(machine, before, a) };
    s = apply(before, a);
    if (product && monitor) {
      product = monitor.nextState(product, a);
      // the checker's copy-and-execute path and the interpreter's immer path must agree
      if (immer && inner.encode(product.inner).join(',') !== inner.encode(s).join(',')) {
        throw new Error(`replay: the checker's model and the reference interpreter disagree after step ${i + 1}`);
      }
    }
    steps.push({ ...entry, changes: describeChanges(machine, before, s), ...(loc ? { loc } : {}) });
    keys.push(keyOf(s));
  }

  const n = trace.actionIndices.length;
  const end = (reached: string, message: string): ReplayResult => ({ level, lowered, steps, reached, message, reproduced: reached === trace.kind });
  const found = violationIn(s, product);
  if (found) return end(found.kind, found.message);
  if (trace.kind === 'termination') return judgeLasso(trace.loopStart, keys, enabledActors, actingActors, inner.actorName, { level, lowered, steps });
  if (enabledActions(machine, s).length === 0) {
    if (isFinished(machine, s)) return end('finished', `every role finished after ${n} steps`);
    return end('deadlock', blockedReasons(machine, s).join('\n'));
  }
  return end('running', `after ${n} steps the program can still move (${enabledActions(machine, s).length} actions enabled)`);
}

function violationIn(s: MachineState, product: RefinementState | undefined): { kind: string; message: string } | undefined {
  if (product?.bad !== undefined) return { kind: 'refinement', message: product.bad };
  if (s.violation && INVARIANT_KINDS.has(s.violation.kind)) return { kind: s.violation.kind, message: s.violation.message };
  return undefined;
}

/**
 * A termination trace is a lasso: the state after the last step equals the state at `loopStart`,
 * and the cycle is fair: every party enabled in all of its states acts in it (weak fairness).
 */
function judgeLasso(
  loopStart: number | undefined,
  keys: readonly string[],
  enabledActors: readonly number[],
  actingActors: readonly number[],
  actorName: ((actor: number) => string) | undefined,
  base: Pick<ReplayResult, 'level' | 'lowered' | 'steps'>,
): ReplayResult {
  const last = keys.length - 1;
  const no = (message: string): ReplayResult => ({ ...base, reached: 'running', message, reproduced: false });
  if (loopStart === undefined) return no('a termination trace needs "loopStart": the state its cycle returns to');
  if (loopStart >= last) return no(`the cycle starting at state ${loopStart} has no steps`);
  if (keys[last] !== keys[loopStart]) return no(`the state after step ${last} is not the state at the start of the cycle (state ${loopStart}): no lasso`);
  let always = ~0;
  let acting = 0;
  for (let i = loopStart; i < last; i++) {
    always &= enabledActors[i] ?? 0;
    acting |= actingActors[i] ?? 0;
  }
  const starved = always & ~acting;
  if (starved !== 0) {
    const names: string[] = [];
    for (let b = 0; b < 32; b++) if ((starved & (1 << b)) !== 0) names.push(actorName?.(b) ?? `party ${b}`);
    return no(`the cycle is not fair: ${names.join(', ')} stays enabled in it but never acts`);
  }
  return { ...base, reached: 'termination', message: `steps ${loopStart + 1}..${last} return to the state after step ${loopStart} and can repeat forever under weak fairness`, reproduced: true };
}
