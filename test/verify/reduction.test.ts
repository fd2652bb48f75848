// Partial-order reduction decides the same as full exploration (issue 9.3): on the gallery, the
// examples, the pipeline family and thousands of generated programs, the verdict and the set of
// violation kinds are identical with and without reduction; every reduced counterexample replays
// in the full semantics; the reduced graph never has more states. A deliberately unsound choice
// (always the first enabled action) is caught by the same comparison, so the comparison bites.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { arbProgram } from '../../src/arbitraries.ts';
import { programLevel, type Level, type Program } from '../../src/ir/program.ts';
import { parseProgramText } from '../../src/lang/load.ts';
import { pipelineProgram } from '../../src/pipeline.ts';
import { verifyProgram, type Report } from '../../src/verify.ts';
import { programModel } from '../../src/verify/model.ts';
import { replayTrace } from '../../src/verify/replay.ts';
import { readTraceJson, violationToTraceJson } from '../../src/verify/trace-json.ts';
import { ROOT } from '../../scripts/regen-traces.ts';
import { arbRing, ringText } from '../oracle/rings.ts';
import { liftPtx } from '../../src/api.ts';
import { readPtx } from '../ptx/gluon-cases.ts';

const MAX_STATES = 20_000;

interface Case {
  readonly name: string;
  readonly program: Program;
  readonly level: Level;
}

const kindsOf = (r: { verdict: string; violations: readonly { kind: string }[] }): string =>
  `${r.verdict} ${r.violations.map((v) => v.kind).sort().join(',')}`;

/** Full and reduced reports of a case; undefined when a limit stopped either. */
function both(c: Case): { full: Report; reduced: Report } | undefined {
  const full = verifyProgram(c.program, { level: c.level, maxStates: MAX_STATES, reduction: false });
  const reduced = verifyProgram(c.program, { level: c.level, maxStates: MAX_STATES });
  if (full.verdict === 'inconclusive' || reduced.verdict === 'inconclusive') return undefined;
  return { full, reduced };
}

/** Every counterexample of the reduced run replays to its kind in the full semantics. */
function expectReplays(c: Case, report: Report): void {
  const params = Object.fromEntries(c.program.params.map((p) => [p.name, p.value]));
  report.violations.forEach((v, i) => {
    if (v.kind === 'refinement') return; // the monitor's own trace format: replayed in its own test
    const json = violationToTraceJson(report, i, 'prog.aref', { params, literal: false });
    const result = replayTrace(c.program, readTraceJson(JSON.stringify(json), 'trace.json'), c.level);
    expect(result.reached, `${c.name}: ${v.kind} does not replay (${result.message})`).toBe(v.kind);
  });
}

const fileCases: Case[] = [
  ...readdirSync(join(ROOT, 'examples')).filter((f) => f.endsWith('.aref')).map((f) => `examples/${f}`),
  ...readdirSync(join(ROOT, 'examples/gallery')).filter((f) => f.endsWith('.aref')).map((f) => `examples/gallery/${f}`),
  'test/fixtures/programs/warpgroup-shared-mma.aref',
  'test/fixtures/programs/warpgroup-missing-mma.aref',
].flatMap((f) => {
  const program = parseProgramText(readFileSync(join(ROOT, f), 'utf8'), f);
  const levels: Level[] = programLevel(program) === 'aref' ? ['aref', 'mbarrier'] : ['mbarrier'];
  return levels.map((level) => ({ name: `${f} ${level}`, program, level }));
});

const familyCases: Case[] = [];
for (const depth of [1, 2, 3, 4]) for (const pending of [0, 1, 2]) for (const consumers of [1, 2]) for (const iterations of [4, 8]) {
  const program = pipelineProgram({ depth, pending, consumers, iterations, level: 'aref' });
  for (const level of ['aref', 'mbarrier'] as const) familyCases.push({ name: `D${depth} P${pending} C${consumers} K${iterations} ${level}`, program, level });
}

function expectSame(cases: readonly Case[], replay: boolean): number {
  let compared = 0;
  const differ: string[] = [];
  for (const c of cases) {
    const r = both(c);
    if (!r) continue;
    compared++;
    if (kindsOf(r.full) !== kindsOf(r.reduced)) differ.push(`${c.name}: full ${kindsOf(r.full)}, reduced ${kindsOf(r.reduced)}`);
    expect(r.reduced.stats.states, c.name).toBeLessThanOrEqual(r.full.stats.states);
    if (replay) expectReplays(c, r.reduced);
  }
  expect(differ).toEqual([]);
  return compared;
}

