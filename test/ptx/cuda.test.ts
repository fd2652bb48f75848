// nvcc 13 PTX of CUDA C++ kernels written against libcu++ (test/fixtures/cuda): what the
// lifter recovers, and the checker's verdicts (correct ring, parity bug, early release).
import { describe, expect, it } from 'vitest';
import type { Program } from '../../src/ir/program.ts';
import { liftPtxFile } from '../../src/ptx/lift/index.ts';
import { kinds, roleText, verify } from './helpers.ts';
import { CUDA_DIR, CUDA_KERNELS, cudaPtx, read } from './paths.ts';

function lift(kernel: (typeof CUDA_KERNELS)[number], k: number): Program {
  const file = cudaPtx(kernel);
  const [only, ...rest] = liftPtxFile(read(file), file, { params: new Map([['2', k]]) });
  if (!only || rest.length > 0) throw new Error('expected one kernel');
  expect(only.kernel).toBe(kernel);
  return only.program;
}

const D = 3;

/** The program of the one kernel of fixture `file` (test/fixtures/cuda/FILE.ptx). */
function liftFile(file: string, params?: ReadonlyMap<string, number>): Program {
  const path = `${CUDA_DIR}${file}.ptx`;
  const [only, ...rest] = liftPtxFile(read(path), path, params ? { params } : {});
  if (!only || rest.length > 0) throw new Error('expected one kernel');
  return only.program;
}

describe('libcu++ ring kernels: lifted programs', () => {
  it.each(CUDA_KERNELS)('%s: barriers and the ring come from the C++ names, params by position', (kernel) => {
    const p = lift(kernel, 4);
    expect(p.resources).toEqual([
      { kind: 'mbarrier', name: 'full', size: 3, count: 1 },
      { kind: 'mbarrier', name: 'empty', size: 3, count: 1 },
      { kind: 'buffer', name: 'ring', slots: 3, bytes: 4096 },
    ]);
    expect(p.params).toEqual([{ name: `${kernel}_param_2`, value: 4 }]);
    // warp 0 produces; warps 1..3 leave after the prologue; warps 4..7 consume in lockstep
    expect(p.roles.map((r) => [r.name, r.warps])).toEqual([['warp0', 1], ['warps4_7', 4]]);
  });

  it.each([1, 2, 3, 7])('ws_ring_ok, K = %i: producer and consumer schedules', (k) => {
    const p = lift('ws_ring_ok', k);
    const range = [...Array(k).keys()];
    expect(roleText(p, 'warp0')).toEqual(
      range.flatMap((i) => [`wait empty[${i % D}] ${(Math.floor(i / D) & 1) ^ 1}`, `arrive.expect_tx full[${i % D}] 4096`, `tma.load ring[${i % D}] full[${i % D}] 4096`]),
    );
    expect(roleText(p, 'warps4_7')).toEqual(
      range.flatMap((i) => [`wait full[${i % D}] ${Math.floor(i / D) & 1}`, `read ring[${i % D}]`, 'fence.proxy.async', 'bar.sync 1 128', `arrive empty[${i % D}] 1`]),
    );
  });

  it('ws_ring_ok: the copies carry the tile index of their global source (value tags)', () => {
    const p = lift('ws_ring_ok', 5);
    const values = (p.roles[0]?.body ?? []).flatMap((s) => (s.kind === 'op' && s.op.kind === 'tma.load' && s.op.value?.kind === 'num' ? [s.op.value.value] : []));
    expect(values).toEqual([0, 1, 2, 3, 4]);
  });

  it('ws_ring_ok, K = 0: no synchronization after the prologue, one empty role (a program needs one)', () => {
    const p = lift('ws_ring_ok', 0);
    expect(p.roles).toEqual([{ name: 'warp0', warps: 1, body: [] }]);
  });

  it('ws_ring_parity_bug: the consumer parity is flipped', () => {
    expect(roleText(lift('ws_ring_parity_bug', 4), 'warps4_7').filter((o) => o.startsWith('wait'))).toEqual(['wait full[0] 1', 'wait full[1] 1', 'wait full[2] 1', 'wait full[0] 0']);
  });

  it('ws_ring_early_release: the release comes before the read', () => {
    expect(roleText(lift('ws_ring_early_release', 1), 'warps4_7')).toEqual(['wait full[0] 0', 'bar.sync 1 128', 'arrive empty[0] 1', 'read ring[0]']);
  });

  it('operations point at nvcc PTX lines of the right instructions', () => {
    const file = cudaPtx('ws_ring_ok');
    const lines = read(file).split('\n');
    const p = lift('ws_ring_ok', 2);
    for (const role of p.roles) {
      for (const s of role.body) {
        if (s.kind !== 'op' || !s.loc) continue;
        const line = lines[s.loc.line - 1] ?? '';
        const want = { wait: /try_wait\.parity/, 'arrive.expect_tx': /arrive\.expect_tx/, 'tma.load': /cp\.async\.bulk/, read: /ld\.shared/, 'fence.proxy.async': /fence\.proxy\.async/, 'bar.sync': /bar\.sync 1, 128/, arrive: /mbarrier\.arrive\./ }[s.op.kind as string];
        expect(line, `${s.op.kind} at line ${s.loc.line}`).toMatch(want ?? /^$/);
      }
    }
  });
});

