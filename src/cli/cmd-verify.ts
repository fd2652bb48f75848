// `arefcheck verify`: explore every interleaving of a program and print the verdict, the figures
// and the shortest counterexamples (text or one JSON object); optionally write each
// counterexample as a replayable ITF-shaped JSON file.
import { mkdirSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import chalk from 'chalk';
import { createProgressReporter } from '../../checker/index.ts';
import { InputError } from '../diag.ts';
import { writeJsonFd, writeJsonFile, type JsonLayout } from '../json-out.ts';
import type { Level, Program } from '../ir/program.ts';
import { loadProgramFile } from '../lang/load.ts';
import { liftPtxFile } from '../ptx/lift/index.ts';
import { verifyProgram, type Report, type VerifyOptions } from '../verify.ts';
import { formatReportText } from '../verify/format-text.ts';
import { nothingChecked } from '../verify/properties.ts';
import { reportToSarif } from '../verify/sarif.ts';
import { version } from './version.ts';
import { TRACE_LAYOUT, violationLevels, violationToTraceJson } from '../verify/trace-json.ts';
import { flagBoolean, flagChoice, flagInt, flagSize, flagString, paramOverrides, parseCommandLine, type CommandLine, type CommandSpec } from './args.ts';
import { EXIT } from './exit-codes.ts';
import { readInputFile } from '../read-input.ts';
import { ptxFlags, verifyPtxFile } from './verify-ptx.ts';

export const VERIFY_HELP = `Usage: arefcheck verify FILE [options]

Explores every interleaving of the roles and of the asynchronous units (TMA landings, wgmma
retirements) of FILE (.aref, .json, or .ptx) and decides deadlock, race, fifo, protocol,
termination (under weak fairness) and, for an aref program checked at the mbarrier level,
refinement. Prints the verdict, the figures, and for each violation the shortest trace.

Options:
  --level aref|mbarrier|both  the level to check (default: the program's own); an aref program
                         is lowered for mbarrier; both checks it at each level
  --param NAME=V         override a param of FILE (repeatable)
  --literal              follow the paper's consumed rule as written (no protocol error on a
                         slot that is not borrowed)
  --max-states N         stop (inconclusive) after storing N states (default 20,000,000)
  --timeout S            stop (inconclusive) after S seconds (default 600)
  --max-memory SIZE      stop (inconclusive) when the explorer's tables would pass SIZE
                         (bytes, or with K, M, G: 512M, 4G; default 6G)
  --no-por               explore every interleaving (no partial-order reduction); the
                         counterexamples are then the shortest of the full graph
  --json                 print one JSON object: verdict, level, violations (kind, message,
                         trace, actionIndices), stats
  --trace-out DIR        write each counterexample to DIR as JSON, for 'arefcheck replay'
  --sarif FILE           also write the report as SARIF 2.1.0 (for code-scanning CI)
  --sarif-root DIR       SARIF file URIs relative to DIR (the repository root), as GitHub
                         code scanning wants them
  --kernel NAME          .ptx only: the kernel entry to lift (default: the only one)
  --block N              .ptx only: threads per block
  --cta N                .ptx only: the CTA to execute (%ctaid.x, default 0)
  --tma-bytes N          .ptx only: bytes of each tensor TMA copy, when the layout cannot tell
  --tma-box MAP=BYTES    .ptx only: bytes of one tensor map's box (MAP as the notes print it;
                         BYTES may be ROWSxCOLSxELEMBYTES)
  --param NAME+OFF:T=V   .ptx only: a field of a by-value parameter (CUTLASS Params), e.g.
                         --param 0+12:u32=4096; NAME may be the parameter's index
  --grid X,Y,Z           .ptx only: the grid (%nctaid; default one cluster)
  --cluster X,Y,Z        .ptx only: the cluster shape (default .reqnctapercluster, else 1)
  --no-sweep             .ptx only: check the given launch values (defaults for the rest)
                         only, not the bounded sweep of the values left open
  --max-steps N          .ptx only: PTX instructions the concrete run may execute
  -h, --help             show this help

Exit codes: 0 verified, 1 violation, 2 bad input, 3 inconclusive (a limit was reached).
A progress line goes to stderr for runs over a second.
`;

export const VERIFY_LEVELS = ['aref', 'mbarrier', 'both'] as const;

const SPEC: CommandSpec = {
  name: 'verify',
  help: VERIFY_HELP,
  options: {
    level: { type: 'string' },
    param: { type: 'string', multiple: true },
    literal: { type: 'boolean' },
    'max-states': { type: 'string' },
    timeout: { type: 'string' },
    'max-memory': { type: 'string' },
    'no-por': { type: 'boolean' },
    json: { type: 'boolean' },
    'trace-out': { type: 'string' },
    sarif: { type: 'string' },
    'sarif-root': { type: 'string' },
    kernel: { type: 'string' },
    block: { type: 'string' },
    cta: { type: 'string' },
    'tma-bytes': { type: 'string' },
    'tma-box': { type: 'string', multiple: true },
    grid: { type: 'string' },
    cluster: { type: 'string' },
    'no-sweep': { type: 'boolean' },
    'max-steps': { type: 'string' },
  },
  positionals: { min: 1, max: 1, what: 'FILE' },
};

/** How `verify` (and `pipeline` without --print) runs and prints a check. */
export interface VerificationRun {
  /** What was checked, for messages and trace files: a file name or a description. */
  readonly name: string;
  readonly level?: Level | 'both';
  readonly literal: boolean;
  readonly maxStates?: number;
  readonly maxMs?: number;
  readonly maxBytes?: number;
  /** false: --no-por */
  readonly reduction: boolean;
  readonly json: boolean;
  readonly traceOut?: string;
  readonly sarif?: string;
  /** --sarif-root: SARIF file URIs relative to this folder */
  readonly sarifRoot?: string;
}

/** The limits and options common to `verify` and `pipeline`. */
export function verificationFlags(cl: CommandLine): Omit<VerificationRun, 'name'> {
  const level = flagChoice(cl, 'level', VERIFY_LEVELS);
  const maxStates = flagInt(cl, 'max-states', 1);
  const timeout = flagInt(cl, 'timeout', 1, 24 * 3600);
  const maxBytes = flagSize(cl, 'max-memory');
  const traceOut = flagString(cl, 'trace-out');
  const sarif = flagString(cl, 'sarif');
  const sarifRoot = flagString(cl, 'sarif-root');
  return {
    literal: flagBoolean(cl, 'literal'),
    json: flagBoolean(cl, 'json'),
    reduction: !flagBoolean(cl, 'no-por'),
    ...(level === undefined ? {} : { level }),
    ...(maxBytes === undefined ? {} : { maxBytes }),
    ...(maxStates === undefined ? {} : { maxStates }),
    ...(timeout === undefined ? {} : { maxMs: timeout * 1000 }),
    ...(traceOut === undefined ? {} : { traceOut }),
    ...(sarif === undefined ? {} : { sarif }),
    ...(sarifRoot === undefined ? {} : { sarifRoot }),
  };
}

/** Verify `program`, print the report, write trace files; returns the exit code of the verdict. */
export function runVerification(program: Program, run: VerificationRun): number {
  return printReport(checkWithProgress(program, run), program, run);
}

/** verifyProgram with the run's options and a progress line on stderr. */
export function checkWithProgress(program: Program, run: VerificationRun): Report {
  const progress = createProgressReporter(process.stderr);
  const options: VerifyOptions = {
    literal: run.literal,
    reduction: run.reduction,
    onProgress: progress.onProgress,
    ...(run.maxBytes === undefined ? {} : { maxBytes: run.maxBytes }),
    ...(run.level === undefined ? {} : { level: run.level }),
    ...(run.maxStates === undefined ? {} : { maxStates: run.maxStates }),
    ...(run.maxMs === undefined ? {} : { maxMs: run.maxMs }),
  };
  let report: Report;
  try {
    report = verifyProgram(program, options);
  } catch (err) {
    progress.finish(); // end the progress line before the error message
    throw err;
  }
  const { stats } = report;
  progress.finish({ states: stats.states, transitions: stats.transitions, queue: 0, depth: stats.maxDepth, ms: stats.ms, statesPerSecond: stats.statesPerSecond });
  return report;
}

/** Print a report (text or JSON), write trace files and SARIF; returns the exit code of the verdict. */
export function printReport(report: Report, program: Program, run: VerificationRun): number {
  const traceFiles = run.traceOut === undefined ? [] : writeTraceFiles(report, program, run);
  if (run.sarif !== undefined) writeJson(run.sarif, reportToSarif(report, run.name, { toolVersion: version(), ...(run.sarifRoot === undefined ? {} : { root: run.sarifRoot }) }), SARIF_LAYOUT, '--sarif');
  if (run.json) {
    writeJsonFd(1, reportJson(report, run.name, traceFiles), { depth: 0 });
  } else {
    process.stdout.write(formatReportText(report, { color: chalk.level > 0, program: run.name }));
    if (traceFiles.length > 0) process.stdout.write(`\n${traceFiles.map((f) => `counterexample written to ${f}`).join('\n')}\n`);
  }
  return exitCodeOf(report.verdict);
}

export function exitCodeOf(verdict: Report['verdict']): number {
  return verdict === 'verified' ? EXIT.verified : verdict === 'violation' ? EXIT.violation : EXIT.inconclusive;
}

/** The stable JSON of issue 3, with the program's name and each violation's level. */
export function reportJson(report: Report, program: string, traceFiles: readonly string[] = []): object {
  const levels = violationLevels(report);
  return {
    program,
    verdict: report.verdict,
    level: report.level,
    violations: report.violations.map((v, i) => ({
      kind: v.kind,
      message: v.message,
      level: levels[i],
      ...(v.loc ? { loc: v.loc } : {}),
      trace: v.trace,
      actionIndices: v.actionIndices,
      ...(v.loopStart !== undefined ? { loopStart: v.loopStart } : {}),
      ...(traceFiles[i] !== undefined ? { traceFile: traceFiles[i] } : {}),
    })),
    stats: report.stats,
    properties: report.properties,
    ...(report.verdict === 'verified' && nothingChecked(report.properties) ? { vacuous: true } : {}),
    ...(report.limit ? { limit: report.limit } : {}),
    ...(report.notes ? { notes: report.notes } : {}),
    ...(report.scope ? { scope: report.scope } : {}),
  };
}

/** One file per violation: DIR/<program>.<level>.<kind>.json (numbered if a name repeats). */
function writeTraceFiles(report: Report, program: Program, run: VerificationRun): string[] {
  const dir = run.traceOut ?? '.';
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new InputError(`--trace-out: cannot create '${dir}'${errCode(err)}`);
  }
  const params = Object.fromEntries(program.params.map((p) => [p.name, p.value]));
  const levels = violationLevels(report);
  const stem = basename(run.name, extname(run.name)).replace(/[^A-Za-z0-9_.=-]+/g, '-');
  const used = new Set<string>();
  return report.violations.map((v, i) => {
    let name = `${stem}.${levels[i]}.${v.kind}`;
    for (let k = 2; used.has(name); k++) name = `${stem}.${levels[i]}.${v.kind}.${k}`;
    used.add(name);
    const path = join(dir, `${name}.json`);
    const json = violationToTraceJson(report, i, run.name, { params, literal: run.literal });
    writeJson(path, json, TRACE_LAYOUT, '--trace-out');
    return path;
  });
}

