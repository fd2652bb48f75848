// `verify kernel.ptx --param NAME=any`: lifted PTX gets no proof for every value. The lifter runs
// the kernel concretely at one assignment of its launch values, and nothing yet shows that what
// it records at one value is periodic in it (docs/checker.md, "A proof for every K", and
// docs/ptx.md). So the value left open is checked at many values instead — the least value and
// the 7 after it, then the sweep's ladder up to 4096, while a run records at most the sweep's
// budget of operations — each lifted once (equal lifted programs are checked once) and checked
// within one time budget; the result is reported as bounded, never as verified. A violation is shown at the smallest value checked that has it:
// when it first shows at a ladder step, the gap below it is bisected for a smaller one. A double
// init the second check looks past (set-aside.ts), with the rest verified, does not end the scan.
import { InputError } from '../diag.ts';
import { parseAnyValue } from '../every-k/any-value.ts';
import type { Program } from '../ir/program.ts';
import type { LiftOptions } from '../ptx/lift/lift.ts';
import { parseLaunchParam } from '../ptx/lift/launch.ts';
import { pickKernel } from '../ptx/lift/lift.ts';
import { LADDER, liftLaunchPoints, MAX_EVENTS, shortKey, type LaunchPoint } from '../ptx/lift/sweep.ts';
import { EventBudgetExceeded } from '../ptx/lift/warp.ts';
import type { PtxModule } from '../ptx/parse/ast.ts';
import { sumStats } from '../verify.ts';
import { checkSettingAsideDoubleInits, onlyDoubleInits } from './set-aside.ts';
import { launchNotes } from './ptx.ts';
import type { Report } from './report.ts';

/** The value left open: the launch value's key (`params+8`), its name as given, the least value. */
export interface OpenLaunchValue {
  readonly key: string;
  readonly name: string;
  readonly min: number;
}

/** Checks one lifted program within at most `maxMs`. */
export type CheckLifted = (program: Program, maxMs: number) => Report;

/** The largest value checked (the sweep's ladder ends there too). */
const TOP = 4096n;
/** Values below the ladder's first step above the least value are all checked. */
const DENSE = 8n;
/** Bisection steps for a smaller value with the violation (4096 needs 12). */
const BISECT = 12;