describe('libcu++ ring kernels: verdicts', () => {
  it.each([1, 2, 3, 4, 6, 9])('ws_ring_ok verifies for K = %i', async (k) => {
    const r = verify(lift('ws_ring_ok', k));
    expect(r.violations.map((v) => v.message)).toEqual([]);
    expect(r.verdict).toBe('verified');
  });

  it.each([1, 3, 5])('ws_ring_parity_bug is a race for K = %i', async (k) => {
    const r = verify(lift('ws_ring_parity_bug', k));
    expect(r.verdict).toBe('violation');
    expect(kinds(r)).toContain('race');
  });

  it('ws_ring_early_release is harmless while the ring does not wrap (K = 2 < D)', async () => {
    expect(verify(lift('ws_ring_early_release', 2)).verdict).toBe('verified');
  });

  it.each([4, 6, 8])('ws_ring_early_release is a race for K = %i', async (k) => {
    const r = verify(lift('ws_ring_early_release', k));
    expect(r.verdict).toBe('violation');
    expect(kinds(r)).toEqual(['race']);
  });
});

describe('the lcsf pattern: a lagging producer warp (gpu/lcsf/lag.cu hangs on an H200 when one lags)', () => {
  it('folds producer warps that signal at different places beside a lag role, which finds the phase a lagging one misses', () => {
    const file = `${CUDA_DIR}lcsf_lag.ptx`;
    const [only] = liftPtxFile(read(file), file, { params: new Map([['0', 8]]) });
    if (!only) throw new Error('expected one kernel');
    // folded into one role alone (before 2026-11-27) the two producers waited in lockstep and the kernel verified
    expect(only.program.roles.map((r) => [r.name, r.warps])).toEqual([['warp0', 1], ['warps1_2', 2], ['warps1_2_lag', 1]]);
    expect(only.facts.lagging).toEqual([{ role: 'warps1_2_lag', of: 'warps1_2', lines: [expect.any(Number)] }]);
    const r = verify(only.program);
    expect(kinds(r)).toEqual(['protocol']);
    expect(r.violations[0]?.message).toMatch(/^warps1_2_lag: wait on finished\[0\] with parity 1 missed its phase/);
  });
});

