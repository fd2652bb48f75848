// The completion bounds of semantics/stuck.ts: how many more phases a barrier can complete on paths
// outside an ample set, and where the roles outside stop. Two small programs pin down the parts of
// the walk that the generated rings rarely reach, each with role R first so that R's arrive on d is
// the first seed tried: W's own arrive on d (a conflict with R) lies past two waits on b, and the
// walk must see that W can get there. The rings show what the bounds are for: a two-CTA multicast
// ring whose rounds decouple, so the reduced graph grows with the number of k-blocks, not with its
// square; and the same ring with two consumers per CTA taking k-blocks in turn, where a consumer
// knows a stage's first round was filled only through the order barrier (what a passed wait learns);
// and a 2×2 cluster, where a CTA reaches the diagonal one only through its partners.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseProgramText } from '../../src/lang/load.ts';
import { verifyProgram } from '../../src/verify.ts';
import { programModel } from '../../src/verify/model.ts';
import { clusterRingText, gridClusterText, pingpongClusterText } from './cluster-ring.ts';
import { completionsAllowed } from '../../semantics/stuck.ts';
import type { BarrierState } from '../../semantics/state.ts';
import { firstBreach, subsetsChecked } from './persistence.ts';
import { pipelineProgram } from '../../src/pipeline.ts';
import { ROOT } from '../../scripts/regen-traces.ts';

const HEADER = ['mbarrier b[1] count 1', 'mbarrier c[1] count 1', 'mbarrier d[1] count 1', '', 'role R warps 1:', '  arrive d[0], 1', ''];

/** b completes twice on paths outside {R}: P's second arrive comes after W's arrive on c. A bound of one completion would stop W at its second wait. */
const TWO_COMPLETIONS = [
  ...HEADER,
  'role W warps 1:',
  '  wait b[0], 0',
  '  arrive c[0], 1',
  '  wait b[0], 1',
  '  arrive d[0], 1',
  '',
  'role P warps 1:',
  '  arrive b[0], 1',
  '  wait c[0], 0',
  '  arrive b[0], 1',
].join('\n');

/**
 * W's two waits of parity 1 both pass while b is still in phase 0 (a wait of the other parity leaves
 * the lowest phase where it was). Walking W once b may complete (after c is raised) must not take
 * the first wait as a move to phase 1, which would make the second look blocked for good.
 */
const PASSED_WAIT_KEEPS_PHASE = [
  ...HEADER,
  'role W warps 1:',
  '  wait c[0], 0',
  '  wait b[0], 1',
  '  wait b[0], 1',
  '  arrive d[0], 1',
  '',
  'role P warps 1:',
  '  arrive c[0], 1',
  '  arrive b[0], 1',
].join('\n');

/**
 * A and B are one warpgroup's partner roles: their groups retire together. Once A has committed its
 * first group and its next op (reading x[1]) is the ample set, B's `wgmma.wait 1` with two groups
 * outstanding can still pass on outside paths: the retirement needs only A's group already
 * committed. So B's arrive on d and W's copy into x[1] after it are counted. A stop that counted no
 * retirement (B held at its wait) leaves W at `wait d` and picks A's read alone, a breach.
 */
const PARTNER_LETS_WAIT_PASS = [
  'mbarrier d[1] count 1',
  'mbarrier f[1] count 1',
  'buffer x[2] bytes 64',
  'warpgroup A, B',
  '',
  'role A warps 1:',
  '  wgmma.issue x[0]',
  '  wgmma.commit',
  '  wgmma.issue x[1]',
  '  wgmma.commit',
  '  wgmma.wait 0',
  '',
  'role B warps 1:',
  '  wgmma.issue x[0]',
  '  wgmma.commit',
  '  wgmma.issue x[0]',
  '  wgmma.commit',
  '  wgmma.wait 1',
  '  arrive d[0]',
  '',
  'role W warps 1:',
  '  wait d[0], 0',
  '  arrive.expect_tx f[0], 64',
  '  tma.load x[1] -> f[0], 64',
  '  wait f[0], 0',
].join('\n');

