// The stepper's conversation: show the enabled actions, read a command, take the step, print
// what changed; at the end, say how the run ended. Input comes one command at a time from a
// source that is either interactive (a person at a terminal: mistakes are answered and asked
// again) or not (a --script, or piped stdin: a mistake is bad input, exit 2, so a script that
// no longer fits its program fails loudly).
import type { ChalkInstance } from 'chalk';
import { InputError } from '../diag.ts';
import { EXIT } from '../exit-codes.ts';
import { seededRandom } from '../interp/random.ts';
import { describeEnding, stepCount } from './ending-text.ts';
import { actorWidth, formatEnabled, formatStatePanel } from './panel.ts';
import type { Ending, Session, StepRecord } from './session.ts';

export interface Command {
  readonly text: string;
  /** false: from a script or a pipe (echoed into the transcript; mistakes are errors) */
  readonly interactive: boolean;
}

export interface CommandSource {
  /** The next command, or undefined when the input has ended. */
  next(prompt: string): Promise<Command | undefined>;
}

export interface StepperOptions {
  readonly seed: number;
  readonly c: ChalkInstance;
  readonly sourceLines?: readonly string[];
  /** do not list the enabled actions after every step (`l` lists them) */
  readonly brief?: boolean;
  /** a person is at a terminal: say what can be done once the run has ended */
  readonly hints?: boolean;
  /** the seed was drawn, not given: say it the first time `r` is used, so the run can be repeated */
  readonly announceSeed?: boolean;
}

/** Exit code `step` returns when the input stops (or `q`) before the run has ended. */
export const EXIT_QUIT = EXIT.inconclusive;

export const STEPPER_HELP = `commands:
  N   take enabled action N
  r   take a random enabled action (the scheduler of 'arefcheck run', seeded by --seed)
  u   undo the last step
  s   show the whole state
  l   list the enabled actions (and the roles that wait, with why)
  q   quit
  ?   this help`;

export function endingExitCode(ending: Ending): number {
  switch (ending.kind) {
    case 'finished':
      return EXIT.verified;
    case 'stuck':
    case 'violation':
    case 'cycle':
      return EXIT.violation;
    case 'open':
      return EXIT_QUIT;
  }
}

/** "   3  consumer  get A[0] expect 0  │ σ(A[0]) = ⟨0, 0, 0⟩", as `arefcheck run` prints a step. */
export function formatStep(step: StepRecord, width: number, c: ChalkInstance): string {
  const changes = step.changes.length > 0 ? `  ${c.dim('│')} ${step.changes.join('; ')}` : '';
  return `${c.dim(String(step.index).padStart(4))}  ${c.cyan(step.actor.padEnd(width))}  ${step.text}${changes}`;
}

export function formatEnding(ending: Ending, steps: number, c: ChalkInstance): string[] {
  const t = describeEnding(ending, steps);
  const paint = t.bad ? c.red : ending.kind === 'finished' ? c.green : c.yellow;
  return [paint(t.headline), ...t.details.map((d) => `  ${d}`)];
}

/** Runs the conversation until the input ends or `q`; returns the exit code. */
export async function runStepper(session: Session, input: CommandSource, write: (text: string) => void, options: StepperOptions): Promise<number> {
  const { c } = options;
  const m = session.machine;
  const width = actorWidth(m);
  const random = seededRandom(options.seed);
  let seedAnnounced = !options.announceSeed;
  const out = (lines: readonly string[]): void => write(lines.map((l) => `${l}\n`).join(''));
  const panel = (): void => out(formatStatePanel(m, session.state, session.steps.length, options.sourceLines ? { c, sourceLines: options.sourceLines } : { c }));
  const list = (): void => {
    const ending = session.ending();
    if (ending) out([...formatEnding(ending, session.steps.length, c), ...(options.hints ? [c.dim('the run has ended: u undoes the last step, q quits')] : [])]);
    else out(formatEnabled(m, session.state, session.enabled(), c));
  };
  const take = (choice: number): void => {
    const step = session.step(choice);
    if (step) out([formatStep(step, width, c)]);
    if (!options.brief || session.ending()) list();
  };

  panel();
  list();
  for (;;) {
    const cmd = await input.next('> ');
    const ending = session.ending();
    if (!cmd) {
      if (ending) return endingExitCode(ending);
      out([c.yellow(`stopped before the end: the input ended after ${stepCount(session.steps.length)}`)]);
      return EXIT_QUIT;
    }
    if (!cmd.interactive) write(`> ${cmd.text}\n`);
    // a mistake: asked again at a terminal, bad input in a script
    const wrong = (message: string): void => {
      if (!cmd.interactive) throw new InputError(`step ${session.steps.length + 1}: ${message}`);
      out([c.yellow(message)]);
    };
    const text = cmd.text.trim().toLowerCase();
    if (text === '') continue;
    if (/^\d+$/.test(text)) {
      const n = Number(text);
      const enabled = session.enabled().length;
      if (ending) wrong(`'${text}': the run has ended, nothing is enabled (u undoes the last step)`);
      else if (n < 1 || n > enabled) wrong(`'${text}' is not an enabled action: choose 1..${enabled}`);
      else take(n - 1);
    } else if (text === 'r') {
      if (ending) wrong(`'r': the run has ended, nothing is enabled (u undoes the last step)`);
      else {
        if (!seedAnnounced) out([c.dim(`r: random choices with seed ${options.seed} (--seed ${options.seed} repeats them)`)]);
        seedAnnounced = true;
        take(Math.floor(random() * session.enabled().length));
      }
    } else if (text === 'u') {
      const last = session.steps[session.steps.length - 1];
      if (!session.undo() || !last) out([c.yellow('nothing to undo')]);
      else {
        out([c.dim(`undid step ${last.index}: ${last.actor} ${last.text}`)]);
        if (!options.brief) list();
      }
    } else if (text === 's') {
      panel();
    } else if (text === 'l') {
      list();
    } else if (text === 'q') {
      if (ending) return endingExitCode(ending);
      out([c.yellow(`quit after ${stepCount(session.steps.length)}, before the run ended`)]);
      return EXIT_QUIT;
    } else if (text === '?' || text === 'h' || text === 'help') {
      out([STEPPER_HELP]);
    } else {
      wrong(`unknown command '${cmd.text.trim()}' (? lists the commands)`);
    }
  }
}

/** Commands from a script: "1 3 2 u r s" (spaces or commas between them). */
export function scriptSource(script: string): CommandSource {
  const tokens = script.split(/[\s,]+/).filter((t) => t !== '');
  let i = 0;
  return {
    next: async () => {
      const text = tokens[i++];
      return text === undefined ? undefined : { text, interactive: false };
    },
  };
}

/** Commands from lines (a terminal or a pipe); a line may hold several commands. */
export function lineSource(readLine: (prompt: string) => Promise<string | undefined>, interactive: boolean): CommandSource {
  const queue: string[] = [];
  return {
    next: async (prompt) => {
      while (queue.length === 0) {
        const line = await readLine(prompt);
        if (line === undefined) return undefined;
        // an empty line just asks again
        queue.push(...line.split(/[\s,]+/).filter((t) => t !== ''));
      }
      const text = queue.shift();
      return text === undefined ? undefined : { text, interactive };
    },
  };
}

/** The first source until it ends, then the second (a script, then the terminal). */
export function chainSources(first: CommandSource, second: CommandSource): CommandSource {
  let firstDone = false;
  return {
    next: async (prompt) => {
      if (!firstDone) {
        const cmd = await first.next(prompt);
        if (cmd) return cmd;
        firstDone = true;
      }
      return second.next(prompt);
    },
  };
}
