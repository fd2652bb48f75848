// The Triton 3.6 TMA + wgmma GEMM sample (external PTX nobody here wrote): its 3-stage pipeline
// as the lifter recovers it, the checker's verdict, and text-level mutations of it.
import { describe, expect, it } from 'vitest';
import type { Program } from '../../src/ir/program.ts';
import { liftPtxFile } from '../../src/ptx/lift/index.ts';
import { liftLaunchPoints } from '../../src/ptx/lift/sweep.ts';
import { parsePtx } from '../../src/ptx/parse/parser.ts';
import { kinds, roleText, verify } from './helpers.ts';
import { read, TRITON, tritonParams } from './paths.ts';

const text = read(TRITON);
const lines = text.split('\n');

function lift(src: string, kTiles: number): Program {
  const [only] = liftPtxFile(src, 'triton.ptx', { params: tritonParams(kTiles) });
  if (!only) throw new Error('no kernel');
  return only.program;
}

/** The sample with line `line` (1-based) replaced; the original must contain `from` there. */
function mutate(line: number, from: string, to: string): string {
  const copy = [...lines];
  const old = copy[line - 1] ?? '';
  if (!old.includes(from)) throw new Error(`line ${line} has no '${from}': ${old}`);
  copy[line - 1] = old.replace(from, to);
  return copy.join('\n');
}

// stage s of the ring uses this barrier (the dynamic-smem layout: barriers at 98304, 98312, 98320)
const BAR = ['smem_98304[0]', 'smem_98312[0]', 'smem_98312[1]'];
const bar = (i: number): string => BAR[i % 3] ?? '?';

describe('Triton 3.6 gemm sample: lifted pipeline', () => {
  it('has one role of 4 warps, three stage barriers and two 3-slot tile buffers', () => {
    const p = lift(text, 4);
    expect(p.roles.map((r) => [r.name, r.warps])).toEqual([['warps0_3', 4]]);
    expect(p.resources).toEqual([
      { kind: 'mbarrier', name: 'smem_98304', size: 1, count: 1 },
      { kind: 'mbarrier', name: 'smem_98312', size: 2 },
      { kind: 'buffer', name: 'smem_0', slots: 3, bytes: 16384 },
      { kind: 'buffer', name: 'smem_49152', slots: 3, bytes: 16384 },
    ]);
    expect(p.params).toEqual([{ name: 'matmul_tma_param_17', value: 256 }]);
  });

  it.each([0, 1, 2, 3, 4, 5, 8, 17, 64])('K = %i k-tiles: parity waits, expect_tx bytes, TMA pairs, wgmma groups', (n) => {
    const ops = roleText(lift(text, n), 0);
    const range = [...Array(n).keys()];
    expect(ops.filter((o) => o.startsWith('wait '))).toEqual(range.map((i) => `wait ${bar(i)} ${Math.floor(i / 3) & 1}`));
    expect(ops.filter((o) => o.startsWith('arrive.expect_tx'))).toEqual(range.map((i) => `arrive.expect_tx ${bar(i)} 32768`));
    expect(ops.filter((o) => o.startsWith('tma.load'))).toEqual(
      range.flatMap((i) => [`tma.load smem_0[${i % 3}] ${bar(i)} 16384`, `tma.load smem_49152[${i % 3}] ${bar(i)} 16384`]),
    );
    expect(ops.filter((o) => o.startsWith('wgmma.issue'))).toEqual(range.flatMap((i) => [`wgmma.issue smem_0[${i % 3}]`, `wgmma.issue smem_49152[${i % 3}]`]));
    expect(ops.filter((o) => o.startsWith('wgmma.wait'))).toEqual([...range.map(() => 'wgmma.wait 1'), 'wgmma.wait 0']);
    expect(ops.filter((o) => o === 'wgmma.commit')).toHaveLength(n);
    expect(new Set(ops.filter((o) => o.startsWith('bar.sync')))).toEqual(new Set(['bar.sync 0 128']));
    // the 3-stage pipeline: the TMA refilling stage i+2's slot comes after the wgmma.wait 1 of iteration i,
    // which retires iteration i-1's reads of that slot
    const waits1 = ops.flatMap((o, j) => (o === 'wgmma.wait 1' ? [j] : []));
    const loads = ops.flatMap((o, j) => (o.startsWith('tma.load smem_0') ? [j] : []));
    for (let i = 0; i + 2 < n; i++) expect(loads[i + 2]).toBeGreaterThan(waits1[i] ?? Infinity);
    // and every consumer wait precedes the wgmma that reads the slot
    const waitAt = ops.flatMap((o, j) => (o.startsWith('wait ') ? [j] : []));
    const issueAt = ops.flatMap((o, j) => (o.startsWith('wgmma.issue smem_0') ? [j] : []));
    for (let i = 0; i < n; i++) expect(issueAt[i]).toBeGreaterThan(waitAt[i] ?? Infinity);
  });

  it('points every operation at its PTX line', () => {
    const p = lift(text, 5);
    const role = p.roles[0];
    const at = (kind: string): number[] => [...new Set((role?.body ?? []).flatMap((s) => (s.kind === 'op' && s.op.kind === kind && s.loc ? [s.loc.line] : [])))].sort((a, b) => a - b);
    expect(at('wait')).toEqual([434]);
    expect(at('wgmma.issue')).toEqual([453]);
    expect(at('tma.load')).toEqual([111, 120, 137, 146, 517, 526]);
    expect(at('arrive.expect_tx')).toEqual([101, 127, 507]);
    expect(at('tma.store')).toEqual([664]);
    for (const s of role?.body ?? []) expect(s.loc?.file).toBe('triton.ptx');
    expect(lines[433]).toMatch(/mbarrier\.try_wait\.parity/);
  });

  it('without the K param, lifts at K = 1 and sweeps K until the ring wraps, saying so', () => {
    const [defaults] = liftPtxFile(text, 'triton.ptx');
    const k = defaults?.facts.launch.find((l) => l.v.key === 'matmul_tma_param_17');
    expect(k).toMatchObject({ value: '1', given: false });
    const points = liftLaunchPoints(parsePtx(text, 'triton.ptx'), {});
    expect(points.map((p) => p.label)).toEqual(['defaults', expect.stringMatching(/^matmul_tma_param_17 = \d+$/)]);
    // the raised K runs every stage of the 3-slot ring at least twice: 6 k-tiles or more
    const loads = (p: Program): number => p.roles.flatMap((r) => r.body).filter((st) => st.kind === 'op' && st.op.kind === 'tma.load').length;
    expect(loads(points[1]?.program ?? points[0]!.program)).toBeGreaterThanOrEqual(2 * 6);
    for (const p of points) expect(verify(p.program).verdict).toBe('verified');
    // a value the user gives is not swept
    expect(liftLaunchPoints(parsePtx(text, 'triton.ptx'), { params: tritonParams(2) }).map((p) => p.label)).toEqual(['defaults']);
  });
});

