// A proof for every K against one large K: time and states of `--param K=any` and of K = 4096 on
// the examples and on pipeline-family instances. Importable by bench/run.ts (`benchEveryK`) and
// runnable alone: `node --import tsx bench/every-k.ts`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { verifyEveryK } from '../src/every-k/verify.ts';
import type { Program } from '../src/ir/program.ts';
import { parseAref } from '../src/lang/index.ts';
import { lowerProgram } from '../src/lower.ts';
import { pipelineProgram } from '../src/pipeline.ts';
import { verifyProgram, type Report } from '../src/verify.ts';

const ROOT = join(import.meta.dirname, '..');
const BIG_K = 4096;

interface Instance {
  readonly name: string;
  readonly program: Program;
}

function instances(): Instance[] {
  const file = (f: string): Instance => ({ name: f, program: parseAref(readFileSync(join(ROOT, f), 'utf8'), f) });
  const family = (d: number, p: number, c: number, level: 'aref' | 'mbarrier'): Instance => {
    const program = pipelineProgram({ depth: d, pending: p, consumers: c, iterations: 8, level: 'aref' });
    return { name: `family D${d} P${p} C${c} ${level}`, program: level === 'aref' ? program : lowerProgram(program) };
  };
  return [
    file('examples/double-buffer.aref'),
    file('examples/double-buffer-mbar.aref'),
    file('examples/depth-equals-pending.aref'),
    family(4, 1, 1, 'aref'),
    family(4, 1, 1, 'mbarrier'),
    family(4, 1, 2, 'aref'),
    family(4, 1, 2, 'mbarrier'),
  ];
}

export interface EveryKRow {
  readonly name: string;
  readonly any: Report;
  readonly big: Report;
}

export function benchEveryK(): EveryKRow[] {
  return instances().map(({ name, program }) => ({
    name,
    any: verifyEveryK(program, { param: 'K' }),
    big: verifyProgram(program, { params: new Map([['K', BIG_K]]), everyK: false }),
  }));
}

const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');

function verdict(r: Report): string {
  const at = r.violations.map((v) => `${v.kind}${v.params?.['K'] !== undefined ? ` at K = ${v.params['K']}` : ''}`).join(', ');
  return `${r.verdict}${at ? ` (${at})` : ''}`;
}

export function everyKTable(rows: readonly EveryKRow[]): string[] {
  return [
    `| program | K=any | states | ms | K = ${BIG_K} | states | ms | time ratio any / ${BIG_K} |`,
    '|---|---|---:|---:|---|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${verdict(r.any)} | ${fmt(r.any.stats.states)} | ${fmt(r.any.stats.ms)} | ${verdict(r.big)} | ${fmt(r.big.stats.states)} | ${fmt(r.big.stats.ms)} | ${(r.any.stats.ms / Math.max(1, r.big.stats.ms)).toFixed(3)} |`,
    ),
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) console.log(everyKTable(benchEveryK()).join('\n'));
