// The checker against an independent oracle (issue 12.6): over thousands of generated programs
// of every op family, at both levels and in literal mode, the verdict, the set of violation kinds
// and the length of each shortest counterexample must agree. The oracle (test/oracle) keeps vector
// clocks in its states and interprets the Program's statements directly; it shares no rule code
// with semantics/. A planted rule bug in the oracle must make the comparison fail.
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbProgram } from '../../src/arbitraries.ts';
import { programLevel, type Level, type Program } from '../../src/ir/program.ts';
import { parseProgramText } from '../../src/lang/load.ts';
import { lowerProgram } from '../../src/lower.ts';
import { pipelineProgram } from '../../src/pipeline.ts';
import { verifyProgram } from '../../src/verify.ts';
import { oracleCheck, type OracleResult } from './explore.ts';
import type { Plant } from './rules.ts';
import { arbRing, ringText, type RingSpec } from './rings.ts';

const MAX_STATES = 20_000;

interface Case {
  readonly name: string;
  readonly program: Program;
  readonly level: Level;
  readonly literal: boolean;
}

/**
 * kind → shortest counterexample length, as the checker reports it without partial-order
 * reduction (lengths are shortest in the full graph); undefined when a limit stopped either side.
 * With reduction on, the kinds must be the same (its lengths are shortest in the reduced graph).
 */
function checker(c: Case): Map<string, number> | undefined {
  const r = verifyProgram(c.program, { level: c.level, literal: c.literal, maxStates: MAX_STATES, reduction: false });
  if (r.verdict === 'inconclusive') return undefined;
  const reduced = verifyProgram(c.program, { level: c.level, literal: c.literal, maxStates: MAX_STATES });
  const kinds = r.violations.map((v) => v.kind).sort().join(',');
  const reducedKinds = reduced.violations.map((v) => v.kind).sort().join(',');
  if (reduced.verdict !== r.verdict || reducedKinds !== kinds) return new Map([[`reduction changed the result: ${reducedKinds} vs ${kinds}`, 0]]);
  return new Map(r.violations.map((v) => [v.kind, v.trace.length]));
}

function oracle(c: Case, plant: Plant = 'none'): OracleResult {
  return oracleCheck(c.program, { level: c.level, literal: c.literal, plant, maxStates: MAX_STATES * 20 });
}

const sorted = (m: ReadonlyMap<string, number>): string => JSON.stringify([...m].sort(([a], [b]) => a.localeCompare(b)));

/** Compare one case; returns false when a limit stopped either side (not counted). */
function agree(c: Case, plant: Plant = 'none'): { compared: boolean; same: boolean; detail: string } {
  const a = checker(c);
  if (!a) return { compared: false, same: true, detail: '' };
  const o = oracle(c, plant);
  if (o.verdict === 'too big') return { compared: false, same: true, detail: '' };
  const same = sorted(a) === sorted(o.kinds);
  return { compared: true, same, detail: `${c.name} at ${c.level}${c.literal ? ' (literal)' : ''}: checker ${sorted(a)}, oracle ${sorted(o.kinds)}` };
}

const ringCase = (r: RingSpec): Case => ({ name: `ring ${JSON.stringify(r)}`, program: parseProgramText(ringText(r), 'ring.aref'), level: 'mbarrier', literal: false });

/** Random programs of every family at their own level (and, for pure aref programs, lowered). */
const arbCasesOf = (atomics: boolean): fc.Arbitrary<Case[]> => fc.tuple(arbProgram({ maxNesting: 2, maxStatements: 3, maxRoles: 3, atomics }), fc.boolean()).map(([program, literal]) => {
  const level = programLevel(program);
  const cases: Case[] = [{ name: 'random program', program, level, literal }];
  if (level === 'aref') {
    try {
      lowerProgram(program);
      cases.push({ name: 'random program, lowered', program, level: 'mbarrier', literal: false });
    } catch {
      // not every random aref program has the shape the lowering takes (it says why)
    }
  }
  return cases;
});
const arbCases = arbCasesOf(false);

/** The Tawa pipeline family at both levels. */
const pipelineCases: Case[] = [];
for (const depth of [1, 2, 3]) for (const pending of [0, 1, 2]) for (const consumers of [1, 2]) for (const iterations of [1, 3, 4]) {
  const program = pipelineProgram({ depth, pending, consumers, iterations, level: 'aref' });
  for (const level of ['aref', 'mbarrier'] as const) pipelineCases.push({ name: `pipeline D${depth} P${pending} C${consumers} K${iterations}`, program, level, literal: false });
}

describe('differential: checker and oracle agree', () => {
  it('on the pipeline family at both levels (108 instances)', () => {
    const bad = pipelineCases.map((c) => agree(c)).filter((r) => r.compared && !r.same);
    expect(bad.map((r) => r.detail)).toEqual([]);
  });

  it('on 2,000+ generated programs of every op family (seeded)', () => {
    let compared = 0;
    const disagreements: string[] = [];
    const check = (c: Case): void => {
      const r = agree(c);
      if (!r.compared) return;
      compared += 1;
      if (!r.same) disagreements.push(r.detail);
    };
    fc.assert(fc.property(arbRing, (r) => check(ringCase(r))), { seed: 1207, numRuns: 700 });
    fc.assert(fc.property(arbCases, (cs) => cs.forEach(check)), { seed: 1206, numRuns: 1500 });
    expect(disagreements.slice(0, 5)).toEqual([]);
    expect(compared).toBeGreaterThanOrEqual(2000);
  }, 300_000);

  // shared-memory atomics (atom/red): they race with plain and async accesses, never with each other
  it('on 600+ generated programs with atomics (seeded), some of which race only through an atomic', () => {
    let compared = 0;
    let atomicRaces = 0;
    const disagreements: string[] = [];
    fc.assert(
      fc.property(arbCasesOf(true), (cs) => {
        for (const c of cs) {
          const r = agree(c);
          if (!r.compared) continue;
          compared += 1;
          if (!r.same) disagreements.push(r.detail);
          const race = verifyProgram(c.program, { level: c.level, literal: c.literal, maxStates: MAX_STATES }).violations.find((v) => v.kind === 'race');
          if (race && /atomic/.test(race.message)) atomicRaces += 1;
        }
      }),
      { seed: 1208, numRuns: 700 },
    );
    expect(disagreements.slice(0, 5)).toEqual([]);
    expect(compared).toBeGreaterThanOrEqual(600);
    expect(atomicRaces).toBeGreaterThan(10);
  }, 300_000);
});

describe('the differential bites: a rule bug planted in the oracle is caught', () => {
  const corpus: Case[] = [
    ...pipelineCases,
    ...fc.sample(arbRing, { seed: 7, numRuns: 300 }).map(ringCase),
  ];
  it.each<Plant>(['fresh-wait-blocks', 'complete-below-zero', 'consumed-no-release', 'wait-group-no-acquire', 'no-missed-phase'])('%s', (plant) => {
    const caught = corpus.find((c) => {
      const r = agree(c, plant);
      return r.compared && !r.same;
    });
    expect(caught, `no program of the corpus tells the planted bug '${plant}' apart`).toBeDefined();
  }, 120_000);
});
