// `arefcheck replay`: re-run a counterexample file step by step through the reference semantics
// and confirm that it reaches the violation it records.
import chalk, { Chalk } from 'chalk';
import type { Level } from '../ir/program.ts';
import { basename, extname } from 'node:path';
import { liftRecipePoint } from '../ptx/lift/recipe.ts';
import { parsePtx } from '../ptx/parse/parser.ts';
import { programOfViolation } from '../verify/set-aside.ts';
import { replayTrace, type ReplayResult } from '../verify/replay.ts';
import { formatTraceTable, markViolation } from '../verify/format-text.ts';
import { readTraceJson, type TraceFile } from '../verify/trace-json.ts';
import { flagBoolean, flagChoice, LEVELS, parseCommandLine, type CommandSpec } from './args.ts';
import { loadFlags, loadProgramForCli } from './load-program.ts';
import { EXIT } from '../exit-codes.ts';
import { readInputFile } from '../read-input.ts';
import { writeJsonFd } from '../json-out.ts';

/** The trace runs to its end without the violation it records. */
export const EXIT_NOT_REPRODUCED = 4;

export const REPLAY_HELP = `Usage: arefcheck replay TRACE.json PROGRAM [options]

Re-runs a counterexample written by 'arefcheck verify --trace-out DIR' on PROGRAM (.aref, .json
or .ptx), step by step through the reference semantics, with the params and consumed rule the
trace records, and confirms that it reaches the violation it records: the same invariant
(race, fifo, protocol, refinement) at its last step; for a deadlock, nothing can move and not
every role has finished; for termination, the cycle returns to its first state and is fair.
An mbarrier-level trace of an aref program runs on the lowered program, with the refinement
monitor beside it.

Options:
  --level aref|mbarrier  replay at this level instead of the one the trace records
  --json                 print one JSON object: reproduced, reached, message, steps
  --kernel NAME          .ptx only: the kernel entry to lift (as verify's --kernel)
  --block N              .ptx only: threads per block
  -h, --help             show this help

Exit codes: 1 the violation is reproduced (confirmed), 4 the trace runs but does not reach it,
2 bad input, including a trace that does not fit the program (the step is named). Replay never
exits 0: a counterexample that replays is a violation.
`;

const SPEC: CommandSpec = {
  name: 'replay',
  help: REPLAY_HELP,
  options: {
    level: { type: 'string' },
    json: { type: 'boolean' },
    kernel: { type: 'string' },
    block: { type: 'string' },
  },
  positionals: { min: 2, max: 2, what: 'TRACE.json PROGRAM' },
};

export function readTraceFile(path: string): TraceFile {
  return readTraceJson(readInputFile(path), path);
}

export async function main(argv: string[]): Promise<number> {
  const cl = parseCommandLine(SPEC, argv);
  if (!cl) return EXIT.verified;
  const [traceFile = '', programFile = ''] = cl.positionals;
  const requested = flagChoice(cl, 'level', LEVELS);
  const trace = readTraceFile(traceFile);
  const load = loadFlags(cl);
  // the trace's params are applied first; --param is not offered: a trace is tied to its params
  // lifted PTX: the options and launch point the trace records (a sweep point is not the defaults)
  const program = trace.launch && extname(programFile).toLowerCase() === '.ptx'
    ? liftRecipePoint(parsePtx(readInputFile(programFile), programFile), programFile, trace.launch)
    : await loadProgramForCli(programFile, { ...load, params: new Map(Object.entries(trace.params)) });
  // a violation found past the double inits replays on the program without them, as it was found
  const result = replayTrace(programOfViolation(trace.message ?? '', program), trace, requested ?? trace.level);
  if (trace.program !== undefined && basename(trace.program) !== basename(programFile))
    process.stderr.write(`warning: ${traceFile} was recorded on ${trace.program}, not on ${programFile}\n`);

  if (flagBoolean(cl, 'json')) {
    const out = { trace: traceFile, program: programFile, level: result.level, recorded: trace.kind, reproduced: result.reproduced, reached: result.reached, message: result.message, steps: result.steps };
    writeJsonFd(1, out, { depth: 0 });
  } else {
    process.stdout.write(formatReplayText(result, trace, { trace: traceFile, program: programFile, color: chalk.level > 0 }));
  }
  return result.reproduced ? EXIT.violation : EXIT_NOT_REPRODUCED;
}

export function formatReplayText(result: ReplayResult, trace: TraceFile, o: { trace: string; program: string; color: boolean }): string {
  const c = new Chalk({ level: o.color ? 1 : 0 });
  const level: Level = result.level;
  const head = `replay ${o.trace} on ${o.program} at the ${level} level${result.lowered ? ' (lowered, with the refinement monitor)' : ''}${trace.literal ? ', literal consumed rule' : ''}: recorded ${trace.kind} after ${trace.actionIndices.length} steps`;
  const lines = [c.bold(head), ...formatTraceTable(markViolation(result.steps, result.reached, result.message), c, trace.kind === 'termination' ? trace.loopStart : undefined), ''];
  const message = result.message.split('\n').map((l) => `  ${l}`);
  if (result.reproduced) lines.push(`${c.red.bold(`confirmed: ${result.reached}`)} after ${result.steps.length} steps`, ...message);
  else lines.push(`${c.yellow.bold('not reproduced:')} the trace ends with ${result.reached}, not ${trace.kind}`, ...message);
  return `${lines.join('\n')}\n`;
}
