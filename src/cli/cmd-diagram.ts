// `arefcheck diagram`: one run of a program (seeded random, or a counterexample file replayed)
// as a sequence diagram (Mermaid text, or a standalone SVG); or, for tiny programs, the whole
// reachable state graph as Graphviz DOT.
import { writeFileSync } from 'node:fs';
import { extname } from 'node:path';
import { randomInt } from 'node:crypto';
import { InputError } from '../diag.ts';
import { programLevel, type Level, type Program } from '../ir/program.ts';
import { lowerProgram } from '../lower.ts';
import { sequenceToMermaid } from '../learn/mermaid.ts';
import { recordIndices, recordRandomRun } from '../learn/record.ts';
import { buildSequence, type SequenceDiagram } from '../learn/sequence.ts';
import type { Ending } from '../learn/session.ts';
import { exploreStateGraph, stateGraphToDot } from '../learn/state-graph.ts';
import { sequenceToSvg } from '../learn/svg.ts';
import { replayTrace, type ReplayResult } from '../verify/replay.ts';
import type { TraceFile } from '../verify/trace-json.ts';
import { start } from '../../semantics/index.ts';
import { flagBoolean, flagChoice, flagInt, flagString, LEVELS, paramOverrides, parseCommandLine, usageError, type CommandSpec } from './args.ts';
import { atLevel } from './cmd-run.ts';
import { readTraceFile } from './cmd-replay.ts';
import { loadProgramForCli } from './load-program.ts';
import { EXIT } from '../exit-codes.ts';

export const DIAGRAM_HELP = `Usage: arefcheck diagram FILE [options]

Draws one run of FILE (.aref, .json or .ptx) as a sequence diagram: a lifeline per role, per
async unit (TMA, each role's wgmma unit) and per aref slot, barrier or buffer slot the run
touches; an arrow per operation, labelled with what it did (put 0 → ⟨0, 1, 0⟩, arrive →
phase 1 …); dashed arrows for the async units; a cross on the step that violated a property;
a note with how the run ended. The run is the one 'arefcheck run --seed N' takes, or the
counterexample of a trace file written by 'arefcheck verify --trace-out DIR'.

Options:
  --seed N               draw the seeded random run (default: a random seed, in the caption)
  --trace TRACE.json     draw this counterexample instead (its params and consumed rule apply)
  --format mermaid|svg|dot  Mermaid sequenceDiagram text (default), a standalone SVG, or
                         (dot) the whole reachable state graph in Graphviz DOT, for tiny programs
  -o, --out FILE         write to FILE (the format follows a .svg or .dot name) instead of stdout
  --max-states N         dot: refuse graphs with more states (default 500)
  --level aref|mbarrier  the level to run at (an aref program is lowered for mbarrier)
  --param NAME=V         override a param of FILE (repeatable; not with --trace)
  --literal              the paper's consumed rule as written (not with --trace)
  --max-steps N          stop a random run after N steps (default 1000)
  --kernel NAME          .ptx only: the kernel entry to lift (as verify's --kernel)
  --block N              .ptx only: threads per block
  -h, --help             show this help

Exit codes: 0 the diagram was written (whatever the run's verdict), 2 bad input.
`;

const SPEC: CommandSpec = {
  name: 'diagram',
  help: DIAGRAM_HELP,
  options: {
    seed: { type: 'string' },
    trace: { type: 'string' },
    format: { type: 'string' },
    out: { type: 'string', short: 'o' },
    level: { type: 'string' },
    param: { type: 'string', multiple: true },
    literal: { type: 'boolean' },
    'max-steps': { type: 'string' },
    'max-states': { type: 'string' },
    kernel: { type: 'string' },
    block: { type: 'string' },
  },
  positionals: { min: 1, max: 1, what: 'FILE' },
};

export const DIAGRAM_FORMATS = ['mermaid', 'svg', 'dot'] as const;
export type DiagramFormat = (typeof DIAGRAM_FORMATS)[number];

const SEED_MAX = 2 ** 32 - 1;
const DEFAULT_MAX_STEPS = 1000;
const DEFAULT_MAX_STATES = 500;
/** Longer counterexamples are not drawn: nobody reads a diagram of a million arrows (replay and the trace file still show them). */
export const MAX_DIAGRAM_STEPS = 5000;

/** What a replay reached, as the ending the diagram's last note states. */
export function replayEnding(result: ReplayResult, trace: TraceFile, line: number | undefined): Ending {
  switch (result.reached) {
    case 'finished':
      return { kind: 'finished' };
    case 'deadlock':
      return { kind: 'stuck', reasons: result.message.split('\n') };
    case 'termination':
      return { kind: 'cycle', loopStart: trace.loopStart ?? 0, message: result.message };
    case 'running':
      return { kind: 'open', message: result.message };
    default:
      return line === undefined ? { kind: 'violation', violation: result.reached, message: result.message } : { kind: 'violation', violation: result.reached, message: result.message, line };
  }
}

