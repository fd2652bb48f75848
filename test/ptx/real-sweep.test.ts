// The launch sweep on real kernels (../shared/corpus, skipped where absent). CUTLASS's
// Cooperative and Pingpong kernels run one k-block per tile by default: raising the tile count
// alone waits the 6-stage ring at both parities only at 12 tiles, too many to check. The balanced
// point (sweep.ts) raises the k-block count instead and keeps as few tiles as every ring needs.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Program, Stmt } from '../../src/ir/program.ts';
import { liftLaunchPoints } from '../../src/ptx/lift/sweep.ts';
import { parsePtx } from '../../src/ptx/parse/parser.ts';
import { verifyProgram } from '../../src/verify.ts';
import { root } from '../cli/spawn.ts';
import { kernelName } from './real-mutants.ts';

const CORPUS = join(root, '..', 'shared', 'corpus');
const here = existsSync(CORPUS);

/** Per barrier element, the parities its waits name (constant in lifted code). */
function waitParities(p: Program): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  const walk = (ss: readonly Stmt[]): void => {
    for (const s of ss) {
      if (s.kind === 'for') walk(s.body);
      else if (s.kind === 'if') {
        walk(s.then);
        walk(s.else);
      } else if (s.op.kind === 'wait' && s.op.target.index.kind === 'num' && s.op.parity.kind === 'num') {
        const key = `${s.op.target.name}[${s.op.target.index.value}]`;
        out.set(key, (out.get(key) ?? new Set()).add(s.op.parity.value));
      }
    }
  };
  for (const r of p.roles) walk(r.body);
  return out;
}

describe.skipIf(!here)('the launch sweep on CUTLASS kernels (needs ../shared/corpus)', () => {
  const text = here ? readFileSync(join(CORPUS, 'cutlass_sm90_schedules_c1.ptx'), 'utf8') : '';
  it.each([
    ['KernelTmaWarpSpecializedCooperative', '0+1656 = 2, 0+12 = 384'],
    ['KernelTmaWarpSpecializedPingpong', '0+1656 = 4, 0+12 = 192'],
  ])('%s: a balanced point with few tiles, every ring waited at both parities', (kernel, label) => {
    const points = liftLaunchPoints(parsePtx(text, 'cutlass.ptx'), { kernel: kernelName(text, kernel) });
    expect(points.map((p) => p.label)).toEqual(['defaults', label]);
    const parities = waitParities(points[1]!.program);
    const rings = [...parities].filter(([name]) => /^smem_(0|48)\[/.test(name)); // the mainloop's full and empty barriers
    expect(rings.length).toBe(12);
    for (const [name, ps] of rings) expect([...ps].sort(), name).toEqual([0, 1]);
  }, 120_000);
});

// CUTLASS stream-K (`.corpus/`, filled by scripts/build-corpus.sh; skipped where absent): the
// fixup spins on flags peer CTAs set in global memory. The lifter takes each spin to end and the
// facts say so; the verdict holds under that assumption.
const STREAMK = join(root, '.corpus', 'cutlass_coop_streamk_128x128x64_f16.ptx');

describe.skipIf(!existsSync(STREAMK))('CUTLASS stream-K (needs .corpus)', () => {
  it('lifts with its two flag spins assumed to end, and verifies at every sweep point', () => {
    const text = readFileSync(STREAMK, 'utf8');
    const lines = text.split('\n');
    const points = liftLaunchPoints(parsePtx(text, 'streamk.ptx'), { kernel: kernelName(text, 'KernelTmaWarpSpecializedCooperative') });
    expect(points.length).toBeGreaterThan(1);
    const spins = points[points.length - 1]!.facts.spins ?? [];
    expect(spins.length).toBeGreaterThan(0);
    // each spin is an ld.acquire and, after its setp, the backward branch that repeats it
    for (const sp of spins) {
      expect(lines[sp.flag - 1]).toMatch(/ld\.global\.acquire\.gpu\.b32/);
      expect(lines[sp.line - 1]).toMatch(/@%p\d+ bra/);
      expect(sp.line - sp.flag).toBeLessThan(8);
    }
    for (const p of points) expect(verifyProgram(p.program).verdict, p.label).toBe('verified');
  }, 300_000);
});
