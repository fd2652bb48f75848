// How `verify` and `pipeline` run a check and print it: limits and output flags, the progress
// line, the text/JSON report, trace files and SARIF, the exit code.
import { programOfViolation } from '../verify/set-aside.ts';
import type { LiftRecipe } from '../ptx/lift/recipe.ts';
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import chalk from 'chalk';
import { createProgressReporter } from '../../checker/index.ts';
import { InputError } from '../diag.ts';
import { writeJsonFd, writeJsonFile, type JsonLayout } from '../json-out.ts';
import type { Program } from '../ir/program.ts';
import type { Report } from '../verify.ts';
import { formatReportText } from '../verify/format-text.ts';
import { nothingChecked } from '../verify/properties.ts';
import { reportToSarif } from '../verify/sarif.ts';
import { version } from './version.ts';
import { TRACE_LAYOUT, violationLevels, violationToTraceJson } from '../verify/trace-json.ts';
import { flagBoolean, flagChoice, flagInt, flagSize, flagString, type CommandLine } from './args.ts';
import { EXIT } from '../exit-codes.ts';
import { checkInWorker, interruptible } from './interruptible.ts';
import { checkRun, finalFigures, runOptions, type VerificationRun } from './check-run.ts';

export type { VerificationRun } from './check-run.ts';


export const VERIFY_LEVELS = ['aref', 'mbarrier', 'both'] as const;

/** The limits and options common to `verify` and `pipeline`. */
export function verificationFlags(cl: CommandLine): Omit<VerificationRun, 'name'> {
  const level = flagChoice(cl, 'level', VERIFY_LEVELS);
  const maxStates = flagInt(cl, 'max-states', 1);
  const timeout = flagInt(cl, 'timeout', 1, 24 * 3600);
  const maxBytes = flagSize(cl, 'max-memory');
  const traceOut = flagString(cl, 'trace-out');
  const sarif = flagString(cl, 'sarif');
  const sarifRoot = flagString(cl, 'sarif-root');
  // an output that cannot be written is found now, not after a run of minutes
  if (traceOut !== undefined) {
    try {
      mkdirSync(traceOut, { recursive: true });
      accessSync(traceOut, constants.W_OK);
    } catch (err) {
      throw new InputError(`--trace-out: cannot write into '${traceOut}'${errCode(err)}`);
    }
  }
  if (sarif !== undefined) {
    try {
      accessSync(dirname(resolve(sarif)), constants.W_OK);
    } catch (err) {
      throw new InputError(`--sarif: cannot write '${sarif}'${errCode(err)}`);
    }
  }
  if (sarifRoot !== undefined && !existsSync(sarifRoot)) throw new InputError(`--sarif-root: no folder '${sarifRoot}'`);
  return {
    literal: flagBoolean(cl, 'literal'),
    json: flagBoolean(cl, 'json'),
    reduction: !flagBoolean(cl, 'no-por'),
    ...(flagBoolean(cl, 'no-collapse') ? { collapse: false } : {}),
    ...(flagBoolean(cl, 'no-symmetry') ? { symmetry: false } : {}),
    ...(flagBoolean(cl, 'no-every-k') ? { everyK: false } : {}),
    ...(level === undefined ? {} : { level }),
    ...(maxBytes === undefined ? {} : { maxBytes }),
    ...(maxStates === undefined ? {} : { maxStates }),
    ...(timeout === undefined ? {} : { maxMs: timeout * 1000 }),
    ...(traceOut === undefined ? {} : { traceOut }),
    ...(sarif === undefined ? {} : { sarif }),
    ...(sarifRoot === undefined ? {} : { sarifRoot }),
  };
}

/**
 * Verify `program`, print the report, write trace files; returns the exit code of the verdict.
 * On a terminal the check runs interruptibly (Ctrl-C prints the figures reached, inconclusive).
 */
export async function runVerification(program: Program, run: VerificationRun): Promise<number> {
  const report = interruptible() ? await checkInWorker(program, run) : checkWithProgress(program, run);
  return printReport(report, program, run);
}

/** verifyProgram with the run's options and a progress line on stderr. */
export function checkWithProgress(program: Program, run: VerificationRun): Report {
  const progress = createProgressReporter(process.stderr);
  let report: Report;
  try {
    report = checkRun(program, run, { ...runOptions(run), onProgress: progress.onProgress });
  } catch (err) {
    progress.finish(); // end the progress line before the error message
    throw err;
  }
  progress.finish(finalFigures(report));
  return report;
}

/** Print a report (text or JSON), write trace files and SARIF; returns the exit code of the verdict. */
export function printReport(report: Report, program: Program, run: VerificationRun, launch?: LiftRecipe): number {
  const traceFiles = run.traceOut === undefined ? [] : writeTraceFiles(report, program, run, launch);
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

/**
 * One file per violation: DIR/<program>.<level>.<kind>.json (numbered if a name repeats).
 * `launch`: for lifted PTX, how its program was lifted (replay lifts it again).
 */
function writeTraceFiles(report: Report, program: Program, run: VerificationRun, launch: LiftRecipe | undefined): string[] {
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
    const json = violationToTraceJson(report, i, run.name, { params: { ...params, ...v.params }, literal: run.literal, program: programOfViolation(v.message, program), ...(launch ? { launch } : {}) });
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