const SARIF_LAYOUT = { depth: 6 } as const;

function writeJson(path: string, value: unknown, layout: JsonLayout, flag: string): void {
  try {
    writeJsonFile(path, value, layout);
  } catch (err) {
    throw new InputError(`${flag}: cannot write '${path}'${errCode(err)}`);
  }
}

function errCode(err: unknown): string {
  return err instanceof Error && 'code' in err ? ` (${String(err.code)})` : '';
}

export interface LoadOptions {
  readonly params: ReadonlyMap<string, number>;
  readonly kernel?: string;
  readonly block?: number;
  readonly cta?: number;
  readonly tmaBytes?: number;
}

/** A program file as the CLI takes it: .aref or .json, or .ptx through the lifter when this build has one. */
export async function loadProgramForCli(file: string, options: LoadOptions): Promise<Program> {
  if (extname(file).toLowerCase() === '.ptx') return loadPtx(file, options);
  for (const [flag, value] of [['--kernel', options.kernel], ['--block', options.block], ['--cta', options.cta], ['--tma-bytes', options.tmaBytes]] as const)
    if (value !== undefined) throw new InputError(`${flag} applies to .ptx files only`);
  return loadProgramFile(file, options.params);
}

/** The one kernel of a lifted file (or the one named with --kernel). */
function loadPtx(file: string, options: LoadOptions): Program {
  const kernels = liftPtxFile(readInputFile(file), file, {
    ...(options.kernel === undefined ? {} : { kernel: options.kernel }),
    ...(options.params.size === 0 ? {} : { params: options.params }),
    ...(options.block === undefined ? {} : { block: options.block }),
    ...(options.cta === undefined ? {} : { cta: options.cta }),
    ...(options.tmaBytes === undefined ? {} : { tmaBytes: options.tmaBytes }),
  });
  const [only] = kernels;
  if (kernels.length !== 1 || !only) throw new InputError(`${file} has ${kernels.length} kernels (${kernels.map((k) => k.kernel).join(', ')}); name one with --kernel`);
  return only.program;
}

