import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/diag.ts';
import { programLevel } from '../../src/ir/program.ts';
import { programFromJson, programToJson } from '../../src/lang/json.ts';
import { parseArefFile } from '../../src/lang/load.ts';
import { printProgram } from '../../src/lang/printer.ts';
import { stripLocs } from '../../src/lang/strip.ts';
import { lowerProgram } from '../../src/lower.ts';
import { consumerIterations, pipelineProgram } from '../../src/pipeline.ts';
import { unrollRole } from '../../src/unroll.ts';
import { concrete } from '../lower/concrete.ts';

// Oracle: the consumer proctype of peers/spin/aref.pml, transliterated. It yields the aref ops of
// consumer c in order: get(k % D) with its expected value, and consumed(lo % D) of the oldest
// outstanding iteration once k - lo >= P*C, then the tail.
function spinConsumer(D: number, P: number, C: number, K: number, c: number): string[] {
  const out: string[] = [];
  let k = c;
  let lo = c;
  while (k < K) {
    out.push(`get A[${k % D}] expect ${k}`);
    if (k - lo >= P * C) {
      out.push(`consumed A[${lo % D}]`);
      lo += C;
    }
    k += C;
  }
  while (lo < k) {
    out.push(`consumed A[${lo % D}]`);
    lo += C;
  }
  return out;
}

const grid: Array<[number, number, number, number]> = [];
for (const D of [1, 2, 3, 4]) for (const P of [0, 1, 2, 3]) for (const C of [1, 2, 3]) for (const K of [0, 1, 2, 5, 8]) grid.push([D, P, C, K]);

const arefOps = (lines: string[]): string[] => lines.filter((l) => l.startsWith('get ') || l.startsWith('consumed '));

