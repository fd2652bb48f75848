// What a passed wait teaches (semantics/lessons.ts) is computed with a cursor per barrier that goes
// on from the last question, so that a walk over a long straight line costs linear time. Here it
// is compared with the definition computed from scratch for every question (the arriver's
// arrivals counted from its position, its waits taken up to the op that reaches the count), on
// states of random runs, with questions in random order: counts that go up, come back down, and
// counts the arriver never reaches followed by ones it does.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateUnrolledKernel } from '../../bench/lift.ts';
import type { Program } from '../../src/ir/program.ts';
import { parseProgramText } from '../../src/lang/load.ts';
import { pipelineProgram } from '../../src/pipeline.ts';
import { liftKernel } from '../../src/ptx/lift/lift.ts';
import { parsePtx } from '../../src/ptx/parse/parser.ts';
import { programModel } from '../../src/verify/model.ts';
import { Futures, objectSpace, positionTouches } from '../../semantics/footprint.ts';
import { phaseDistance } from '../../semantics/hb.ts';
import { Horizons } from '../../semantics/horizon.ts';
import { Lessons, phaseAfterPass } from '../../semantics/lessons.ts';
import type { Machine } from '../../semantics/machine.ts';
import { CodePositions, UnrolledPositions } from '../../semantics/positions.ts';
import type { MachineState } from '../../semantics/state.ts';
import type { Action } from '../../semantics/step.ts';
import { clusterRingText, gridClusterText, pingpongClusterText } from './cluster-ring.ts';

interface Analysis {
  readonly m: Machine;
  readonly futures: Futures;
  readonly horizons: Horizons;
  readonly positions: UnrolledPositions | CodePositions;
}

function analysisOf(m: Machine): Analysis {
  const o = objectSpace(m);
  const positions = UnrolledPositions.of(m) ?? new CodePositions(m);
  const touches = positionTouches(m, o, positions);
  return { m, positions, futures: new Futures(m, o, positions, touches), horizons: new Horizons(m, o, positions, touches) };
}

/** The lesson by its definition: every fact from scratch, then the barriers it says more about than p's own start. */
function lessonByDefinition(x: Analysis, s: MachineState, at: Int32Array, p: number, b: number, completions: number): number[][] {
  const { m, horizons, futures } = x;
  const B = m.barrierCount;
  const knows = (k: Parameters<typeof phaseDistance>[1] | undefined, y: number): number => {
    const d = k === undefined ? 2 : phaseDistance(m, k, y);
    return d === 2 ? -Infinity : (s.barriers[y]?.phase ?? 0) - d;
  };
  const facts: number[] = [];
  for (let y = 0; y < B; y++) {
    facts.push(s.barriers[y]?.phase ?? 0, Math.max(knows(s.hb.barDone[b], y), completions > 0 ? knows(s.hb.barPending[b], y) : -Infinity));
  }
  const arrivers = m.roles.map((_, r) => r).filter((r) => futures.arrives(r, s.roles[r] ? at[r]! : Infinity, b));
  const a = completions > 0 && arrivers.length === 1 ? arrivers[0]! : undefined;
  const bar = s.barriers[b];
  if (a !== undefined && a !== p && bar && bar.expected > 0) {
    const need = bar.pending + (completions - 1) * bar.expected;
    let reached: number | undefined;
    let arrivals = 0;
    const c = horizons.countsOfEffect(a);
    scan: for (let op = at[a]!, end = horizons.straightEnd(a, at[a]!); op < end; op++) {
      for (let i = horizons.effectsFrom(a, op); i < horizons.effectsFrom(a, op + 1); i++) {
        const y = horizons.barrierOfEffect(a, i);
        if (y < 0) break scan;
        if (y !== b) continue;
        arrivals += c[3 * i]!;
        if (!Number.isFinite(arrivals)) break scan;
        if (arrivals >= need) {
          reached = op;
          break scan;
        }
      }
    }
    if (reached !== undefined) {
      for (let y = 0; y < B; y++) facts[2 * y + 1] = Math.max(facts[2 * y + 1]!, knows(s.hb.roles[a], y));
      const waits = horizons.waits[a]!;
      for (let k = horizons.firstWait(a, at[a]!); k < waits.length && waits[k]! < reached; k++) {
        const y = horizons.waitBarriers[a]![k]!;
        const parity = horizons.waitParities[a]![k]!;
        if (s.barriers[y]?.valid !== 1 || (parity !== 0 && parity !== 1)) continue;
        facts[2 * y] = phaseAfterPass(facts[2 * y]!, parity);
        facts[2 * y + 1] = Math.max(facts[2 * y + 1]!, facts[2 * y]!);
      }
    }
  }
  const lesson: number[][] = [];
  for (let y = 0; y < B; y++) {
    const phase = s.barriers[y]?.phase ?? 0;
    const start = phase - phaseDistance(m, s.hb.roles[p] ?? [], y);
    if (facts[2 * y]! > phase || facts[2 * y + 1]! > start) lesson.push([y, facts[2 * y]!, facts[2 * y + 1]!]);
  }
  return lesson;
}