describe('partial-order reduction keeps every verdict and violation kind', () => {
  it('on the gallery and the examples, at each level; reduced counterexamples replay', () => {
    expect(expectSame(fileCases, true)).toBe(fileCases.length);
  });

  it('on the pipeline family D 1..4 × P 0..2 × C 1..2 × K {4, 8}, both levels', () => {
    expect(expectSame(familyCases, true)).toBeGreaterThanOrEqual(90);
  }, 120_000);

  it('on 3,000+ generated programs and rings of every bug class (seeded)', () => {
    const cases: Case[] = [];
    for (const r of fc.sample(arbRing, { seed: 31, numRuns: 1500 }))
      cases.push({ name: `ring ${JSON.stringify(r)}`, program: parseProgramText(ringText(r), 'ring.aref'), level: 'mbarrier' });
    for (const p of fc.sample(arbProgram({ maxNesting: 2, maxStatements: 3, maxRoles: 3 }), { seed: 32, numRuns: 2000 }))
      cases.push({ name: 'random program', program: p, level: programLevel(p) });
    expect(expectSame(cases, false)).toBeGreaterThanOrEqual(3000);
  }, 300_000);
});

describe('regressions: dependences the footprints once missed', () => {
  it("a wait on a barrier that a role's future completes only through the copy of its tma.load", () => {
    const file = 'test/fixtures/programs/por-future-copy.aref';
    const program = parseProgramText(readFileSync(join(ROOT, file), 'utf8'), file);
    const reduced = verifyProgram(program);
    expect(kindsOf(reduced)).toBe('violation protocol');
    expect(reduced.violations[0]?.message).toMatch(/wait on full\[0\] with parity 1 missed its phase/);
    expect(kindsOf(verifyProgram(program, { reduction: false }))).toBe(kindsOf(reduced));
  });

  it('the Gluon two-consumer kernel with the wrong ready parity (lifted PTX): race and protocol both ways', () => {
    const [kernel] = liftPtx(readPtx('two_consumer_ws_m2'), { file: 'two_consumer_ws_m2.ptx' });
    if (!kernel) throw new Error('no kernel lifted');
    const reduced = verifyProgram(kernel.program);
    expect(kindsOf(reduced)).toBe('violation protocol,race');
    expect(kindsOf(verifyProgram(kernel.program, { reduction: false }))).toBe(kindsOf(reduced));
  }, 60_000);
});

describe('the reduction takes effect, and the comparison bites', () => {
  // two rings that share nothing: their interleavings are what reduction removes
  const independent = parseProgramText(
    ['A', 'B']
      .map(
        (x) => `
buffer ${x}_buf[2] bytes 256
mbarrier ${x}_full[2] count 1
mbarrier ${x}_empty[2] count 1
role ${x}_producer warps 1:
  for k in 0..6:
    wait ${x}_empty[k % 2], ((k / 2) & 1) ^ 1
    arrive.expect_tx ${x}_full[k % 2], 256
    tma.load ${x}_buf[k % 2] -> ${x}_full[k % 2], 256 value k
role ${x}_consumer warps 1:
  for k in 0..6:
    wait ${x}_full[k % 2], (k / 2) & 1
    wgmma.issue ${x}_buf[k % 2] expect k
    wgmma.commit
    wgmma.wait 0
    arrive ${x}_empty[k % 2]
`,
      )
      .join('\n'),
    'two-rings.aref',
  );

  it('two independent rings: the reduced graph is a fraction of the full one, same verdict', () => {
    const full = verifyProgram(independent, { reduction: false });
    const reduced = verifyProgram(independent);
    expect(full.verdict).toBe('verified');
    expect(reduced.verdict).toBe('verified');
    expect(reduced.stats.states * 5).toBeLessThan(full.stats.states);
  });

  it('a choice that ignores dependence (always the first enabled action) changes verdicts the comparison sees', () => {
    const unsound = (program: Program): string => {
      const model = programModel(program);
      return kindsOf(check({ ...model, ample: (_s, actions) => (actions.length > 1 ? [0] : undefined) }, { maxStates: MAX_STATES }));
    };
    const full = (program: Program): string => kindsOf(check(programModel(program), { maxStates: MAX_STATES, reduction: false }));
    const caught = [...fileCases, ...familyCases].filter((c) => programLevel(c.program) === c.level).find((c) => unsound(c.program) !== full(c.program));
    expect(caught, 'no case tells an unsound reduction apart').toBeDefined();
  });
});
