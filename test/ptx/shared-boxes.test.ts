// One box size per tensor map across a sweep's points (src/ptx/lift/shared-boxes.ts): the
// strongest kind of evidence any point found wins, the smallest size among the points that found
// it, and the points sized otherwise are lifted again with it.
import { describe, expect, it } from 'vitest';
import type { Program } from '../../src/ir/program.ts';
import type { KernelTrace, LiftFacts, LiftOptions } from '../../src/ptx/lift/lift.ts';
import { shareBoxes, type SizedPoint } from '../../src/ptx/lift/shared-boxes.ts';
import type { SizedMap } from '../../src/ptx/lift/tma-bytes.ts';

const program: Program = { resources: [], roles: [] } as unknown as Program;
const trace = (label: string): KernelTrace => ({ label }) as unknown as KernelTrace;
const facts = (tma: SizedMap[]): LiftFacts => ({ launch: [], inert: [], decides: [], grid: [1, 1, 1], cluster: [1, 1, 1], tma, tensorMaps: tma.map((m) => m.map) });
const map = (m: string, bytes: number, how: SizedMap['how']): SizedMap => ({ map: m, bytes, how, copies: 1 });
const point = (label: string, tma: SizedMap[]): SizedPoint => ({ label, trace: trace(label), program, facts: facts(tma) });

/** A relift that sizes each map as given, or keeps what the point had; it records its calls. */
function relifter(points: readonly SizedPoint[]) {
  const calls: { label: string; boxes: [string, number][] }[] = [];
  const relift = (t: KernelTrace, o: LiftOptions) => {
    const label = (t as unknown as { label: string }).label;
    calls.push({ label, boxes: [...(o.tmaBoxes ?? [])] });
    const before = points.find((p) => p.label === label)!.facts.tma;
    const tma = before.map((m) => (o.tmaBoxes?.has(m.map) ? { ...m, bytes: o.tmaBoxes.get(m.map)!, how: 'given' as const } : m));
    return { program, facts: facts(tma) };
  };
  return { calls, relift };
}

describe('box sizes shared across the points of a sweep', () => {
  it('sizes the defaults with the footprint another point found, and says where it came from', () => {
    // ThunderKittens' based kernel: at the defaults one q tile is loaded (the gap reads two tiles)
    const points = [point('defaults', [map('q', 4096, 'gap'), map('v', 16384, 'ring stride')]), point('n = 128', [map('q', 2048, 'footprint'), map('v', 8192, 'footprint')])];
    const { calls, relift } = relifter(points);
    const out = shareBoxes(points, {}, relift);
    expect(calls).toEqual([{ label: 'defaults', boxes: [['q', 2048], ['v', 8192]] }]);
    expect(out[0]?.facts.tma).toEqual([
      { map: 'q', bytes: 2048, how: 'footprint', copies: 1, at: 'n = 128' },
      { map: 'v', bytes: 8192, how: 'footprint', copies: 1, at: 'n = 128' },
    ]);
    expect(out[1]).toBe(points[1]);
  });

  it('takes the smallest size among points with the same kind of evidence', () => {
    // ThunderKittens' attention backward: at the defaults the reads of two adjacent q tiles merge
    const points = [point('defaults', [map('q', 32768, 'footprint')]), point('N = 256', [map('q', 16384, 'footprint')])];
    const { calls, relift } = relifter(points);
    const out = shareBoxes(points, {}, relift);
    expect(calls.map((c) => c.label)).toEqual(['defaults']);
    expect(out[0]?.facts.tma[0]).toMatchObject({ bytes: 16384, how: 'footprint', at: 'N = 256' });
  });

  it('leaves sizes alone where every point agrees, where the user gave them, and where expect_tx splits disagree', () => {
    const points = [
      point('defaults', [map('a', 8192, 'footprint'), map('b', 1024, 'given'), map('c', 4096, 'expect_tx')]),
      point('K = 384', [map('a', 8192, 'footprint'), map('b', 1024, 'given'), map('c', 2048, 'expect_tx')]),
    ];
    const { calls, relift } = relifter(points);
    const out = shareBoxes(points, { tmaBoxes: new Map([['b', 1024]]) }, relift);
    expect(calls).toEqual([]);
    expect(out).toEqual(points);
  });

  it('gives a size that only gains better evidence the new note without lifting again', () => {
    const points = [point('defaults', [map('b', 8192, 'gap')]), point('K = 768', [map('b', 8192, 'footprint')])];
    const { calls, relift } = relifter(points);
    const out = shareBoxes(points, {}, relift);
    expect(calls).toEqual([]);
    expect(out[0]?.facts.tma).toEqual([{ map: 'b', bytes: 8192, how: 'footprint', copies: 1, at: 'K = 768' }]);
  });

  it('prefers a weaker kind found nowhere better only over weaker ones: ring stride over gap', () => {
    const points = [point('defaults', [map('k', 6144, 'gap')]), point('K = 768', [map('k', 4096, 'ring stride')])];
    const { relift } = relifter(points);
    const out = shareBoxes(points, {}, relift);
    expect(out[0]?.facts.tma[0]).toMatchObject({ bytes: 4096, how: 'ring stride', at: 'K = 768' });
  });
});
