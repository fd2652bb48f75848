// `npm run bench`: arefcheck against SPIN on the Tawa pipeline family (both levels, the same
// instances, in the same run), then the explorer's toy benchmark (bench/explorer.ts) and, when
// bench/lift.ts exists, the PTX lift benchmark. Prints markdown tables; with `--out FILE` it also
// writes them, with the command, date and machine, to FILE (docs/bench.md is made that way).
//
//   npm run bench                          print
//   npm run bench -- --out docs/bench.md   print and write the page
//   npm run bench -- --quick               only K = 64 (a smoke run)
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Level } from '../src/ir/program.ts';
import { pipelineProgram } from '../src/pipeline.ts';
import { verifyProgram, type Report } from '../src/verify.ts';
import { galleryEntries, verifyEntry } from '../scripts/regen-traces.ts';
import { benchExplorer } from './explorer.ts';
import { benchEveryK, everyKTable } from './every-k.ts';
import { SpinRunner, spinTools, type SpinInstance, type SpinResult } from './spin.ts';
import { benchPersistent, benchRaw, benchScale, persistentTable, rawTable, scaleTable, SCALE_LIMIT_MS } from './raw.ts';
import { benchSymmetry, symmetryTable } from './symmetry.ts';

const HERE = dirname(fileURLToPath(import.meta.url));

export interface PipelineBenchRow {
  readonly instance: SpinInstance;
  /** the explorer on the instance itself (\`everyK: false\`) */
  readonly arefcheck: Report;
  /** verifyProgram's default route: for K ≥ 1,024 first a proof for every K (src/every-k/covering.ts) */
  readonly routed: Report;
  readonly spin?: SpinResult;
}

/** pan's clock ticks in 10 ms: rates from fewer ticks than this are not quoted in the summary. */
const MIN_PAN_SECONDS = 0.05;

const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');
const fmt1 = (x: number): string => (x >= 100 ? fmt(x) : x.toFixed(1));

/** The instances: D = 4 (a depth both C = 1 and C = 2 verify with), P = 1; K = 4096 for C = 1 only, so that pan's clock reads more than a few ticks. */
export function benchInstances(quick: boolean): SpinInstance[] {
  const out: SpinInstance[] = [];
  for (const level of ['aref', 'mbarrier'] as const satisfies readonly Level[])
    for (const consumers of [1, 2])
      for (const iterations of quick ? [64] : consumers === 1 ? [64, 256, 1024, 4096] : [64, 256, 1024]) out.push({ level, depth: 4, pending: 1, consumers, iterations });
  return out;
}