describe('Triton 3.6 gemm sample: verdicts', () => {
  it.each([1, 2, 3, 4, 5, 6, 8, 16, 17, 32, 64])('verifies with no false alarm for K = %i k-tiles', async (n) => {
        const r = verify(lift(text, n));
    expect(r.violations.map((v) => `${v.kind}: ${v.message}`)).toEqual([]);
    expect(r.verdict).toBe('verified');
  });

  // mutations of the text: the bug classes of DESIGN.md
  const cases: ReadonlyArray<readonly [string, () => string, readonly string[]]> = [
    [
      'consumer parity flipped (M2)',
      () => mutate(434, 'mbarrier.try_wait.parity.shared.b64 complete, [%r33], %r147;', '.reg .b32 flipped;\n\txor.b32 flipped, %r147, 1;\n\tmbarrier.try_wait.parity.shared.b64 complete, [%r33], flipped;'),
      ['race'],
    ],
    ['expect_tx bytes too small in the loop (M3)', () => mutate(507, '32768', '16384'), ['race']],
    ['expect_tx bytes too large in the prologue (M4)', () => mutate(101, '32768', '49152'), ['deadlock']],
    ['init count 2 for a stage barrier (M5)', () => mutate(89, '[%r6], 1;', '[%r6], 2;'), ['deadlock']],
    ['wgmma.wait_group deleted (M6)', () => mutate(495, 'wgmma.wait_group.sync.aligned 1;', ''), ['race']],
    ['the loop arrive.expect_tx deleted (M8)', () => mutate(507, '@%p20 mbarrier.arrive.expect_tx.shared.b64 _, [%r38], 32768;', ''), ['deadlock']],
  ];
  it.each(cases)('catches: %s', async (_name, make, expected) => {
        const r = verify(lift(make(), 5));
    expect(r.verdict).toBe('violation');
    expect(kinds(r).filter((k) => expected.includes(k)).length).toBeGreaterThan(0);
  });
});