/** Check `open` at every value of its scan (module docs); the report says which values were checked. */
export function verifyEveryLaunchValue(
  module: PtxModule,
  file: string,
  options: LiftOptions,
  open: OpenLaunchValue,
  budgetMs: number,
  checkOne: CheckLifted,
): { report: Report; program: Program; value: bigint } {
  const kernel = pickKernel(module, options.kernel);
  const paramNames = kernel.params.map((p) => p.name);
  const started = performance.now();
  const left = (): number => Math.max(1, Math.floor(budgetMs - (performance.now() - started)));
  const byProgram = new Map<string, Report>();
  const checked: { value: bigint; point: LaunchPoint; report: Report }[] = [];
  const refused: string[] = [];
  /** the first value whose run recorded more than the budget: the scan ends there */
  let tooBig: bigint | undefined;

  const at = (value: bigint): { point: LaunchPoint; report: Report } | undefined => {
    const params = new Map(options.params ?? []);
    params.set(open.name, value);
    let point: LaunchPoint;
    try {
      // the sweep's budget of recorded operations: a larger value only records more
      [point] = liftLaunchPoints(module, { ...options, params, maxEvents: options.maxEvents ?? MAX_EVENTS }, false) as [LaunchPoint];
    } catch (e) {
      if (e instanceof EventBudgetExceeded) {
        tooBig ??= value;
        return undefined;
      }
      if (!(e instanceof InputError)) throw e;
      refused.push(`${open.name} = ${value}: ${e.message}`);
      return undefined;
    }
    const id = JSON.stringify(point.program);
    const report = byProgram.get(id) ?? checkSettingAsideDoubleInits(point.program, (p) => checkOne(p, left()));
    byProgram.set(id, report);
    const labelled = { ...point, label: `${open.name} = ${value}` };
    checked.push({ value, point: labelled, report });
    return { point: labelled, report };
  };

  // an inert value (ptx/lift/inert.ts) lifts to the same program at every value: one check is a proof
  const least = BigInt(open.min);
  const once = at(least);
  if (once && once.point.facts.inert.includes(open.key)) return inertValue(open, least, once, paramNames);
  const decided = once?.point.facts.decides.find((d) => d.key === open.key)?.why;

  let stoppedBy: Report | undefined;
  let first: { value: bigint; point: LaunchPoint; report: Report } | undefined;
  // a prologue's double init is at every value: past it the scan goes on while the rest verifies
  let doubleInit: { value: bigint; point: LaunchPoint; report: Report } | undefined;
  let lastClean: bigint | undefined;
  for (const value of scanValues(least)) {
    if (performance.now() - started >= budgetMs) break;
    const r = value === least ? once : at(value);
    if (tooBig !== undefined) break;
    if (!r) continue;
    if (onlyDoubleInits(r.report)) doubleInit ??= { value, ...r };
    else if (r.report.verdict === 'violation') {
      first = { value, ...r };
      break;
    }
    if (r.report.verdict === 'inconclusive') {
      stoppedBy = r.report;
      break;
    }
    lastClean = value;
  }
  // a smaller value with a violation in the gap below the first one found
  if (first && lastClean !== undefined) {
    let lo = lastClean;
    let hi = first.value;
    for (let i = 0; i < BISECT && hi - lo > 1n && performance.now() - started < budgetMs; i++) {
      const mid = (lo + hi) / 2n;
      const r = at(mid);
      if (r?.report.verdict === 'violation' && !onlyDoubleInits(r.report)) {
        hi = mid;
        first = { value: mid, ...r };
      } else if (r?.report.verdict === 'verified' || (r && onlyDoubleInits(r.report))) lo = mid;
      else break;
    }
  }
  if (checked.length === 0) {
    throw new InputError(`${file}: --param ${open.name}=any: the kernel could not be lifted at any value (${refused.slice(0, 2).join('; ')})`);
  }

  checked.sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  const values = checked.map((c) => c.value);
  const distinct = byProgram.size;
  const shown = describeValues(values);
  const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;
  const scope = `for ${open.name} ∈ {${shown}} (bounded: ${plural(values.length, 'value')}, ${plural(distinct, 'distinct lifted program')}; no proof for every ${open.name} on lifted PTX)`;
  const short = shortKey(open.key, paramNames);
  const decides = decided ? `${open.name} is not inert (${decided}), and ` : '';
  const why = `lifted PTX has no proof for every value: ${decides}the lifter runs the kernel at one value at a time, and nothing shows yet that what it records is periodic in ${open.name} (docs/ptx.md)`;
  const stats = sumStats(checked.map((c) => c.report.stats));
  const shownAt = first ?? (stoppedBy ? checked.find((c) => c.report === stoppedBy) : undefined) ?? checked[checked.length - 1]!;
  const notes = [
    `${open.name}${short === open.name ? '' : ` (${short})`} was checked at ${plural(values.length, 'value')}; equal lifted programs were checked once (${distinct} distinct)`,
    ...launchNotes([shownAt.point], shownAt.point, paramNames),
    ...(refused.length > 0 ? [`not lifted (not checked): ${refused.slice(0, 3).join('; ')}${refused.length > 3 ? ', …' : ''}`] : []),
    ...(tooBig !== undefined ? [`the scan ends below ${open.name} = ${tooBig}: that run records more than ${(options.maxEvents ?? MAX_EVENTS).toLocaleString('en-US')} operations (the sweep's budget)`] : []),
    ...(tooBig === undefined && performance.now() - started >= budgetMs && !first && !stoppedBy ? [`the time budget ended the scan at ${open.name} = ${values[values.length - 1]}`] : []),
  ];
  if (first) {
    const below = values.filter((v) => v < first.value);
    const violations = first.report.violations.map((v) => ({ ...v, message: `with ${open.name} = ${first.value}: ${v.message}` }));
    return {
      report: {
        ...first.report,
        violations,
        stats,
        scope,
        notes: [
          `${open.name} = ${first.value} is the smallest value checked that has the violation${below.length > 0 ? ` (below it, ${describeValues(below)} ${doubleInit ? 'had the double init only, the rest verified' : 'verified'})` : ''}`,
          ...notes,
          ...(first.report.notes ?? []),
        ],
      },
      program: first.point.program,
      value: first.value,
    };
  }
  if (doubleInit) {
    // the double init, found at every value checked; past it, what the scan found (nothing: the
    // rest verified at each value, or it stopped as said)
    const past = stoppedBy ? `past it the scan stopped at an inconclusive value` : `past it the rest verified at every value checked, ${open.name} ∈ {${shown}}`;
    return {
      report: { ...doubleInit.report, stats, scope, notes: [`${open.name} = ${doubleInit.value} is the smallest value checked with the double init; ${past}`, ...notes, ...(doubleInit.report.notes ?? [])] },
      program: doubleInit.point.program,
      value: doubleInit.value,
    };
  }
  if (stoppedBy) {
    return { report: { ...stoppedBy, stats, scope, notes: [...notes, ...(stoppedBy.notes ?? [])] }, program: shownAt.point.program, value: shownAt.value };
  }
  return {
    report: {
      ...shownAt.report,
      verdict: 'inconclusive',
      violations: [],
      stats,
      limit: { reason: 'bound', message: `verified for ${open.name} ∈ {${shown}} only, not for every ${open.name}: ${why}` },
      scope,
      notes,
    },
    program: shownAt.point.program,
    value: shownAt.value,
  };
}