describe('pipelineProgram', () => {
  it('has the params D, P, C, K, one aref A[D], a producer and C consumers', () => {
    const p = pipelineProgram({ depth: 3, pending: 1, consumers: 2, iterations: 8, level: 'aref' });
    expect(p.params).toEqual([
      { name: 'D', value: 3 }, { name: 'P', value: 1 }, { name: 'C', value: 2 }, { name: 'K', value: 8 },
    ]);
    expect(p.resources).toEqual([{ kind: 'aref', name: 'A', depth: 3 }]);
    expect(p.roles.map((r) => [r.name, r.warps])).toEqual([['producer', 1], ['consumer0', 4], ['consumer1', 4]]);
    expect(programLevel(p)).toBe('aref');
  });

  it('over the (D, P, C, K) grid: the producer puts v_k into A[k % D] in order', () => {
    for (const [D, P, C, K] of grid) {
      const p = pipelineProgram({ depth: D, pending: P, consumers: C, iterations: K, level: 'aref' });
      expect(unrollRole(p, 0).map(concrete), `D=${D} P=${P} C=${C} K=${K}`).toEqual(Array.from({ length: K }, (_, k) => `put A[${k % D}] ${k}`));
    }
  });

  it('over the (D, P, C, K) grid: every consumer follows the order of aref.pml', () => {
    for (const [D, P, C, K] of grid) {
      const p = pipelineProgram({ depth: D, pending: P, consumers: C, iterations: K, level: 'aref' });
      for (let c = 0; c < C; c++) {
        expect(arefOps(unrollRole(p, c + 1).map(concrete)), `D=${D} P=${P} C=${C} K=${K} c=${c}`).toEqual(spinConsumer(D, P, C, K, c));
      }
    }
  });

  // The wgmma reading a slot must have retired (wgmma.wait) before the slot is released (M6).
  it('over the (D, P, C, K) grid: no slot is released while a wgmma still reads it', () => {
    for (const [D, P, C, K] of grid) {
    const p = pipelineProgram({ depth: D, pending: P, consumers: C, iterations: K, level: 'aref' });
    for (let c = 0; c < C; c++) {
      // Track iterations, not slot numbers: with D small a slot number repeats among iterations.
      const outstanding: number[] = [];
      const held: number[] = []; // got and not yet released, oldest first (releases go in order)
      let maxOutstanding = 0;
      for (const line of unrollRole(p, c + 1).map(concrete)) {
        const got = /^get .* expect (\d+)$/.exec(line);
        if (got) held.push(Number(got[1]));
        else if (line.startsWith('mma.issue ')) outstanding.push(held.at(-1)!);
        else if (line.startsWith('wgmma.wait ')) {
          const n = Number(line.split(' ')[1]);
          while (outstanding.length > n) outstanding.shift();
        } else if (line.startsWith('consumed ')) expect(outstanding).not.toContain(held.shift());
        maxOutstanding = Math.max(maxOutstanding, outstanding.length);
      }
      expect(held).toEqual([]);
      expect(outstanding).toEqual([]);
      // P is the MMA pipeline depth: P groups stay outstanding across iterations (then the issue makes P + 1).
      if (consumerIterations(c, C, K) > P) expect(maxOutstanding).toBe(P + 1);
    }
    }
  });

  it('the C = 1 consumer releases (k - P) % D right after the wgmma.wait of iteration k >= P, then the tail', () => {
    const p = pipelineProgram({ depth: 3, pending: 2, consumers: 1, iterations: 5, level: 'aref' });
    const iter = (k: number) => [`get A[${k % 3}] expect ${k}`, `mma.issue A[${k % 3}]`, 'wgmma.wait 2'];
    expect(unrollRole(p, 1).map(concrete)).toEqual([
      ...iter(0), ...iter(1),
      ...iter(2), 'consumed A[0]',
      ...iter(3), 'consumed A[1]',
      ...iter(4), 'consumed A[2]',
      'wgmma.wait 0', 'consumed A[0]', 'consumed A[1]',
    ]);
  });

  it('over the grid, at both levels: the printed program parses and validates back to the same IR', () => {
    for (const level of ['aref', 'mbarrier'] as const) {
      for (const [D, P, C, K] of grid) {
        const p = pipelineProgram({ depth: D, pending: P, consumers: C, iterations: K, level });
        const where = `${level} D=${D} P=${P} C=${C} K=${K}`;
        expect(stripLocs(parseArefFile(printProgram(p), 'gen.aref')), where).toEqual(p);
        expect(stripLocs(programFromJson(programToJson(p), 'gen.json')), where).toEqual(p);
      }
    }
  });

  it('counts each consumer\'s iterations as k = c, c + C, … < K', () => {
    expect([0, 1, 2].map((c) => consumerIterations(c, 3, 7))).toEqual([3, 2, 2]);
    expect(consumerIterations(2, 3, 2)).toBe(0);
  });

  it('stays right when K is overridden below P (the tail guard skips missing iterations)', () => {
    const p = pipelineProgram({ depth: 4, pending: 3, consumers: 2, iterations: 12, level: 'aref' });
    for (const K of [0, 1, 2, 3, 5]) {
      const q = { ...p, params: p.params.map((x) => (x.name === 'K' ? { ...x, value: K } : x)) };
      for (let c = 0; c < 2; c++) expect(arefOps(unrollRole(q, c + 1).map(concrete))).toEqual(spinConsumer(4, 3, 2, K, c));
    }
  });

  it('at level mbarrier is the lowering of the aref level, with the given slot bytes', () => {
    const opts = { depth: 2, pending: 1, consumers: 2, iterations: 6, bytes: 8192 } as const;
    const m = pipelineProgram({ ...opts, level: 'mbarrier' });
    expect(m).toEqual(lowerProgram(pipelineProgram({ ...opts, level: 'aref' })));
    expect(programLevel(m)).toBe('mbarrier');
    expect(m.resources[0]).toEqual({ kind: 'buffer', name: 'A_buf', slots: 2, bytes: 8192 });
  });

  it.each([
    [{ depth: 0 }, /depth must be an integer in 1\.\.4096, got 0/],
    [{ consumers: 8 }, /consumers must be an integer in 1\.\.7, got 8/],
    [{ bytes: 2 ** 20 }, /bytes must be an integer in 1\.\.1048575/],
    [{ iterations: 2 ** 31 }, /iterations must be an integer in 0\.\.2147483647, got 2147483648/],
    [{ pending: -1 }, /pending must be an integer in 0\.\./],
    [{ consumers: 1.5 }, /consumers must be an integer in 1\.\./],
    [{ iterations: Number.NaN }, /iterations must be an integer in 0\.\./],
    [{ bytes: 0 }, /bytes must be an integer in 1\.\./],
  ])('refuses %o with an InputError', (bad, message) => {
    const run = () => pipelineProgram({ depth: 2, pending: 1, consumers: 1, iterations: 4, level: 'aref', ...bad });
    expect(run).toThrow(InputError);
    expect(run).toThrow(message);
  });
});