/**
 * L's wait of parity 1 on b, reached once P's arrive completed b's phase 0, which L does not know:
 * it misses its phase, a protocol error that ends L's path. The walk cannot tell a miss from a
 * wait that blocks (what it knows is a lower bound), and neither lets L past: L stops there with
 * the wait itself in its horizon (`through`), so L's arrive on d is not counted against R's.
 * Continuing the walk past the miss, as before 2026-11-29, counted it (15 reduced states, not 14);
 * on CUTLASS example 57's Pingpong kernel it let a consumer warpgroup run to its end.
 */
const MISSED_WAIT_STOPS = [
  'mbarrier b[1] count 1',
  'mbarrier c[1] count 1',
  'mbarrier d[1] count 1',
  '',
  'role R warps 1:',
  '  arrive d[0], 1',
  '',
  'role P warps 1:',
  '  arrive b[0], 1',
  '  wait c[0], 0',
  '',
  'role L warps 1:',
  '  wait c[0], 0',
  '  wait b[0], 1',
  '  arrive d[0], 1',
  '',
  'role Q warps 1:',
  '  arrive c[0], 1',
].join('\n');

/**
 * A and B are one warpgroup's partner roles, each writing its own rows of p and issuing the
 * warpgroup's read of both. B's next write of p[1] lies before any wait on a barrier, but after a
 * `wgmma.wait 0` that needs A's group committed: while A (in the set) has not committed, B is held
 * there (stuck.ts `held`), so A's read of p[1] does not bring B in. Before 2026-11-30 a conflict
 * before a role's first barrier wait brought it in without asking the analysis: 92 reduced
 * states, not 82 (FlashAttention-3 head dim 96 at `0+96 = 512`: 476,979 → 72,450). B releasing
 * its rows a group early (`wgmma.wait 1`) is a race both ways.
 */
const HELD_BEFORE_FIRST_WAIT = [
  'param K = 3',
  'buffer p[2] bytes 64',
  'warpgroup A, B',
  '',
  'role A warps 1:',
  '  for k in 0..K:',
  '    write p[0]',
  '    fence.proxy.async',
  '    wgmma.issue p[0]',
  '    wgmma.issue p[1]',
  '    wgmma.commit',
  '    wgmma.wait 0',
  '',
  'role B warps 1:',
  '  for k in 0..K:',
  '    write p[1]',
  '    fence.proxy.async',
  '    wgmma.issue p[0]',
  '    wgmma.issue p[1]',
  '    wgmma.commit',
  '    wgmma.wait 0',
].join('\n');