describe('a wgmma consumer that keeps one group in flight and releases on two barriers (wg_release.cu)', () => {
  it('folds the four consumer warps beside a lag role whose windows run to the next wait_group 1, their barriers used again', () => {
    const p = liftFile('wg_release', new Map([['2', 5]]));
    expect(p.roles.map((r) => [r.name, r.warps])).toEqual([['warp0', 1], ['warps4_7', 4], ['warps4_7_lag', 1]]);
    // the wait on stage k is made again by the lag role until the wait_group 1 that retires stage k's group,
    // which comes after the next wait: two windows open at once, barriers 17 and 18 in turn, 16 to meet
    expect(roleText(p, 'warps4_7_lag')).toEqual(['bar.sync 17 160', 'wait full[1] 0', 'bar.sync 18 160', 'wait full[2] 0', 'bar.sync 16 160', 'bar.sync 17 160', 'wait full[0] 1', 'bar.sync 16 160', 'bar.sync 18 160', 'wait full[1] 1', 'bar.sync 16 160', 'bar.sync 16 160']);
    expect(roleText(p, 'warps4_7').filter((t) => t.startsWith('bar.'))).toEqual(['bar.arrive 17 160', 'bar.arrive 18 160', 'bar.sync 16 160', 'bar.arrive 17 160', 'bar.sync 16 160', 'bar.arrive 18 160', 'bar.sync 16 160', 'bar.sync 16 160']);
    expect(p.namedBarriers).toBe(19);
  });

  it.each([2, 5, 8])('verifies at K = %i', (k) => {
    expect(verify(liftFile('wg_release', new Map([['2', k]]))).violations).toEqual([]);
  });

  it('finds the race when each stage is released right after issuing on it (wg_release_current.cu)', () => {
    const r = verify(liftFile('wg_release_current', new Map([['2', 5]])));
    expect(kinds(r)).toEqual(['race']);
    expect(r.violations[0]?.message).toMatch(/^warp0: race on ring_0\[0\]: tma\.load into it by warp0 while a wgmma of warps4_7 is still reading it/);
  });
});

// The two patterns arefcheck found in ThunderKittens' linear attention (docs/gpu.md; the first one
// gave wrong output on an H200 when one warp was held back, traces/gpu/tk-linear-attention-h200/),
// each cut down in our own CUDA C++ with its fix beside it.
describe("ThunderKittens' linear attention, cut down (group_vector_*.cu, init_no_barrier.cu)", () => {
  it('every warp of a group running a read-modify-write over the whole shared vector is a race', () => {
    const r = verify(liftFile('group_vector_race'));
    expect(kinds(r)).toEqual(['race']);
    expect(r.violations[0]?.message).toMatch(/^warp\d: race on vec\[0\]: read by warp\d is not ordered after the write it may read/);
  });

  it('one warp running it, before the block barrier, verifies', () => {
    expect(verify(liftFile('group_vector_ok')).violations).toEqual([]);
  });

  it("a wait not ordered after another warp's init: the warps that skip the init stay a role of their own", () => {
    const p = liftFile('init_no_barrier');
    // folded, the role made warp 0's init before its wait and the kernel verified
    expect(p.roles.map((r) => [r.name, r.warps])).toEqual([['warp0', 1], ['warps1_3', 3]]);
    const r = verify(p);
    expect(kinds(r)).toEqual(['protocol']);
    expect(r.violations[0]?.message).toBe('warps1_3: wait on bar[0], which is not initialised');
  });

  it('with a __syncthreads() after the init the warps fold and it verifies', () => {
    const p = liftFile('init_sync_ok');
    expect(p.roles.map((r) => [r.name, r.warps])).toEqual([['warps0_3', 4]]);
    expect(verify(p).violations).toEqual([]);
  });
});

// The pattern arefcheck found in FlashInfer's Hopper prefill epilogue (docs/gpu.md: wrong output
// on an H200 when one warpgroup is held back, traces/gpu/flashinfer-prefill-h200/), cut down.
describe("FlashInfer's prefill epilogue, cut down (arrive_then_sync.cu)", () => {
  it('arriving on a named barrier and then syncing on it with the same count: the warps stay apart, and a read races the other warp', () => {
    const p = liftFile('arrive_then_sync');
    // folded, the two warps arrived together each time and the kernel verified
    expect(p.roles.map((r) => [r.name, r.warps])).toEqual([['warp0', 1], ['warp1', 1]]);
    const r = verify(p);
    expect(kinds(r)).toEqual(['race']);
    expect(r.violations[0]?.message).toMatch(/^warp\d: race on tile\[\d\]: /);
  });

  it('syncing twice: the warps fold, and it verifies', () => {
    const p = liftFile('sync_then_sync');
    expect(p.roles.map((r) => [r.name, r.warps])).toEqual([['warps0_1', 2]]);
    expect(verify(p).violations).toEqual([]);
  });
});
