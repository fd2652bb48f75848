// Symmetry reduction on cooperative consumers (every consumer reads every stage, so the consumers
// run the same code and are interchangeable): the largest consumer count each setting verifies
// within the scale limit, D = 2C, P = 1, K = 64, mbarrier level, partial-order reduction on.
import { PIPELINE_MAX, pipelineProgram } from '../src/pipeline.ts';
import { verifyProgram, type Report } from '../src/verify.ts';
import { SCALE_LIMIT_MS } from './raw.ts';

export interface SymmetryRow {
  readonly consumers: number;
  readonly symmetric?: Report;
  readonly plain?: Report;
}

export function benchSymmetry(): SymmetryRow[] {
  const rows: SymmetryRow[] = [];
  let symOn = true;
  let plainOn = true;
  for (let consumers = 1; consumers <= PIPELINE_MAX.consumers && (symOn || plainOn); consumers++) {
    const program = pipelineProgram({ depth: 2 * consumers, pending: 1, consumers, iterations: 64, level: 'mbarrier', cooperative: true });
    const run = (symmetry: boolean): Report => verifyProgram(program, { maxMs: SCALE_LIMIT_MS, symmetry });
    const symmetric: Report | undefined = symOn ? run(true) : undefined;
    const plain: Report | undefined = plainOn ? run(false) : undefined;
    if (symmetric && plain && symmetric.verdict !== plain.verdict && symmetric.verdict !== 'inconclusive' && plain.verdict !== 'inconclusive') {
      throw new Error(`symmetry changed the verdict of cooperative C = ${consumers}`);
    }
    symOn = symmetric?.verdict === 'verified';
    plainOn = plain?.verdict === 'verified';
    rows.push({ consumers, ...(symmetric ? { symmetric } : {}), ...(plain ? { plain } : {}) });
  }
  return rows;
}

const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');

export function symmetryTable(rows: readonly SymmetryRow[]): string[] {
  const largest = (pick: (r: SymmetryRow) => Report | undefined): string => {
    const cs = rows.filter((r) => pick(r)?.verdict === 'verified').map((r) => r.consumers);
    return cs.length === 0 ? 'none' : `C = ${Math.max(...cs)}`;
  };
  const cells = (r: Report | undefined): string => (r ? `${r.verdict} | ${fmt(r.stats.states)} | ${fmt(r.stats.ms)}` : '(not run) | |');
  return [
    `Largest C verified within ${SCALE_LIMIT_MS / 1000} s: with symmetry ${largest((r) => r.symmetric)}, without (\`--no-symmetry\`) ${largest((r) => r.plain)}.`,
    '',
    '| C | D | with symmetry | states | ms | without | states | ms |',
    '|---|---|---|---:|---:|---|---:|---:|',
    ...rows.map((r) => `| ${r.consumers} | ${2 * r.consumers} | ${cells(r.symmetric)} | ${cells(r.plain)} |`),
  ];
}
