// `arefcheck run`: one random interleaving of a program with the reference interpreter.
import { randomInt } from 'node:crypto';
import chalk from 'chalk';
import { InputError } from '../diag.ts';
import { programLevel, type Level, type Program } from '../ir/program.ts';
import { formatRunText, randomRun, type RunReport } from '../interp/run.ts';
import { loadProgramFile } from '../lang/load.ts';
import { lowerProgram } from '../lower.ts';
import { flagBoolean, flagChoice, flagInt, LEVELS, paramOverrides, parseCommandLine, type CommandSpec } from './args.ts';
import { EXIT } from '../exit-codes.ts';
import { writeJsonFd } from '../json-out.ts';

export const RUN_HELP = `Usage: arefcheck run FILE [options]

Runs one random interleaving of FILE (.aref or .json) with the reference interpreter and
prints each step: who moved (a role, a TMA copy landing, a wgmma group retiring), the action,
and the part of the state it changed. Then how the run ended: every role finished, stuck
(with what each role waits for), or a violation.

Options:
  --seed N               the scheduler's seed (default: a random one, printed so the run can be repeated)
  --level aref|mbarrier  run at this level; an aref-level program is lowered first for mbarrier
  --param NAME=V         override a param of FILE (repeatable)
  --literal              follow the paper's consumed rule as written: consumed on a slot
                         that is not borrowed is allowed instead of a protocol error
  --max-steps N          stop after N steps (default: the interpreter's limit)
  --json                 print the run as one JSON object
  -h, --help             show this help

Exit codes: 0 every role finished, 1 stuck or a violation, 2 bad input, 3 step limit reached.
`;

const SPEC: CommandSpec = {
  name: 'run',
  help: RUN_HELP,
  options: {
    seed: { type: 'string' },
    level: { type: 'string' },
    param: { type: 'string', multiple: true },
    literal: { type: 'boolean' },
    'max-steps': { type: 'string' },
    json: { type: 'boolean' },
  },
  positionals: { min: 1, max: 1, what: 'FILE' },
};

const SEED_MAX = 2 ** 32 - 1;

/** The program at the level asked for: lowered when an aref program is run at mbarrier level. */
export function atLevel(program: Program, level: Level | undefined, file: string): Program {
  const own = programLevel(program);
  if (level === undefined || level === own) return program;
  if (level === 'mbarrier') return lowerProgram(program);
  throw new InputError(`${file} is an mbarrier-level program; it cannot be run at the aref level`);
}

export function runExitCode(outcome: RunReport['outcome']): number {
  switch (outcome.kind) {
    case 'finished':
      return EXIT.verified;
    case 'stuck':
    case 'error':
      return EXIT.violation;
    case 'step-limit':
      return EXIT.inconclusive;
  }
}

export async function main(argv: string[]): Promise<number> {
  const cl = parseCommandLine(SPEC, argv);
  if (!cl) return EXIT.verified;
  const file = cl.positionals[0] ?? '';
  const seed = flagInt(cl, 'seed', 0, SEED_MAX) ?? randomInt(SEED_MAX);
  const maxSteps = flagInt(cl, 'max-steps', 1);
  const requested = flagChoice(cl, 'level', LEVELS);
  const literal = flagBoolean(cl, 'literal');

  const program = atLevel(loadProgramFile(file, paramOverrides(cl)), requested, file);
  const level = programLevel(program);
  const report = randomRun(program, { seed, literal, ...(maxSteps === undefined ? {} : { maxSteps }) });

  if (flagBoolean(cl, 'json')) {
    writeJsonFd(1, { file, level, literal, ...report }, { depth: 2 });
  } else {
    const color = chalk.level > 0;
    const header = `run ${file} at the ${level} level${literal ? ', literal consumed rule' : ''}`;
    process.stdout.write(`${color ? chalk.bold(header) : header}\n${formatRunText(report, { color })}`);
  }
  return runExitCode(report.outcome);
}