/** The counterexample of `trace`, replayed (which checks that it fits and judges its end), then drawn. */
export function traceDiagram(program: Program, trace: TraceFile, level: Level, file: string, traceFile: string): SequenceDiagram {
  const result = replayTrace(program, trace, level);
  if (!result.reproduced) process.stderr.write(`warning: ${traceFile} ends with ${result.reached}, not the ${trace.kind} it records\n`);
  const lowered = level === 'mbarrier' && programLevel(program) === 'aref';
  const { machine, state } = start(lowered ? lowerProgram(program) : program, { literal: trace.literal });
  const steps = recordIndices(machine, state, trace.actionIndices);
  // replayTrace has already refused a trace that does not fit; the interpreter must agree
  if (!steps) throw new Error('the trace replayed but its steps could not be recorded');
  const last = steps[steps.length - 1]?.after.violation;
  const line = last?.kind === result.reached ? last.loc?.line : undefined;
  const ending = replayEnding(result, trace, line);
  const caption = `arefcheck diagram ${file} --trace ${traceFile}: ${trace.kind} at the ${level} level, ${steps.length} steps`;
  return buildSequence(machine, steps, ending, trace.loopStart === undefined ? { caption } : { caption, loopStart: trace.loopStart });
}

function formatOfName(out: string | undefined): DiagramFormat {
  const ext = out === undefined ? '' : extname(out).toLowerCase();
  return ext === '.svg' ? 'svg' : ext === '.dot' || ext === '.gv' ? 'dot' : 'mermaid';
}

function render(d: SequenceDiagram, format: 'mermaid' | 'svg'): string {
  return format === 'svg' ? sequenceToSvg(d) : sequenceToMermaid(d);
}

export async function main(argv: string[]): Promise<number> {
  const cl = parseCommandLine(SPEC, argv);
  if (!cl) return EXIT.verified;
  const file = cl.positionals[0] ?? '';
  const traceFile = flagString(cl, 'trace');
  const requested = flagChoice(cl, 'level', LEVELS);
  const out = flagString(cl, 'out');
  // the diagrams are text (Mermaid, SVG, DOT): an image name would get text in an image's clothes
  if (out !== undefined && /\.(png|jpe?g|gif|webp|pdf)$/i.test(out))
    throw usageError('diagram', `-o ${out}: diagram writes text (Mermaid .mmd/.md, SVG .svg, DOT .dot), not ${extname(out).slice(1).toUpperCase()}; convert an .svg with an image tool`);
  const format: DiagramFormat = flagChoice(cl, 'format', DIAGRAM_FORMATS) ?? formatOfName(out);
  const kernel = flagString(cl, 'kernel');
  const block = flagInt(cl, 'block', 1, 1024);
  const ptx = { ...(kernel === undefined ? {} : { kernel }), ...(block === undefined ? {} : { block }) };

  let text: string;
  if (format === 'dot') {
    for (const flag of ['seed', 'trace', 'max-steps'])
      if (cl.values[flag] !== undefined) throw usageError('diagram', `--${flag} does not apply to --format dot (it draws every state)`);
    const literal = flagBoolean(cl, 'literal');
    const params = paramOverrides(cl);
    const program = atLevel(await loadProgramForCli(file, { params, ...ptx }), requested, file);
    const { machine } = start(program, { literal });
    const graph = exploreStateGraph(machine, flagInt(cl, 'max-states', 1) ?? DEFAULT_MAX_STATES);
    const flags = [...params].map(([k, v]) => ` --param ${k}=${v}`).join('');
    const caption = `arefcheck diagram ${file}${flags} --format dot: ${graph.states.length} states, ${graph.edges.length} transitions at the ${programLevel(program)} level`;
    text = stateGraphToDot(machine, graph, caption);
  } else if (traceFile !== undefined) {
    for (const flag of ['seed', 'param', 'literal', 'max-steps'])
      if (cl.values[flag] !== undefined) throw usageError('diagram', `--${flag} cannot be used with --trace (the trace records its own run)`);
    const trace = readTraceFile(traceFile);
    if (trace.actionIndices.length > MAX_DIAGRAM_STEPS) {
      throw new InputError(
        `${traceFile} has ${trace.actionIndices.length.toLocaleString('en-US')} steps; a diagram is drawn for at most ${MAX_DIAGRAM_STEPS.toLocaleString('en-US')} ` +
          "('arefcheck replay' confirms a long counterexample, and the trace file lists every step)",
      );
    }
    const program = await loadProgramForCli(file, { params: new Map(Object.entries(trace.params)), ...ptx });
    text = render(traceDiagram(program, trace, requested ?? trace.level, file, traceFile), format);
  } else {
    if (cl.values['max-states'] !== undefined) throw usageError('diagram', '--max-states applies to --format dot only');
    const seed = flagInt(cl, 'seed', 0, SEED_MAX) ?? randomInt(SEED_MAX);
    const maxSteps = flagInt(cl, 'max-steps', 1) ?? DEFAULT_MAX_STEPS;
    const literal = flagBoolean(cl, 'literal');
    const params = paramOverrides(cl);
    const program = atLevel(await loadProgramForCli(file, { params, ...ptx }), requested, file);
    const { machine, state } = start(program, { literal });
    const run = recordRandomRun(machine, state, seed, maxSteps);
    const level = programLevel(program);
    const flags = [...params].map(([k, v]) => ` --param ${k}=${v}`).join('');
    const caption = `arefcheck diagram ${file} --seed ${seed}${flags}: one random run at the ${level} level${literal ? ', literal consumed rule' : ''}, ${run.steps.length} steps`;
    text = render(buildSequence(machine, run.steps, run.ending, { caption }), format);
  }

  if (out === undefined) {
    process.stdout.write(text);
    return EXIT.verified;
  }
  try {
    writeFileSync(out, text);
  } catch (err) {
    const code = err instanceof Error && 'code' in err ? ` (${String(err.code)})` : '';
    throw new InputError(`--out: cannot write '${out}'${code}`);
  }
  return EXIT.verified;
}