describe('completion bounds (stuck.ts)', () => {
  it('a wait that would miss its phase stops the walk, and stays in the horizon', () => {
    const p = parseProgramText(MISSED_WAIT_STOPS + '\n', 'missed.aref');
    const reduced = verifyProgram(p);
    const full = verifyProgram(p, { reduction: false });
    expect(reduced.violations.map((v) => v.kind)).toEqual(['protocol']);
    expect(reduced.violations[0]!.message).toMatch(/^L: wait on b\[0\] with parity 1 missed its phase/);
    expect(full.violations.map((v) => v.kind)).toEqual(['protocol']);
    expect(reduced.stats.states).toBe(14);
    expect(full.stats.states).toBe(35);
    // persistence: the table of programs below
  });

  it('a partner held at a wgmma.wait before its first barrier wait is asked of the analysis', () => {
    const p = parseProgramText(HELD_BEFORE_FIRST_WAIT + '\n', 'held.aref');
    const reduced = verifyProgram(p);
    expect(reduced.verdict).toBe('verified');
    expect(verifyProgram(p, { reduction: false }).verdict).toBe('verified');
    expect(reduced.stats.states).toBe(82);
    const early = parseProgramText(HELD_BEFORE_FIRST_WAIT.replace(/wgmma\.wait 0$/, 'wgmma.wait 1') + '\n', 'early.aref');
    expect(verifyProgram(early).violations.map((v) => v.kind)).toEqual(['race']);
    expect(verifyProgram(early, { reduction: false }).violations.map((v) => v.kind)).toEqual(['race']);
  });

  it.each([
    ['a barrier completes twice outside the set', TWO_COMPLETIONS],
    ['a passed wait of the other parity keeps the lowest phase', PASSED_WAIT_KEEPS_PHASE],
    // held(): taking no retirement as possible gives a breach here (3 subsets, measured 2026-11-29)
    ['a partner of the set lets a future wgmma.wait pass', PARTNER_LETS_WAIT_PASS],
    ['a wait that would miss its phase is a stop the wait itself may pass', MISSED_WAIT_STOPS],
    ['a partner held before its first barrier wait', HELD_BEFORE_FIRST_WAIT],
  ])('%s: every ample subset is persistent', (_name, text) => {
    const model = programModel(parseProgramText(text + '\n', 'stuck.aref'));
    expect(firstBreach(model, 400)).toBeUndefined();
    expect(subsetsChecked).toBeGreaterThan(3);
    // the programs end in a protocol error (a second arrive on d) or a race (W's copy into x[1]
    // while A's group reads it), found with or without reduction
    const p = parseProgramText(text + '\n', 'stuck.aref');
    expect(verifyProgram(p).violations.map((v) => v.kind)).toEqual(verifyProgram(p, { reduction: false }).violations.map((v) => v.kind));
  });

  it('two-CTA multicast rings decouple across rounds: reduced states grow linearly in the k-blocks', () => {
    const states = (stages: number, blocks: number): number => {
      const r = verifyProgram(parseProgramText(clusterRingText({ stages, blocks, mutation: 'none', at: 0, cta: 0 }), 'ring.aref'), { maxStates: 200_000 });
      expect(r.verdict).toBe('verified');
      return r.stats.states;
    };
    for (const stages of [1, 2, 3]) {
      const at8 = states(stages, 8);
      const at32 = states(stages, 32);
      // measured: about 50 states per k-block (1,693 at 2 stages, 32 k-blocks, where counting only
      // whole futures took 932,496); a bound per round that let a peer CTA run ahead would not be linear
      expect(at32, `${stages} stages`).toBeLessThan(100 * 32);
      expect(at32 / at8, `${stages} stages`).toBeLessThan(5);
    }
  });

  it('consumers taking turns through an order barrier: a passed wait learns what the arrivers knew', () => {
    const states = (stages: number, blocks: number): number => {
      const r = verifyProgram(parseProgramText(pingpongClusterText(stages, blocks), 'pingpong.aref'), { maxStates: 200_000 });
      expect(r.verdict, r.limit?.message).toBe('verified');
      return r.stats.states;
    };
    // measured: 312, 672 and 1,392 states at 6, 12 and 24 k-blocks (3 stages); without the learning
    // (a consumer's walk passes its first wait on a stage, of parity 1, while the stage is in phase 0,
    // and its release is counted) 16,472 at 6 and past 300,000 at 12
    const at6 = states(3, 6);
    const at24 = states(3, 24);
    expect(at24).toBeLessThan(100 * 24);
    expect(at24 / at6).toBeLessThan(6);
    expect(states(5, 20)).toBeLessThan(100 * 20);
    // the ring, and two one-line mutants (a consumer's turn taken early; a wait of the wrong parity on
    // a stage's second round): the full graphs are past 4.5 million states, so persistence is checked
    const ring = pingpongClusterText(3, 4);
    const texts = [ring, ring.replace('wait order0[1], 0', 'wait order0[1], 1'), ring.replace('wait full1[2], 0', 'wait full1[2], 1')];
    expect(new Set(texts).size).toBe(3);
    for (const text of texts) {
      expect(firstBreach(programModel(parseProgramText(text, 'pingpong.aref')), 600)).toBeUndefined();
      expect(subsetsChecked).toBeGreaterThan(100);
    }
  }, 120_000);

  it('bytes bound later phases: each needs its own arrivals, and the bytes they expect land within it', () => {
    // a full barrier of a 2×2 cluster: its producer arrived (tx 32768 missing); outside, three
    // copies in flight and one to come (32768), then the producer's next arrive.expect_tx (32768)
    // and its own two copies of that round (16384): the second phase lacks 16384 bytes
    const bar = { valid: 1, phase: 0, pending: 0, expected: 1, tx: 32768 } as BarrierState;
    expect(completionsAllowed(bar, 1, 32768, 49152, 32768)).toBe(1);
    expect(completionsAllowed(bar, 1, 32768, 65536, 32768)).toBe(2);
    // bytes per arrival not known (a plain arrive among the ops): arrivals alone bound it
    expect(completionsAllowed(bar, 1, 32768, 49152, 0)).toBe(2);
    // fewer bytes landing than the current phase misses: not even one
    expect(completionsAllowed(bar, 5, 32768, 16384, 0)).toBe(0);
    expect(completionsAllowed({ ...bar, tx: -8192 }, 1, 32768, 32768, 32768)).toBe(2);
  });

  it('2×2 cluster rings: reduced states grow linearly in the k-blocks', () => {
    const states = (stages: number, blocks: number, consumers: number): number => {
      const r = verifyProgram(parseProgramText(gridClusterText({ stages, blocks, consumers, mutation: 'none', at: 0, cta: 0 }), 'grid.aref'), { maxStates: 100_000 });
      expect(r.verdict, r.limit?.message).toBe('verified');
      return r.stats.states;
    };
    // measured (2026-11-25): 337 and 1,345 states at 4 and 16 k-blocks (2 stages, one consumer per
    // CTA), 1,537 at 12 (3 stages, two consumers). Before the bytes of later phases were counted and
    // a role blocked on a wgmma.wait of the set's unit was taken to stay there, 4 k-blocks were past
    // 50,000 states after 60 s; with the bytes but not the unit rule, 1,795 at 4 and 4,399 at 8
    const at4 = states(2, 4, 1);
    const at16 = states(2, 16, 1);
    expect(at16).toBeLessThan(100 * 16);
    expect(at16 / at4).toBeLessThan(5);
    expect(states(3, 12, 2)).toBeLessThan(200 * 12);
  }, 120_000);

  // Aref slots' F and E flags are token counters of the same fixed point (horizon.ts
  // `slotCounter`): a put needs an E token, which a consumed gives; a get an F token, which a put gives.
  it("aref tokens: a consumed outside the set gives a producer's put its E token", () => {
    // Q's put into B[0] conflicts with P's put into B[0], which P reaches once C consumes A[0]
    // (outside the set {Q}) and P puts A[0] again. Counting no E token for C's consumed stopped P
    // at its second put for good, and {Q} was taken alone: "put B[0], 2 disables put B[0], 4"
    const text = [
      'aref A[1] bytes 128',
      'aref B[1] bytes 128',
      '',
      'role Q warps 1:',
      '  put B[0], 2',
      '',
      'role P warps 1:',
      '  put A[0], 1',
      '  put A[0], 3',
      '  put B[0], 4',
      '',
      'role C warps 1:',
      '  get A[0] expect 1',
      '  consumed A[0]',
      '  get A[0] expect 3',
      '  consumed A[0]',
      '',
      'role D warps 1:',
      '  get B[0]',
      '  consumed B[0]',
      '  get B[0]',
      '  consumed B[0]',
    ].join('\n');
    const p = parseProgramText(text + '\n', 'tokens.aref');
    expect(firstBreach(programModel(p), 2000)).toBeUndefined();
    expect(subsetsChecked).toBeGreaterThan(2);
    const reduced = verifyProgram(p);
    const full = verifyProgram(p, { reduction: false });
    expect(reduced.verdict).toBe('verified');
    expect(full.verdict).toBe('verified');
    expect(reduced.stats.states).toBeLessThan(full.stats.states);
  });

  // fast.cu's kernel 4 and the CUDA Programming Guide's pipelines wait as cuda::barrier does:
  // `arrive … -> t`, then `wait …, token t`. A token wait is a stop of the analysis (horizon.ts
  // TOKEN_WAIT) where its barrier cannot complete on the paths outside the set and its token names
  // the current phase: a consumer whose copies are in the set then stays at its wait
  const tokenRing = (k: number, d: number, edit: (text: string) => string = (text) => text) =>
    parseProgramText(edit(readFileSync(join(ROOT, 'test/fixtures/programs/token-ring.aref'), 'utf8').replace('param K = 8', `param K = ${k}`).replace('param D = 4', `param D = ${d}`)), 'token-ring.aref');

  it('token waits: a consumer stops at a token whose phase cannot complete (reduced states grow linearly in K)', () => {
    // measured (2026-12-04): 1,493, 4,017 and 9,065 states at K = 8, 16 and 32, about 315 a
    // k-block; before token waits were stops, 19,368, 55,404 and 127,476
    const states = [8, 16, 32].map((k) => {
      const r = verifyProgram(tokenRing(k, 4), { everyK: false });
      expect(r.verdict).toBe('verified');
      return r.stats.states;
    });
    expect(states[1]! - states[0]!).toBeLessThan(8 * 400);
    expect(states[2]! - states[1]!).toBeLessThan(16 * 400);
    expect(states[2]).toBeLessThan(32 * 400);
  });

  it('token rings and their mutants: reduced and full agree on every kind, and every ample subset met is persistent', () => {
    const mutants: Record<string, (text: string) => string> = {
      ok: (t) => t,
      'release before wgmma.wait': (t) => t.replace('    wgmma.wait 0\n    arrive empty[k % D], 128', '    arrive empty[k % D], 128\n    wgmma.wait 0'),
      'expect_tx too small': (t) => t.replace('arrive.expect_tx full[k % D], 512', 'arrive.expect_tx full[k % D], 256'),
      'full count low': (t) => t.replace('mbarrier full[4] count 129', 'mbarrier full[4] count 128'),
      'no empty wait': (t) => t.replace('    wait empty[k % D], token t\n', ''),
      "another barrier's token": (t) => t.replace('    wait full[k % D], token t', '    wait full[(k + 1) % D], token t'),
      'a token waited twice': (t) => t.replace('    wait full[k % D], token t', '    wait full[k % D], token t\n    wait full[k % D], token t'),
    };
    const kinds = (r: { verdict: string; violations: readonly { kind: string }[] }): string => `${r.verdict} ${r.violations.map((v) => v.kind).sort().join(',')}`;
    let subsets = 0;
    const seen = new Set<string>();
    for (const [name, edit] of Object.entries(mutants)) {
      const program = tokenRing(4, 2, edit);
      const reduced = verifyProgram(program, { everyK: false });
      const full = verifyProgram(program, { everyK: false, reduction: false });
      expect(kinds(reduced), name).toBe(kinds(full));
      expect(reduced.stats.states, name).toBeLessThan(full.stats.states);
      seen.add(kinds(full));
      expect(firstBreach(programModel(program), 3000), name).toBeUndefined();
      subsets += subsetsChecked;
    }
    // the mutants are bugs the checker finds: measured 2026-12-04, six different outcomes
    expect(seen.size).toBeGreaterThanOrEqual(5);
    expect(subsets).toBeGreaterThan(300);
  });

  it('aref pipelines: a producer stops at a put into a slot the set holds (about 6 reduced states per k)', () => {
    const states = (consumers: number, iterations: number): number => {
      const r = verifyProgram(pipelineProgram({ depth: 4, pending: 1, consumers, iterations, level: 'aref' }), { level: 'aref', everyK: false });
      expect(r.verdict).toBe('verified');
      return r.stats.states;
    };
    // measured (2026-12-04): 386 and 1,538 states at K = 64 and 256 with one consumer, 387 and
    // 1,539 with two. Without the token counters the producer ran rounds ahead in the analysis and
    // its fills conflicted with every get: 1,116 and 4,572 (one consumer), 539 and 2,075 (two)
    for (const consumers of [1, 2]) {
      const at64 = states(consumers, 64);
      const at256 = states(consumers, 256);
      expect(at256, `C = ${consumers}`).toBeLessThan(7 * 256);
      expect(at256 / at64, `C = ${consumers}`).toBeLessThan(4.2);
    }
  });
});