// a lesson is a set of facts, one per barrier (stuck.ts applies each alone): compared in barrier order
const asRows = (lesson: Float64Array): number[][] =>
  Array.from({ length: lesson[0]! }, (_, i) => Array.from(lesson.subarray(1 + 3 * i, 4 + 3 * i))).sort((x, y) => x[0]! - y[0]!);

/** States along a random run of the program (seeded), each with its roles' positions. */
function statesOf(program: Program, seed: number, length: number): { m: Machine; states: MachineState[] } {
  const model = programModel(program);
  let s = model.initialStates()[0]!;
  const states = [s];
  let rng = seed;
  const actions: Action[] = [];
  for (let i = 0; i < length; i++) {
    actions.length = 0;
    model.actions(s, actions);
    if (actions.length === 0) break;
    rng = (Math.imul(rng, 1103515245) + 12345) >>> 0;
    s = model.nextState(s, actions[rng % actions.length]!);
    // a state with a violation is an end: the reduction never works on one
    if (!s.violation) states.push(s);
  }
  return { m: model.machine, states };
}

const PROGRAMS: [string, () => Program][] = [
  ['a two-CTA multicast ring', () => parseProgramText(clusterRingText({ stages: 2, blocks: 8, mutation: 'none', at: 0, cta: 0 }), 'ring.aref')],
  ['a ring with two consumers per CTA taking k-blocks in turn', () => parseProgramText(pingpongClusterText(2, 8), 'pingpong.aref')],
  ['a 2×2 cluster', () => parseProgramText(gridClusterText({ stages: 2, blocks: 6, mutation: 'none', at: 0, cta: 0, consumers: 1 }), 'grid.aref')],
  ['a lifted unrolled kernel (straight-line code)', () => liftKernel(parsePtx(generateUnrolledKernel(24), 'bench.ptx'))],
  ['the pipeline family, two consumers', () => pipelineProgram({ depth: 4, pending: 1, consumers: 2, iterations: 12, level: 'mbarrier' })],
];

describe('lessons of passed waits (lessons.ts)', () => {
  it.each(PROGRAMS)('%s: the cursor gives the lesson of the definition, whatever the order of the questions', (_name, make) => {
    const program = make();
    let asked = 0;
    let learnt = 0;
    for (const seed of [1, 2, 3]) {
      const { m, states } = statesOf(program, seed, 400);
      const x = analysisOf(m);
      const lessons = new Lessons(m, x.horizons, x.futures);
      for (const s of states.filter((_, i) => i % 7 === 0)) {
        const at = Int32Array.from(m.roles, (_, r) => x.positions.of(r, s.roles[r]!));
        lessons.reset(s, at);
        const questions = fc.sample(
          fc.tuple(fc.nat({ max: m.roles.length - 1 }), fc.nat({ max: Math.max(0, m.barrierCount - 1) }), fc.nat({ max: 6 })),
          { numRuns: 40, seed: seed * 1000 + asked },
        );
        for (const [p, b, completions] of questions) {
          if (m.barrierCount === 0) continue;
          const expected = lessonByDefinition(x, s, at, p, b, completions);
          expect(asRows(lessons.lesson(p, b, completions)), `${p} ${b} ${completions}`).toEqual(expected);
          asked++;
          if (expected.length > 0) learnt++;
        }
      }
    }
    // the questions are not vacuous: many lessons teach something
    expect(asked).toBeGreaterThan(200);
    expect(learnt).toBeGreaterThan(asked / 20);
  });
});
