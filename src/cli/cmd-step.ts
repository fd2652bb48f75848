// `arefcheck step`: walk a program through the reference semantics one chosen action at a time
// (for people learning the rules); scripted with --script or piped stdin.
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { randomInt } from 'node:crypto';
import chalk, { Chalk } from 'chalk';
import { programLevel } from '../ir/program.ts';
import { loadProgramFile } from '../lang/load.ts';
import { lineReader } from '../learn/line-reader.ts';
import { Session } from '../learn/session.ts';
import { chainSources, lineSource, runStepper, scriptSource, STEPPER_HELP, type CommandSource } from '../learn/stepper.ts';
import { start } from '../../semantics/index.ts';
import { flagBoolean, flagChoice, flagInt, flagString, LEVELS, paramOverrides, parseCommandLine, type CommandSpec } from './args.ts';
import { atLevel } from './cmd-run.ts';
import { EXIT } from '../exit-codes.ts';

export const STEP_HELP = `Usage: arefcheck step FILE [options]

Steps through FILE (.aref or .json) with the reference semantics, one action at a time, for
learning the rules: it shows the state (σ(a) = ⟨buf, F, E⟩ per aref slot; phase, pending,
expected and tx-count per mbarrier; slot values and TMA copies in flight; outstanding wgmma
groups; where each role is, with its source line), lists the enabled actions with numbers,
and reads a command. After each step it prints what changed; at the end, how the run ended.

${STEPPER_HELP}

Commands are read from the terminal, or line by line from stdin when it is not a terminal,
or from --script (then, at a terminal, from the terminal). Outside a terminal a command that
does not fit (an action number that is not enabled) is bad input: exit 2.

Options:
  --script "1 3 2 u r"   run these commands first (spaces or commas between them)
  --seed N               seed for 'r' (default: a random one, printed when r is first used)
  --level aref|mbarrier  step at this level; an aref-level program is lowered first for mbarrier
  --param NAME=V         override a param of FILE (repeatable)
  --literal              follow the paper's consumed rule as written (consumed on a slot that
                         is not borrowed is allowed instead of a protocol error)
  --brief                print only the steps, not the enabled actions after each one
  -h, --help             show this help

Exit codes: 0 every role finished, 1 stuck or a violation, 2 bad input,
3 the input ended (or q) before the run did.
`;

const SPEC: CommandSpec = {
  name: 'step',
  help: STEP_HELP,
  options: {
    script: { type: 'string' },
    seed: { type: 'string' },
    level: { type: 'string' },
    param: { type: 'string', multiple: true },
    literal: { type: 'boolean' },
    brief: { type: 'boolean' },
  },
  positionals: { min: 1, max: 1, what: 'FILE' },
};

const SEED_MAX = 2 ** 32 - 1;

/** The source text by line, for showing where each role is (.aref only: .json lines say little). */
function sourceLinesOf(file: string): string[] | undefined {
  if (extname(file).toLowerCase() !== '.aref') return undefined;
  try {
    return readFileSync(file, 'utf8').split(/\r?\n/);
  } catch {
    return undefined;
  }
}

export async function main(argv: string[]): Promise<number> {
  const cl = parseCommandLine(SPEC, argv);
  if (!cl) return EXIT.verified;
  const file = cl.positionals[0] ?? '';
  const givenSeed = flagInt(cl, 'seed', 0, SEED_MAX);
  const seed = givenSeed ?? randomInt(SEED_MAX);
  const requested = flagChoice(cl, 'level', LEVELS);
  const literal = flagBoolean(cl, 'literal');
  const script = flagString(cl, 'script');

  const program = atLevel(loadProgramFile(file, paramOverrides(cl)), requested, file);
  const { machine, state } = start(program, { literal });
  const session = new Session(machine, state);

  const color = chalk.level > 0 && process.stdout.isTTY === true;
  const c = new Chalk({ level: color ? chalk.level : 0 });
  const tty = process.stdin.isTTY === true;
  const reader = script === undefined || tty ? lineReader(process.stdin, tty ? process.stdout : undefined) : undefined;
  const fromStdin: CommandSource | undefined = reader ? lineSource((prompt) => reader.read(prompt), tty) : undefined;
  const input = script === undefined ? fromStdin : fromStdin ? chainSources(scriptSource(script), fromStdin) : scriptSource(script);
  if (!input) throw new Error('no command source');

  const header = `step ${file} at the ${programLevel(program)} level${literal ? ', literal consumed rule' : ''} (? lists the commands)`;
  process.stdout.write(`${c.bold(header)}\n`);
  const sourceLines = sourceLinesOf(file);
  try {
    return await runStepper(session, input, (text) => process.stdout.write(text), { seed, c, brief: flagBoolean(cl, 'brief'), hints: tty, announceSeed: givenSeed === undefined, ...(sourceLines ? { sourceLines } : {}) });
  } finally {
    reader?.close();
  }
}
