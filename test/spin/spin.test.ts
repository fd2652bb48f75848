// Cross-check with SPIN (DESIGN.md "Cross-checks with peers"): the Tawa pipeline family with
// D ∈ 1..4, P ∈ 0..2, K ∈ {4, 8}, C = 1, at both levels, checked by arefcheck and by SPIN 6.5 on
// the peer models (copies in test/spin/models). The verdicts must agree: a deadlock is SPIN's
// invalid end state, a race/fifo/protocol violation its assertion violation, verified its 0 errors.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Level } from '../../src/ir/program.ts';
import { pipelineProgram } from '../../src/pipeline.ts';
import { verifyProgram, type Report } from '../../src/verify.ts';
import { instanceKey, SPIN_MODEL, SPIN_MODELS_DIR, SpinRunner, spinTools, type SpinInstance, type SpinResult } from '../../bench/spin.ts';

const tools = spinTools();
const missing = [tools.spin ? '' : 'spin', tools.gcc ? '' : 'gcc'].filter((x) => x !== '');
if (missing.length > 0) {
  console.warn(`NOTICE: the SPIN cross-check (test/spin) is SKIPPED: ${missing.join(' and ')} not found on PATH. Install the Debian package 'spin' (and gcc) to run it; .ci/run does.`);
}

const LEVELS: readonly Level[] = ['aref', 'mbarrier'];
const cases: SpinInstance[] = [];
for (const level of LEVELS)
  for (let depth = 1; depth <= 4; depth++)
    for (let pending = 0; pending <= 2; pending++)
      for (const iterations of [4, 8]) cases.push({ level, depth, pending, consumers: 1, iterations });

type Verdict = 'verified' | 'deadlock' | 'safety' | string;

/** arefcheck's report in SPIN's terms. */
function arefcheckVerdict(report: Report): Verdict {
  if (report.verdict !== 'violation') return report.verdict;
  const kinds = new Set(report.violations.map((v) => v.kind));
  if (kinds.size === 1 && kinds.has('deadlock')) return 'deadlock';
  if ([...kinds].every((k) => k === 'race' || k === 'fifo' || k === 'protocol' || k === 'refinement')) return 'safety';
  return `mixed (${[...kinds].join(', ')})`;
}

const name = (c: SpinInstance): string => `${c.level} D=${c.depth} P=${c.pending} K=${c.iterations} C=${c.consumers}`;

// the '(needs …)' marks let .ci/run accept a skip only where the tool is really missing
describe.skipIf(missing.length > 0)('SPIN cross-check: the pipeline family at both levels (needs spin) (needs gcc)', () => {
  const spin = new Map<string, SpinResult>();
  let workDir = '';

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'arefcheck-spin-'));
    const runner = new SpinRunner(workDir, 2);
    const results = await Promise.all(cases.map(async (c) => [instanceKey(c), await runner.verify(c)] as const));
    for (const [key, r] of results) spin.set(key, r);
  }, 150_000);

  afterAll(() => {
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it.each(cases.map((c) => [name(c), c] as const))('%s: arefcheck and SPIN agree', (_n, c) => {
    const s = spin.get(instanceKey(c));
    expect(s, 'SPIN result').toBeDefined();
    if (!s) return;
    const report = verifyProgram(pipelineProgram({ depth: c.depth, pending: c.pending, consumers: c.consumers, iterations: c.iterations, level: c.level }), { level: c.level });
    expect(arefcheckVerdict(report), `SPIN: ${s.reason ?? 'no errors'}`).toBe(s.verdict);
    // both must also be right: with K > D, D ≤ P deadlocks and D > P is correct (DESIGN.md)
    expect(s.verdict).toBe(c.depth <= c.pending ? 'deadlock' : 'verified');
  });

  it('SPIN explored real state spaces (not an empty search)', () => {
    for (const c of cases) expect(spin.get(instanceKey(c))?.states ?? 0, name(c)).toBeGreaterThan(10);
  });
});

describe('the committed SPIN models', () => {
  const peers = join(SPIN_MODELS_DIR, '..', '..', '..', '..', 'shared', 'peers', 'spin');
  it.skipIf(!existsSync(peers))('are the peer models of ../shared/peers/spin, unchanged (needs ../shared/peers/spin)', () => {
    for (const model of Object.values(SPIN_MODEL)) {
      expect(readFileSync(join(SPIN_MODELS_DIR, model), 'utf8'), model).toBe(readFileSync(join(peers, model), 'utf8'));
    }
  });
});
