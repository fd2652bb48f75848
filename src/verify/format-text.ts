// The verification report for people: a verdict line in colour, the exploration figures, then
// each violation with its kind, message and trace as a numbered table (step, actor, action,
// changes, source line); the repeating part of a termination lasso is marked.
import { Chalk, type ChalkInstance } from 'chalk';
import { nothingChecked, type PropertyStatus } from './properties.ts';
import type { Report, TraceEntry, ViolationReport } from './report.ts';
import { violationLevels } from './trace-json.ts';
import { maxOf, pushAll } from '../util.ts';

export interface TextOptions {
  readonly color: boolean;
  /** What was checked, for the verdict line: a file name, or a description. */
  readonly program: string;
}

const n = (x: number): string => Math.round(x).toLocaleString('en-US');

/** `states 90 · transitions 130 · 19 ms · 4,635 states/s · 297 B/state` */
export function formatStats(stats: Report['stats']): string {
  return `states ${n(stats.states)} · transitions ${n(stats.transitions)} · ${n(stats.ms)} ms · ${n(stats.statesPerSecond)} states/s · ${n(stats.bytesPerState)} B/state`;
}

function levelWords(level: string): string {
  return level === 'both' ? 'at the aref and mbarrier levels' : `at the ${level} level`;
}

export function formatVerdictLine(report: Report, program: string, c: ChalkInstance): string {
  const where = `${program} ${levelWords(report.level)}${report.scope ? ` ${report.scope}` : ''}`;
  if (report.verdict === 'verified' && nothingChecked(report.properties))
    return `${c.yellow.bold('○ vacuous')}  ${where}: nothing to check, the program has no synchronization (every property is vacuous)`;
  if (report.verdict === 'verified') return `${c.green.bold('✔ verified')}  ${where}: every reachable state explored, no violation`;
  if (report.verdict === 'inconclusive') return `${c.yellow.bold('? inconclusive')}  ${where}: ${report.limit?.message ?? 'a limit was reached'}`;
  const count = report.violations.length;
  const kinds = [...new Set(report.violations.map((v) => v.kind))].join(', ');
  return `${c.red.bold('✘ violation')}  ${where}: ${count} violation${count === 1 ? '' : 's'} (${kinds})`;
}

export function formatReportText(report: Report, options: TextOptions): string {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  const lines = [formatVerdictLine(report, options.program, c), c.dim(`  ${formatStats(report.stats)}`)];
  const levels: unknown = (report as { readonly levels?: unknown }).levels;
  if (Array.isArray(levels)) {
    for (const r of levels as readonly Report[]) lines.push(c.dim(`  ${r.level}: ${r.verdict}, ${formatStats(r.stats)}`));
  }
  lines.push(...formatProperties(report.properties, c));
  for (const note of report.notes ?? []) lines.push(c.dim(`  note: ${note}`));
  const at = report.level === 'both' ? violationLevels(report) : [];
  report.violations.forEach((v, i) => pushAll(lines, ['', ...formatViolation(v, c, at[i])]));
  return `${lines.join('\n')}\n`;
}

/** `checked: deadlock, race` / `vacuous: fifo (why)` / `not applicable: refinement (why)`, one line each. */
export function formatProperties(properties: readonly PropertyStatus[], c: ChalkInstance): string[] {
  const out: string[] = [];
  const checked = properties.filter((p) => p.status === 'checked').map((p) => p.kind);
  if (checked.length > 0) out.push(c.dim(`  checked: ${checked.join(', ')}`));
  for (const status of ['vacuous', 'not applicable'] as const) {
    for (const p of properties.filter((q) => q.status === status)) out.push(c.dim(`  ${status}: ${p.kind}${p.reason ? ` (${p.reason})` : ''}`));
  }
  return out;
}

/** `level`: named in the heading when the report covers both levels. */
export function formatViolation(v: ViolationReport, c: ChalkInstance, level?: string): string[] {
  // `file:line:col: error: …` first, as compilers print it, so editors' problem matchers find it
  const where = v.loc?.file ? `${v.loc.file}:${v.loc.line}:${v.loc.col}: error: ` : '';
  const line = v.loc && !v.loc.file ? ` at line ${v.loc.line}` : '';
  const steps = v.trace.length;
  const head = `${where}${c.red.bold(v.kind)}${level ? ` at the ${level} level` : ''}${line} after ${steps} step${steps === 1 ? '' : 's'}`;
  const message = v.message.split('\n').map((line) => `  ${line}`);
  return pushAll([head, ...message], formatTraceTable(markViolation(v.trace, v.kind, v.message), c, v.loopStart));
}

/** The violation's own message is printed beside the table: in the table a short mark is enough. */
export function markViolation(trace: readonly TraceEntry[], kind: string, message: string): TraceEntry[] {
  const mark = (x: string): string => (x.startsWith(`${kind}: `) && message.endsWith(x.slice(kind.length + 2)) ? `→ ${kind}` : x);
  return trace.map((t) => ({ ...t, changes: t.changes.map(mark) }));
}

const CHANGES_WIDTH = 40;

/** The trace as a table; `loopStart`: the steps after it repeat forever (a termination lasso). */
export function formatTraceTable(trace: readonly TraceEntry[], c: ChalkInstance, loopStart?: number): string[] {
  if (trace.length === 0) return [c.dim('  (the initial state already shows it)')];
  const rows = trace.map((t) => ({
    step: String(t.step),
    actor: t.actor,
    action: t.action,
    changes: t.changes.join('; '),
    line: t.loc ? String(t.loc.line) : '',
  }));
  const header = { step: 'step', actor: 'actor', action: 'action', changes: 'changes', line: 'line' };
  const width = (key: keyof typeof header): number => maxOf(rows.map((r) => r[key].length), header[key].length);
  // a long change list overflows its column rather than pushing every line number far right
  const w = { step: width('step'), actor: width('actor'), action: width('action'), changes: Math.min(CHANGES_WIDTH, width('changes')) };
  const row = (r: typeof header, paint: (s: string) => string = (s) => s): string =>
    `  ${c.dim(r.step.padStart(w.step))}  ${paint(r.actor.padEnd(w.actor))}  ${r.action.padEnd(w.action)}  ${r.changes.padEnd(w.changes)}  ${c.dim(r.line)}`.trimEnd();
  const out = ['', c.dim(row(header))];
  for (const [i, r] of rows.entries()) {
    if (loopStart !== undefined && i === loopStart) {
      out.push(c.magenta(`  ↻ cycle: steps ${loopStart + 1}–${rows.length} return to the state after step ${loopStart} and repeat forever`));
    }
    out.push(row(r, c.cyan));
  }
  return out;
}