/**
 * The report for an inert open value: the program lifted at its least value is the program at
 * every value, so its verdict — verified, or a violation shown at the least value — is for all.
 */
function inertValue(open: OpenLaunchValue, least: bigint, once: { point: LaunchPoint; report: Report }, paramNames: readonly string[]): { report: Report; program: Program; value: bigint } {
  const short = shortKey(open.key, paramNames);
  const r = once.report;
  const scope = `for every value of ${open.name} (inert: every value lifts to the same program)`;
  const notes = [
    `${open.name}${short === open.name ? '' : ` (${short})`} is inert: a forward slice over the PTX from every load of it reaches no branch, guard, address the lifter records or synchronizing operand, so every value runs the same instructions and lifts to the same program; it was checked once, at ${open.name} = ${least}`,
    ...launchNotes([once.point], once.point, paramNames),
    ...(r.notes ?? []),
  ];
  const violations = r.violations.map((v) => ({ ...v, message: `with ${open.name} = ${least} (and every other value): ${v.message}` }));
  return { report: { ...r, violations, scope, notes }, program: once.point.program, value: least };
}

/** The least value, every value up to DENSE above it, then the ladder's steps above that, to TOP. */
function scanValues(min: bigint): bigint[] {
  const out: bigint[] = [];
  for (let v = min; v < min + DENSE && v <= TOP; v++) out.push(v);
  for (const v of LADDER) if (v >= min + DENSE && v <= TOP) out.push(v);
  return out;
}

/** `1..8, 12, 16, …`: runs of consecutive values shortened. */
function describeValues(values: readonly bigint[]): string {
  const parts: string[] = [];
  for (let i = 0; i < values.length; ) {
    let j = i;
    while (j + 1 < values.length && values[j + 1] === values[j]! + 1n) j++;
    parts.push(j - i >= 2 ? `${values[i]}..${values[j]}` : values.slice(i, j + 1).join(', '));
    i = j + 1;
  }
  return parts.join(', ');
}

/**
 * The one launch value `options.params` leaves open (`NAME=any`, `NAME=any>=N`), resolved against
 * the kernel, and the options without it; undefined when none is.
 */
export function openLaunchValue(module: PtxModule, options: LiftOptions): { open: OpenLaunchValue; rest: LiftOptions } | undefined {
  let found: OpenLaunchValue | undefined;
  const rest = new Map<string, number | bigint | string>();
  const kernel = pickKernel(module, options.kernel);
  for (const [name, value] of options.params ?? []) {
    const min = typeof value === 'string' ? parseAnyValue(value, `--param ${name}`) : undefined;
    if (min === undefined) {
      rest.set(name, value);
      continue;
    }
    if (found) throw new InputError(`--param ${name}=any: only one launch value can be left open (${found.name} already is)`);
    const { key } = parseLaunchParam(kernel, name, String(min));
    found = { key, name, min };
  }
  if (!found) return undefined;
  const { key } = found;
  for (const [name, value] of rest) {
    if (parseLaunchParam(kernel, name, String(value)).key === key) throw new InputError(`--param ${name} is given twice: once as a value and once as 'any'`);
  }
  const { params: _all, ...others } = options;
  return { open: found, rest: { ...others, ...(rest.size > 0 ? { params: rest } : {}) } };
}