export function loadFlags(cl: CommandLine, intParams = true): LoadOptions {
  const kernel = flagString(cl, 'kernel');
  const block = flagInt(cl, 'block', 1, 1024);
  const cta = flagInt(cl, 'cta', 0);
  const tmaBytes = flagInt(cl, 'tma-bytes', 1);
  return {
    params: intParams ? paramOverrides(cl) : new Map(),
    ...(kernel === undefined ? {} : { kernel }),
    ...(block === undefined ? {} : { block }),
    ...(cta === undefined ? {} : { cta }),
    ...(tmaBytes === undefined ? {} : { tmaBytes }),
  };
}

export async function main(argv: string[]): Promise<number> {
  const cl = parseCommandLine(SPEC, argv);
  if (!cl) return EXIT.verified;
  const file = cl.positionals[0] ?? '';
  const run = verificationFlags(cl);
  if (extname(file).toLowerCase() === '.ptx') {
    const { params: _ints, ...base } = loadFlags(cl, false);
    return verifyPtxFile(file, ptxFlags(cl, base), { ...run, name: file });
  }
  for (const flag of ['tma-box', 'grid', 'cluster', 'no-sweep', 'max-steps']) {
    if (cl.values[flag] !== undefined) throw new InputError(`--${flag} applies to .ptx files only`);
  }
  const program = await loadProgramForCli(file, loadFlags(cl));
  return runVerification(program, { ...run, name: file });
}
