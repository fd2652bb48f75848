// The reference interpreter: one random interleaving of a program, step by step, with the
// readable rules applied through immer (the checker uses the same rules on plain copies).
import { produce } from 'immer';
import { Chalk } from 'chalk';
import type { Program } from '../ir/program.ts';
import {
  actorName,
  blockedReasons,
  describeAction,
  describeChanges,
  enabledActions,
  executeAction,
  isFinished,
  start,
  type MachineState,
} from '../../semantics/index.ts';
import { seededRandom } from './random.ts';
import { maxOf } from '../util.ts';

export interface RunStep {
  readonly index: number;
  readonly actor: string;
  readonly action: string;
  readonly changes: readonly string[];
}

export type RunOutcome =
  | { readonly kind: 'finished' }
  | { readonly kind: 'stuck'; readonly reasons: readonly string[] }
  | { readonly kind: 'error'; readonly violation: { readonly kind: string; readonly message: string; readonly line?: number } }
  | { readonly kind: 'step-limit' };

export interface RunReport {
  readonly seed: number;
  readonly steps: readonly RunStep[];
  readonly outcome: RunOutcome;
}

export interface RunOptions {
  readonly seed: number;
  readonly literal?: boolean;
  readonly maxSteps?: number;
  readonly params?: ReadonlyMap<string, number>;
}

export function randomRun(program: Program, options: RunOptions): RunReport {
  const { machine, state } = start(program, { literal: options.literal ?? false, params: options.params ?? new Map() });
  const random = seededRandom(options.seed);
  const maxSteps = options.maxSteps ?? 100_000;
  const steps: RunStep[] = [];
  let s: MachineState = state;
  for (let i = 0; ; i++) {
    if (s.violation) {
      const v = s.violation;
      const violation = v.loc ? { kind: v.kind, message: v.message, line: v.loc.line } : { kind: v.kind, message: v.message };
      return { seed: options.seed, steps, outcome: { kind: 'error', violation } };
    }
    const actions = enabledActions(machine, s);
    if (actions.length === 0) {
      const outcome: RunOutcome = isFinished(machine, s) ? { kind: 'finished' } : { kind: 'stuck', reasons: blockedReasons(machine, s) };
      return { seed: options.seed, steps, outcome };
    }
    if (i >= maxSteps) return { seed: options.seed, steps, outcome: { kind: 'step-limit' } };
    const a = actions[Math.floor(random() * actions.length)] ?? actions[0];
    if (!a) throw new Error('no action');
    const before = s;
    const description = describeAction(machine, before, a);
    const actor = actorName(machine, before, a);
    s = produce(before, (draft) => executeAction(machine, draft, a));
    steps.push({ index: i + 1, actor, action: description, changes: describeChanges(machine, before, s) });
  }
}

/** The run as text: one line per step, then how it ended. */
export function formatRunText(report: RunReport, opts: { color: boolean }): string {
  const c = new Chalk({ level: opts.color ? 1 : 0 });
  const width = maxOf(report.steps.map((s) => s.actor.length), 8);
  const lines = report.steps.map((s) => {
    const changes = s.changes.length > 0 ? `  ${c.dim('│')} ${s.changes.join('; ')}` : '';
    return `${c.dim(String(s.index).padStart(4))}  ${c.cyan(s.actor.padEnd(width))}  ${s.action}${changes}`;
  });
  const o = report.outcome;
  if (o.kind === 'finished') lines.push(c.green(`finished: every role completed (${report.steps.length} steps, seed ${report.seed})`));
  else if (o.kind === 'stuck') lines.push(c.red(`stuck after ${report.steps.length} steps (seed ${report.seed}):`), ...o.reasons.map((r) => `  ${r}`));
  else if (o.kind === 'error') lines.push(c.red(`${o.violation.kind} error after ${report.steps.length} steps (seed ${report.seed}): ${o.violation.message}${o.violation.line ? ` (line ${o.violation.line})` : ''}`));
  else lines.push(c.yellow(`stopped at the step limit (${report.steps.length} steps, seed ${report.seed})`));
  return lines.join('\n') + '\n';
}