/** arefcheck on every instance (one at a time, in this process), SPIN on every instance (two pan processes at a time, after). */
export async function benchPipelines(instances: readonly SpinInstance[]): Promise<PipelineBenchRow[]> {
  // warm-up (JIT), not measured, on instances that are not in the tables (D = 6, C = 2): each level, the
  // explorer with and without reduction and the proof for every K, so that no measured figure pays
  // for compiling the code it runs (pan's compile is reported apart too)
  for (const level of ['aref', 'mbarrier'] as const) {
    const warm = (iterations: number) => pipelineProgram({ depth: 6, pending: 1, consumers: 2, iterations, level });
    verifyProgram(warm(32), { level, everyK: false });
    verifyProgram(warm(32), { level, reduction: false });
    verifyProgram(warm(1024), { level });
  }
  const programOf = (inst: SpinInstance) => pipelineProgram({ depth: inst.depth, pending: inst.pending, consumers: inst.consumers, iterations: inst.iterations, level: inst.level });
  const reports = instances.map((inst) => verifyProgram(programOf(inst), { level: inst.level, everyK: false }));
  const routed = instances.map((inst) => verifyProgram(programOf(inst), { level: inst.level }));
  for (const [i, r] of routed.entries()) if (r.verdict !== reports[i]!.verdict) throw new Error(`bench: the default route and the explorer disagree on instance ${i}`);
  const tools = spinTools();
  if (!tools.spin || !tools.gcc) return instances.map((instance, i) => ({ instance, arefcheck: reports[i]!, routed: routed[i]! }));
  const work = mkdtempSync(join(tmpdir(), 'arefcheck-bench-'));
  try {
    // one pan at a time while timing: two would share the machine's cores with each other
    const runner = new SpinRunner(work, 1);
    const spin: SpinResult[] = [];
    for (const inst of instances) spin.push(await runner.verify(inst));
    return instances.map((instance, i) => ({ instance, arefcheck: reports[i]!, routed: routed[i]!, spin: spin[i]! }));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export function pipelineTable(rows: readonly PipelineBenchRow[]): string[] {
  const lines = [
    '| level | D | P | C | K | arefcheck verdict | states | transitions | ms | states/s | B/state | SPIN verdict | SPIN states | SPIN transitions | pan s | SPIN states/s | pan wall ms | SPIN compile ms | time ratio | states ratio | default route | states | ms | time ratio |',
    '|---|---|---|---|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|',
  ];
  for (const { instance: c, arefcheck: a, routed: d, spin: s } of rows) {
    const st = a.stats;
    const spinCells = s
      ? [s.verdict, fmt(s.states), fmt(s.transitions), s.panSeconds.toFixed(2), s.panSeconds > 0 ? fmt(s.states / s.panSeconds) : '—', fmt(s.runMs), fmt(s.compileMs), `${fmt1(st.ms / s.runMs)}×`, `${(st.states / s.states).toFixed(1)}×`]
      : ['(no spin)', '', '', '', '', '', '', '', ''];
    const route = d.notes?.some((n) => / is covered by a proof for every /.test(n)) ? 'proof for every K' : 'K explored';
    const routeCells = [route, fmt(d.stats.states), fmt(d.stats.ms), s ? `${fmt1(d.stats.ms / s.runMs)}×` : ''];
    lines.push(`| ${c.level} | ${c.depth} | ${c.pending} | ${c.consumers} | ${c.iterations} | ${a.verdict} | ${fmt(st.states)} | ${fmt(st.transitions)} | ${fmt(st.ms)} | ${fmt(st.statesPerSecond)} | ${fmt(st.bytesPerState)} | ${spinCells.join(' | ')} | ${routeCells.join(' | ')} |`);
  }
  return lines;
}

/** One paragraph of ranges computed from the rows (so that the page's prose cannot drift from its table). */
export function pipelineSummary(rows: readonly PipelineBenchRow[]): string {
  const range = (xs: readonly number[], f: (x: number) => string): string => {
    if (xs.length === 0) return '—';
    const [lo, hi] = [f(Math.min(...xs)), f(Math.max(...xs))];
    return lo === hi ? lo : `${lo}–${hi}`;
  };
  const a = rows.map((r) => r.arefcheck.stats);
  const withSpin = rows.filter((r): r is PipelineBenchRow & { spin: SpinResult } => r.spin !== undefined);
  const timed = withSpin.filter((r) => r.spin.panSeconds >= MIN_PAN_SECONDS);
  const agree = withSpin.every((r) => r.spin.verdict === r.arefcheck.verdict);
  const x1 = (x: number): string => x.toFixed(1);
  return [
    `arefcheck's explorer: ${range(a.map((s) => s.statesPerSecond), fmt)} states/s, ${range(a.map((s) => s.bytesPerState), fmt)} bytes/state.`,
    withSpin.length === 0
      ? 'SPIN: not run.'
      : `SPIN: ${range(timed.map((r) => r.spin.states / r.spin.panSeconds), fmt)} states/s by pan's own clock (instances where it read at least ${MIN_PAN_SECONDS * 1000} ms); ` +
        `arefcheck stores ${range(withSpin.map((r) => r.arefcheck.stats.states / r.spin.states), x1)}× SPIN's states and takes ${range(withSpin.map((r) => r.arefcheck.stats.ms / r.spin.runMs), x1)}× the wall time of a whole pan process. ` +
        `Verdicts ${agree ? 'agree on every instance' : 'DISAGREE on some instance'}. ` +
        `With the default route (a proof for every K first where K ≥ 1,024) arefcheck takes ${range(withSpin.map((r) => r.routed.stats.ms / r.spin.runMs), x1)}× pan's wall time.`,
  ].join(' ');
}

export interface FamilyRow {
  readonly depth: number;
  readonly pending: number;
  readonly aref: Report;
  /** the aref program lowered, checked with the refinement monitor */
  readonly mbarrier: Report;
}

/** The pipeline family with C = 1 at both levels: D ≤ P must deadlock, D > P must verify. */
export function benchFamily(iterations: number): FamilyRow[] {
  const rows: FamilyRow[] = [];
  for (let depth = 1; depth <= 4; depth++) {
    for (let pending = 0; pending <= 2; pending++) {
      const program = pipelineProgram({ depth, pending, consumers: 1, iterations, level: 'aref' });
      rows.push({ depth, pending, aref: verifyProgram(program, { level: 'aref' }), mbarrier: verifyProgram(program, { level: 'mbarrier' }) });
    }
  }
  return rows;
}

export function familyTable(rows: readonly FamilyRow[]): string[] {
  const cell = (r: Report): string => {
    const kinds = r.violations.map((v) => `${v.kind} after ${v.trace.length} steps`).join(', ');
    return `${r.verdict}${kinds ? ` (${kinds})` : ''} | ${fmt(r.stats.states)} | ${fmt(r.stats.ms)}`;
  };
  return [
    '| D | P | aref level | states | ms | mbarrier level (lowered, refinement monitor) | states | ms |',
    '|---|---|---|---:|---:|---|---:|---:|',
    ...rows.map((r) => `| ${r.depth} | ${r.pending} | ${cell(r.aref)} | ${cell(r.mbarrier)} |`),
  ];
}

/** Every gallery program at its own level: verdict, kinds with trace lengths, states, ms. */
export function galleryTable(): string[] {
  const lines = ['| program | level | verdict | kinds (trace length) | states | ms |', '|---|---|---|---|---:|---:|'];
  for (const e of galleryEntries()) {
    const r = verifyEntry(e);
    const kinds = r.violations.map((v) => `${v.kind} (${v.trace.length})`).join(', ');
    lines.push(`| ${e.name} | ${e.level} | ${r.verdict} | ${kinds} | ${fmt(r.stats.states)} | ${fmt(r.stats.ms)} |`);
  }
  return lines;
}

interface LiftModule {
  benchLift(): unknown;
}

function isLiftModule(x: unknown): x is LiftModule {
  return typeof x === 'object' && x !== null && 'benchLift' in x && typeof x.benchLift === 'function';
}

/** Rows of plain objects as a markdown table (the lift benchmark's shape is its own). */
function objectTable(rows: readonly unknown[]): string[] {
  const records = rows.filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null);
  const first = records[0];
  if (!first) return ['(no rows)'];
  const keys = Object.keys(first);
  const cell = (v: unknown): string => (typeof v === 'number' ? (Number.isInteger(v) ? fmt(v) : v.toFixed(2)) : String(v));
  return [`| ${keys.join(' | ')} |`, `|${keys.map(() => '---').join('|')}|`, ...records.map((r) => `| ${keys.map((k) => cell(r[k])).join(' | ')} |`)];
}

async function liftSection(): Promise<string[]> {
  const path = join(HERE, 'lift.ts');
  if (!existsSync(path)) return ['(bench/lift.ts does not exist yet: no PTX lift figures)'];
  const mod: unknown = await import(pathToFileURL(path).href);
  if (!isLiftModule(mod)) return ['(bench/lift.ts exports no benchLift())'];
  const result: unknown = await mod.benchLift();
  return Array.isArray(result) ? objectTable(result) : objectTable([result]);
}

async function main(argv: readonly string[]): Promise<void> {
  const quick = argv.includes('--quick');
  const outIndex = argv.indexOf('--out');
  const out = outIndex >= 0 ? argv[outIndex + 1] : undefined;
  const started = new Date();
  const load = loadavg().map((x) => x.toFixed(2)).join(' ');
  const tools = spinTools();

  const sections: string[] = [];
  const pipelines = await benchPipelines(benchInstances(quick));
  sections.push('## arefcheck and SPIN on the pipeline family', '', pipelineSummary(pipelines), '', ...pipelineTable(pipelines), '');
  if (!tools.spin || !tools.gcc) sections.push('SPIN or gcc is not installed: no SPIN columns.', '');
  if (!quick) {
    const work = mkdtempSync(join(tmpdir(), 'arefcheck-bench-raw-'));
    try {
      const runner = tools.spin && tools.gcc ? new SpinRunner(work, 1) : undefined;
      sections.push(
        '## Without reduction: the explorer against pan -DNOREDUCE (bench/raw.ts)',
        '',
        'arefcheck `reduction: false` (`--no-por`) and pan built with `-DNOREDUCE`, full explorations in both. arefcheck *B/state*: every typed array of the explorer (compressed states, links, the visited table) over the states. *SPIN B/state stored*: pan\'s "state-vector as stored … + overhead" (its states alone); *total*: pan\'s "total actual memory usage" (its 2^24-slot hash table included) over its states. *B/state ratio* = arefcheck B/state / SPIN B/state stored; *time ratio* = arefcheck ms / pan wall ms. The first arefcheck columns are `--no-collapse` (`collapse: false`); *with collapse*: the same run with collapse compression, the default (the barriers, the happens-before knowledge and the work in flight stored once per distinct value; the same states and verdict, checked by the bench).',
        '',
        ...rawTable(await benchRaw(runner)),
        '',
        `## The largest consumer count verified within ${SCALE_LIMIT_MS / 1000} s (bench/raw.ts)`,
        '',
        'D = 2C, P = 1, K = 64, reduction on in both tools (pan `-DSAFETY`), and arefcheck without it too, with a 16 GiB table limit; each goes up in C until it fails to verify within the limit.',
        '',
        ...scaleTable(await benchScale(runner)),
        '',
        '## The persistent 8192³ GEMM schedule of the GPU build (bench/raw.ts)',
        '',
        '`gpu/run_all.sh build persistent` verifies it before emitting its PTX, within 120 s: 128×256×64 cooperative tiles, D = 4, P = 0, C = 2, 16 output tiles per CTA × 128 k-tiles, the consumers\' reads dropped (`noRead`).',
        '',
        ...persistentTable(benchPersistent()),
        '',
        `## Cooperative consumers and symmetry reduction: the largest C verified within ${SCALE_LIMIT_MS / 1000} s (bench/symmetry.ts)`,
        '',
        'Every consumer reads every stage (CUTLASS\'s cooperative kernel; empty barriers count C), so the consumers run the same code and are interchangeable: with symmetry (the default) each state is stored in one order of them. D = 2C, P = 1, K = 64, mbarrier level, partial-order reduction on; each column goes up in C until it fails to verify within the limit. SPIN\'s models have no cooperative variant.',
        '',
        ...symmetryTable(benchSymmetry()),
        '',
      );
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  const familyK = 64;
  sections.push(
    `## The pipeline family, C = 1, K = ${familyK}, at both levels`,
    '',
    'With K > D, D ≤ P must deadlock and D > P must be verified. "after N steps": the length of the counterexample, a shortest one (BFS).',
    '',
    ...familyTable(benchFamily(familyK)),
    '',
    '## The bug gallery (examples/gallery), each program at its own level',
    '',
    ...galleryTable(),
    '',
  );
  sections.push(
    '## A proof for every K (bench/every-k.ts)',
    '',
    '`verifyEveryK(program, { param: \'K\' })` (`--param K=any`, partial-order reduction on) against one concrete K = 4096. A violation is shown at the smallest K that has it.',
    '',
    ...everyKTable(benchEveryK()),
    '',
  );
  const explorer = await benchExplorer();
  sections.push(
    '## The explorer on toy models (bench/explorer.ts)',
    '',
    '| model | states | ms | states/s | B/state |',
    '|---|---:|---:|---:|---:|',
    ...explorer.map((r) => `| ${r.name} | ${fmt(r.states)} | ${fmt(r.ms)} | ${fmt(r.statesPerSecond)} | ${fmt(r.bytesPerState)} |`),
    '',
    '## PTX lift (bench/lift.ts)',
    '',
    ...(await liftSection()),
    '',
  );
  const text = sections.join('\n');
  console.log(text);
  if (out) {
    const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, load average ${load} at the start`;
    const header = [
      '# Benchmark',
      '',
      `Command: \`npm run bench -- --out ${out}${quick ? ' --quick' : ''}\` (bench/run.ts), run ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
      `Node ${process.version}; ${machine}.`,
      '',
    ];
    // the profile section is written by hand from bench/profile.ts runs: kept across runs
    const kept = existsSync(out) ? handWritten(readFileSync(out, 'utf8')) : '';
    const body = kept ? text.replace('## The explorer on toy models', `${kept}\n\n## The explorer on toy models`) : text;
    writeFileSync(out, `${[...header, BENCH_NOTES, '', body].join('\n').trimEnd()}\n`);
    console.error(`wrote ${out}`);
  }
}

/** The hand-written section of a bench page (bench/profile.ts figures), or '' when it has none. */
function handWritten(page: string): string {
  const at = page.indexOf(PROFILE_HEADING);
  if (at < 0) return '';
  const end = page.indexOf('\n## ', at + PROFILE_HEADING.length);
  return page.slice(at, end < 0 ? undefined : end).trimEnd();
}
const PROFILE_HEADING = "## Where the explorer's time goes (bench/profile.ts)";

/** What the columns mean; written into the page above the tables. */
export const BENCH_NOTES = `How to read the tables:

- **arefcheck**: the explorer on the instance itself,
  \`verifyProgram(pipelineProgram({ depth: D, pending: P, consumers: C, iterations: K, level }), { level, everyK: false })\`
  in this process, one instance at a time, after a warm-up (JIT) that runs each route, with and
  without reduction, on D = 6, C = 2 instances that are in no table; *ms* is the checker's own wall time (exploration,
  invariants and the termination check); *B/state* the explorer's typed arrays divided by the states.
  The mbarrier level is the generated program already lowered (no refinement monitor), as SPIN's
  \`aref_mbar.pml\` is. Partial-order reduction is on (the default; docs/checker.md), as SPIN's is
  (\`-DSAFETY\` keeps it): the state counts are those of the reduced graphs. Collapse compression
  is on too (the default), as SPIN's is not: it changes bytes, not states.
- **SPIN**: \`spin -a -DD=.. -DK=.. -DP=.. -DC=.. aref.pml\` (or \`aref_mbar.pml\`),
  \`gcc -O2 -DSAFETY -o pan pan.c\`, \`./pan -m100000\`, one pan at a time (bench/spin.ts). *pan s* is
  pan's own "elapsed time" (10 ms resolution); *pan wall ms* is the whole \`./pan\` process, which
  includes starting it and allocating its 2^24-slot hash table; *compile ms* is spin -a plus gcc.
- **default route**: the same call without \`everyK: false\`, what \`arefcheck verify\` does: for
  K ≥ 1,024 it first tries a proof for every K (src/every-k/covering.ts, docs/checker.md), which
  covers the instance's K, and explores K itself only when that is no proof. *states* are the
  proof's (or the exploration's), *time ratio* its ms / pan wall ms. The verdicts are the
  explorer's (the bench checks it).
- **time ratio** = arefcheck ms / pan wall ms; **states ratio** = arefcheck states / SPIN states.
  The state counts differ by design: SPIN's models write the slot synchronously inside a d_step and
  use partial-order reduction, while arefcheck interleaves the TMA landings and the wgmma
  retirements as separate actions of the asynchronous units and tracks happens-before knowledge.
- D = 4 for both C = 1 and C = 2 so that every instance is verified (a full exploration in both
  tools; SPIN stops at its first error, so violations would not compare). With D = 3 and C = 2 both
  tools report a violation at the aref level; at the mbarrier level arefcheck reports a race that
  SPIN's \`aref_mbar.pml\` cannot show, because there the producer writes the slot synchronously and
  in order, while a TMA copy lands asynchronously: a consumer one round ahead passes a parity-1 wait
  on a full barrier still in phase 0.
- The machine is shared (2 cores, other work running): figures vary by tens of percent between runs.`;

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await main(process.argv.slice(2));
}
