// The explorer's own speed, as issue 9 measures it: (1) both tools without partial-order
// reduction on the two named instances (arefcheck `reduction: false`, pan built with -DNOREDUCE):
// states per second, bytes per state, time to verdict; (2) the largest consumer count each tool
// verifies within 60 s (D = 2C, P = 1, K = 64, reduction on in both; arefcheck also without).
import type { Level } from '../src/ir/program.ts';
import { PIPELINE_MAX, pipelineProgram } from '../src/pipeline.ts';
import { pipelineForKernel, withoutReads } from '../src/ptx/emit/index.ts';
import { verifyProgram, type Report } from '../src/verify.ts';
import type { SpinInstance, SpinResult, SpinRunner } from './spin.ts';

export interface RawRow {
  readonly instance: SpinInstance;
  readonly arefcheck: Report;
  /** the same run with collapse compression */
  readonly collapsed: Report;
  readonly spin?: SpinResult;
}

/** aref D4 P1 C2 K1024 and mbarrier D4 P1 C1 K4096 (issue 9), plus mbarrier C2 K1024. */
export const RAW_INSTANCES: readonly SpinInstance[] = [
  { level: 'aref', depth: 4, pending: 1, consumers: 2, iterations: 1024, reduction: false },
  { level: 'mbarrier', depth: 4, pending: 1, consumers: 1, iterations: 4096, reduction: false },
  { level: 'mbarrier', depth: 4, pending: 1, consumers: 2, iterations: 1024, reduction: false },
];

const programOf = (i: SpinInstance) => pipelineProgram({ depth: i.depth, pending: i.pending, consumers: i.consumers, iterations: i.iterations, level: i.level });

export async function benchRaw(runner: SpinRunner | undefined): Promise<RawRow[]> {
  const rows: RawRow[] = [];
  for (const instance of RAW_INSTANCES) {
    const arefcheck = verifyProgram(programOf(instance), { level: instance.level, reduction: false, collapse: false });
    const collapsed = verifyProgram(programOf(instance), { level: instance.level, reduction: false, collapse: true });
    rows.push({ instance, arefcheck, collapsed, ...(runner ? { spin: await runner.verify(instance) } : {}) });
  }
  return rows;
}

const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');
const ratio = (x: number): string => (x >= 10 ? `${Math.round(x)}×` : `${x.toFixed(2)}×`);

export function rawTable(rows: readonly RawRow[]): string[] {
  const lines = [
    '| level | D | P | C | K | verdict | arefcheck states | ms | states/s | B/state | with collapse: ms | B/state | SPIN states | pan s | pan wall ms | SPIN states/s | SPIN B/state stored | SPIN B/state total | states/s ratio | B/state ratio (stored) | with collapse | time ratio | with collapse |',
    '|---|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const { instance: c, arefcheck: a, collapsed, spin: s } of rows) {
    const st = a.stats;
    const co = collapsed.stats;
    if (co.states !== st.states || collapsed.verdict !== a.verdict) throw new Error(`collapse changed the run of ${c.level} D${c.depth} C${c.consumers} K${c.iterations}`);
    const spinRate = s && s.panSeconds > 0 ? s.states / s.panSeconds : undefined;
    const cells = s
      ? [
          fmt(s.states),
          s.panSeconds.toFixed(2),
          fmt(s.runMs),
          spinRate ? fmt(spinRate) : '—',
          s.storedBytesPerState !== undefined ? fmt(s.storedBytesPerState) : '—',
          s.totalBytes !== undefined ? fmt(s.totalBytes / s.states) : '—',
          spinRate ? ratio(st.statesPerSecond / spinRate) : '—',
          s.storedBytesPerState ? ratio(st.bytesPerState / s.storedBytesPerState) : '—',
          s.storedBytesPerState ? ratio(co.bytesPerState / s.storedBytesPerState) : '—',
          ratio(st.ms / s.runMs),
          ratio(co.ms / s.runMs),
        ]
      : ['(no spin)', '', '', '', '', '', '', '', '', '', ''];
    lines.push(`| ${c.level} | ${c.depth} | ${c.pending} | ${c.consumers} | ${c.iterations} | ${a.verdict}${s && s.verdict !== a.verdict ? ` (SPIN: ${s.verdict})` : ''} | ${fmt(st.states)} | ${fmt(st.ms)} | ${fmt(st.statesPerSecond)} | ${fmt(st.bytesPerState)} | ${fmt(co.ms)} | ${fmt(co.bytesPerState)} | ${cells.join(' | ')} |`);
  }
  return lines;
}

