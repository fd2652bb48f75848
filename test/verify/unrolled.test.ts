// The reduction on unrolled positions (semantics/positions.ts): a role's control flow reads its
// loop variables alone, so each role runs one fixed op sequence and its step count says where it
// is in it. Checked here: that claim along random runs of generated programs and the pipeline
// family; persistence of the subsets on looped rings; and that unrolling is what makes the
// reduction take effect on loops (before it, every role's future touched the whole ring).
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbProgram } from '../../src/arbitraries.ts';
import type { Level, Program } from '../../src/ir/program.ts';
import { pipelineProgram } from '../../src/pipeline.ts';
import { verifyProgram } from '../../src/verify.ts';
import { programModel } from '../../src/verify/model.ts';
import { parseProgramText } from '../../src/lang/load.ts';
import { compileMachine, currentOp, enabledActions, executeAction, initialState, settleAll, cloneState, type Action } from '../../semantics/index.ts';
import { CodePositions, UnrolledPositions } from '../../semantics/positions.ts';
import { firstBreach, subsetsChecked } from './persistence.ts';

/** Walk `steps` random actions of p; at every state, each role's unrolled position must name its current op with its loop variables. */
function positionsAgree(p: Program, seed: number, steps = 200): string | undefined {
  const m = compileMachine(p);
  const positions = UnrolledPositions.of(m);
  if (!positions) return undefined;
  let s = settleAll(m, initialState(m));
  let x = seed;
  for (let n = 0; n < steps && !s.violation; n++) {
    for (let r = 0; r < m.roles.length; r++) {
      const rs = s.roles[r]!;
      const i = positions.of(r, rs); // throws when the pc is not the sequence's
      const op = currentOp(m, s, r);
      if (op === undefined) {
        if (i !== positions.length(r)) return `${m.roles[r]!.name} finished at position ${i} of ${positions.length(r)}`;
        continue;
      }
      if (positions.instr(r, i) !== op) return `${m.roles[r]!.name}: position ${i} is not its current op`;
      if (JSON.stringify(positions.varsAt(r, i)) !== JSON.stringify(rs.vars)) return `${m.roles[r]!.name}: variables ${JSON.stringify(rs.vars)} at position ${i}, sequence says ${JSON.stringify(positions.varsAt(r, i))}`;
    }
    const acts: Action[] = enabledActions(m, s, []);
    if (acts.length === 0) break;
    x = (x * 1103515245 + 12345) >>> 0;
    const next = cloneState(s);
    executeAction(m, next, acts[x % acts.length]!);
    s = next;
  }
  return undefined;
}

const family = (level: Level, consumers: number, iterations: number, depth = 4): Program => pipelineProgram({ depth, pending: 1, consumers, iterations, level });

describe('unrolled positions', () => {
  it('a role at an op is at the position its step count names, with the same loop variables (generated programs, the family)', () => {
    const programs = fc.sample(arbProgram({ maxNesting: 2, maxStatements: 3, maxRoles: 3 }), { seed: 71, numRuns: 300 });
    let unrolled = 0;
    const problems: string[] = [];
    programs.forEach((p, i) => {
      if (UnrolledPositions.of(compileMachine(p))) unrolled++;
      const problem = positionsAgree(p, i + 1);
      if (problem) problems.push(problem);
    });
    for (const level of ['aref', 'mbarrier'] as const)
      for (const c of [1, 2, 3]) {
        const problem = positionsAgree(family(level, c, 12, 2 * c), c, 400);
        if (problem) problems.push(`${level} C${c}: ${problem}`);
      }
    const coop = pipelineProgram({ depth: 4, pending: 1, consumers: 2, iterations: 8, level: 'mbarrier', cooperative: true });
    const problem = positionsAgree(coop, 5, 400);
    if (problem) problems.push(`cooperative: ${problem}`);
    expect(problems).toEqual([]);
    expect(unrolled, 'programs with loops, unrolled').toBeGreaterThan(100);
  });

  it('straight-line code keeps code positions; a symbolic parameter or too many ops give none', () => {
    const m = compileMachine(family('mbarrier', 1, 8));
    expect(UnrolledPositions.of(m)).toBeDefined();
    expect(UnrolledPositions.of(m, 10)).toBeUndefined();
    expect(UnrolledPositions.of(compileMachine(family('mbarrier', 1, 8), { symbolic: 'K' }))).toBeUndefined();
    const straight = compileMachine(parseProgramText(STRAIGHT, 'straight.aref'));
    expect(UnrolledPositions.of(straight)).toBeUndefined();
    expect(new CodePositions(straight).straightEnd(0, 0)).toBe(straight.roles[0]!.code.length);
  });

  it('every ample subset met on looped rings of the family is persistent (bounded lookahead)', () => {
    let subsets = 0;
    for (const level of ['aref', 'mbarrier'] as const)
      for (const [c, d] of [
        [1, 2],
        [2, 4],
        [2, 3],
        [3, 6],
      ] as const) {
        expect(firstBreach(programModel(family(level, c, 8, d)), 400), `${level} D${d} C${c}`).toBeUndefined();
        subsets += subsetsChecked;
      }
    // a floor against a vacuous run: every reduced graph here is walked whole (each under 400
    // states), 504 subsets before 2026-12-04, 356 since retirements are taken alone (fewer states
    // have several actions enabled: mbarrier D3 C2 375 → 208 reduced states)
    expect(subsets).toBeGreaterThan(300);
  }, 300_000);

  it('takes effect on loops: the family reduces to a fraction, with the same verdicts', () => {
    // measured 2026-11-26: aref D4 C2 K64 7,732 → 1,413 states; mbarrier 23,602 → 2,813. Before
    // unrolling, 1 % and 4 % fewer (a role's future in a loop touched the whole ring)
    for (const level of ['aref', 'mbarrier'] as const) {
      const full = verifyProgram(family(level, 2, 64), { level, reduction: false });
      const reduced = verifyProgram(family(level, 2, 64), { level });
      expect(reduced.verdict).toBe(full.verdict);
      expect(reduced.stats.states * 3, level).toBeLessThan(full.stats.states);
    }
    // and a violation (D = 3, C = 2: the ring is too shallow) is still found
    for (const level of ['aref', 'mbarrier'] as const) {
      const full = verifyProgram(family(level, 2, 16, 3), { level, reduction: false });
      const reduced = verifyProgram(family(level, 2, 16, 3), { level });
      expect(full.verdict).toBe('violation');
      expect(reduced.verdict).toBe('violation');
      expect(new Set(reduced.violations.map((v) => v.kind))).toEqual(new Set(full.violations.map((v) => v.kind)));
    }
  }, 120_000);
});

/** Two roles without loops or branches. */
const STRAIGHT = `aref A[1]
role producer warps 1:
  put A[0], 1
role consumer warps 4:
  get A[0] expect 1
  consumed A[0]
`;
