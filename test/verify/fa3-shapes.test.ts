// Two shapes of FlashAttention-3's consumer warpgroups that the reduction must see as independent
// (measured on FA3 hdim 128 forward, docs/checker.md). (1) Warpgroups that hand data to each
// other through a named barrier: what a role does after its bar.sync cannot happen while the other
// participants are held back, so the wait ends its horizon (semantics/stuck.ts). (2) One warpgroup
// lifted as two roles (warps 8–10 and warp 11: the last warp also runs the epilogue): their wgmma
// issues only add to their own open reads and commute, with each other and with retirements.
import { describe, expect, it } from 'vitest';
import { parseProgramText } from '../../src/lang/load.ts';
import { verifyProgram } from '../../src/verify.ts';
import { programModel } from '../../src/verify/model.ts';
import { namedHandoff, namedMeeting, OUTSIDE_MEETING, splitWarpgroup, TWO_GENERATIONS, warpgroupRounds } from './fa3-shapes.ts';
import { firstBreach, subsetsChecked } from './persistence.ts';

const run = (text: string, reduction = true) => verifyProgram(parseProgramText(text, 'shape.aref'), { reduction, maxStates: 200_000 });
const kinds = (r: ReturnType<typeof run>) => [...new Set(r.violations.map((v) => v.kind))].sort();

describe('FlashAttention-3 shapes in the reduction', () => {
  it('a bar.sync that waits for roles of the set ends a horizon: linear in the work before it', () => {
    // measured: 4 slots 46 states, 16 slots 142; when bar.sync was no stop, B's reads after it
    // conflicted with every write of A (and the other way): 86 and 494, quadratic
    const at4 = run(namedHandoff(4)).stats.states;
    const at16 = run(namedHandoff(16)).stats.states;
    expect(at16).toBeLessThan(10 * 16);
    expect(at16 / at4).toBeLessThan(4);
  });

  it('the two roles of one warpgroup issue independently: linear in the issues', () => {
    // measured: 4 issues each 27 states, 8 issues 43; when an issue touched the warpgroup's groups, 51 and 123
    const at4 = run(splitWarpgroup(4)).stats.states;
    const at8 = run(splitWarpgroup(8)).stats.states;
    expect(at8).toBeLessThan(8 * 8);
    expect(at8 / at4).toBeLessThan(2);
  });

  it('arrivals at a named barrier commute while the generation completes only with the set', () => {
    // measured: 2, 4, 8 meetings of five roles 36, 66, 126 states; with no commutation claimed for
    // named arrivals 88, 170, 334
    expect(run(namedMeeting(8)).stats.states).toBeLessThan(20 * 8);
  });

  it('a warpgroup unit that waits for a partner\'s commit brings in that partner only', () => {
    // measured: 2, 4, 8 rounds 61, 139, 295 states; with every partner added as an enabler 84, 218, 486
    expect(run(warpgroupRounds(8)).stats.states).toBeLessThan(40 * 8);
  });

  it.each([
    ['warpgroup rounds', warpgroupRounds(3), 'verified', []],
    ['warpgroup rounds, one commit missing', warpgroupRounds(3, true), 'violation', ['deadlock']],
    ['meeting', namedMeeting(2), 'verified', []],
    ['meeting, one read before the last one', namedMeeting(2, true), 'violation', ['race']],
    ['a role that arrives for two generations', TWO_GENERATIONS, 'violation', ['deadlock']],
    ['handoff', namedHandoff(4), 'verified', []],
    ['handoff, one read before the barrier', namedHandoff(4, true), 'violation', ['race']],
    ['two roles outside the set meet at a named barrier', OUTSIDE_MEETING, 'violation', ['race']],
    ['split warpgroup', splitWarpgroup(3), 'verified', []],
    ['split warpgroup, one role never commits', splitWarpgroup(3, true), 'violation', ['deadlock']],
  ] as const)('%s: the same verdict and kinds with and without reduction, and persistent subsets', (_name, text, verdict, expected) => {
    const reduced = run(text);
    const full = run(text, false);
    expect(reduced.verdict).toBe(verdict);
    expect(full.verdict).toBe(verdict);
    expect(kinds(reduced)).toEqual([...expected]);
    expect(kinds(full)).toEqual([...expected]);
    expect(firstBreach(programModel(parseProgramText(text, 'shape.aref')), 600)).toBeUndefined();
    expect(subsetsChecked).toBeGreaterThan(2);
  });
});