export interface ScaleRow {
  readonly level: Level;
  readonly consumers: number;
  readonly arefcheck?: Report;
  /** the same without reduction */
  readonly arefcheckNoPor?: Report;
  /** pan's result, or 'timeout' when it ran past the limit */
  readonly spin?: SpinResult | 'timeout';
  /** C is past what one CTA holds (PIPELINE_MAX.consumers): the family has no such program */
  readonly inexpressible?: boolean;
}

export const SCALE_LIMIT_MS = 60_000;
const SCALE_MAX_BYTES = 16 * 2 ** 30;
/**
 * SPIN's own limits on this machine class (issue 9) are aref C = 8, mbarrier C = 6; each level goes
 * one past what a CTA holds (PIPELINE_MAX.consumers = 7), so the largest C either tool reaches is in
 * the table.
 */
const SCALE_TOP: Readonly<Record<Level, number>> = { aref: 8, mbarrier: 8 };

/** C = 1, 2, … at each level until a tool fails to verify within the limit (each tool on its own). */
export async function benchScale(runner: SpinRunner | undefined): Promise<ScaleRow[]> {
  const rows: ScaleRow[] = [];
  for (const level of ['aref', 'mbarrier'] as const) {
    let arefcheckOn = true;
    let noPorOn = true;
    let spinOn = runner !== undefined;
    for (let consumers = 1; consumers <= SCALE_TOP[level] && (arefcheckOn || noPorOn || spinOn); consumers++) {
      const instance: SpinInstance = { level, depth: 2 * consumers, pending: 1, consumers, iterations: 64 };
      // a consumer warpgroup is 4 warps and a CTA holds 32: SPIN's model has no such limit
      const inexpressible = consumers > PIPELINE_MAX.consumers;
      let arefcheck: Report | undefined;
      if (arefcheckOn && !inexpressible) {
        arefcheck = verifyProgram(programOf(instance), { level, maxMs: SCALE_LIMIT_MS, maxBytes: SCALE_MAX_BYTES });
        arefcheckOn = arefcheck.verdict === 'verified';
      }
      let arefcheckNoPor: Report | undefined;
      if (noPorOn && !inexpressible) {
        arefcheckNoPor = verifyProgram(programOf(instance), { level, maxMs: SCALE_LIMIT_MS, maxBytes: SCALE_MAX_BYTES, reduction: false });
        noPorOn = arefcheckNoPor.verdict === 'verified';
      }
      let spin: SpinResult | 'timeout' | undefined;
      if (spinOn && runner) {
        spin = await runner.verify(instance, SCALE_LIMIT_MS);
        spinOn = spin !== 'timeout' && spin.verdict === 'verified';
      }
      rows.push({ level, consumers, ...(arefcheck ? { arefcheck } : {}), ...(arefcheckNoPor ? { arefcheckNoPor } : {}), ...(spin ? { spin } : {}), ...(inexpressible ? { inexpressible } : {}) });
    }
  }
  return rows;
}

export function scaleTable(rows: readonly ScaleRow[]): string[] {
  const largest = (level: Level, ok: (r: ScaleRow) => boolean): string => {
    const cs = rows.filter((r) => r.level === level && ok(r)).map((r) => r.consumers);
    return cs.length === 0 ? 'none' : `C = ${Math.max(...cs)}`;
  };
  const aOk = (r: ScaleRow): boolean => r.arefcheck?.verdict === 'verified';
  const nOk = (r: ScaleRow): boolean => r.arefcheckNoPor?.verdict === 'verified';
  const sOk = (r: ScaleRow): boolean => r.spin !== undefined && r.spin !== 'timeout' && r.spin.verdict === 'verified' && r.spin.runMs <= SCALE_LIMIT_MS;
  const lines = [
    `Largest C verified within ${SCALE_LIMIT_MS / 1000} s: aref level arefcheck ${largest('aref', aOk)} (without reduction ${largest('aref', nOk)}), SPIN ${largest('aref', sOk)}; ` +
      `mbarrier level arefcheck ${largest('mbarrier', aOk)} (without reduction ${largest('mbarrier', nOk)}), SPIN ${largest('mbarrier', sOk)}.`,
    '',
    '| level | C | D | arefcheck | states | ms | B/state | arefcheck without reduction | states | ms | SPIN | SPIN states | pan wall ms |',
    '|---|---|---|---|---:|---:|---:|---|---:|---:|---|---:|---:|',
  ];
  for (const r of rows) {
    const a = r.arefcheck;
    const notRun = r.inexpressible ? `(C > ${PIPELINE_MAX.consumers}: past a CTA's 32 warps)` : '(not run)';
    const aCells = a ? [a.verdict, fmt(a.stats.states), fmt(a.stats.ms), fmt(a.stats.bytesPerState)] : [notRun, '', '', ''];
    const n = r.arefcheckNoPor;
    const nCells = n ? [n.verdict, fmt(n.stats.states), fmt(n.stats.ms)] : [notRun, '', ''];
    const s = r.spin;
    const sCells = s === undefined ? ['(not run)', '', ''] : s === 'timeout' ? [`past ${SCALE_LIMIT_MS / 1000} s`, '', ''] : [s.verdict, fmt(s.states), fmt(s.runMs)];
    lines.push(`| ${r.level} | ${r.consumers} | ${2 * r.consumers} | ${aCells.join(' | ')} | ${nCells.join(' | ')} | ${sCells.join(' | ')} |`);
  }
  return lines;
}

/**
 * The persistent 8192³ GEMM schedule the GPU build emits (gpu/build.ts `persistent`: 128×256×64
 * cooperative tiles, D4 P0 C2, 16 output tiles per CTA × 128 k-tiles, no consumer reads), with and
 * without reduction, under the GPU build's own 120 s limit.
 */
export interface PersistentRuns {
  readonly reduced: Report;
  readonly reducedNoSymmetry: Report;
  readonly full: Report;
  readonly fullNoSymmetry: Report;
}

export function benchPersistent(): PersistentRuns {
  const program = withoutReads(pipelineForKernel({ depth: 4, pending: 0, consumers: 2, iterations: 8192 / 64, tiles: 16 }, { kernel: 'gemm', tile: '128x256x64', cooperative: true, persistent: true }));
  const run = (reduction: boolean, symmetry: boolean): Report => verifyProgram(program, { maxMs: 120_000, reduction, symmetry });
  return { reduced: run(true, true), reducedNoSymmetry: run(true, false), full: run(false, true), fullNoSymmetry: run(false, false) };
}

export function persistentTable(r: PersistentRuns): string[] {
  const row = (what: string, x: Report): string => `| ${what} | ${x.verdict} | ${fmt(x.stats.states)} | ${fmt(x.stats.ms)} | ${fmt(x.stats.bytesPerState)} |`;
  return [
    '| persistent 8192³ schedule | verdict | states | ms | B/state |',
    '|---|---|---:|---:|---:|',
    row('reduction and symmetry on (the defaults)', r.reduced),
    row('reduction on, symmetry off', r.reducedNoSymmetry),
    row('reduction off, symmetry on', r.full),
    row('reduction and symmetry off', r.fullNoSymmetry),
  ];
}
