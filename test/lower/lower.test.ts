import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/diag.ts';
import { bin, num, v } from '../../src/ir/expr.ts';
import type { Op, Program, Stmt } from '../../src/ir/program.ts';
import { programLevel } from '../../src/ir/program.ts';
import { loadProgramFile } from '../../src/lang/load.ts';
import { stripLocs } from '../../src/lang/strip.ts';
import { DEFAULT_SLOT_BYTES, lowerProgram } from '../../src/lower.ts';
import { pipelineProgram } from '../../src/pipeline.ts';
import { unrollRole } from '../../src/unroll.ts';
import { concrete } from './concrete.ts';
import { simulate } from './mini-sim.ts';

const at = (line: number) => ({ file: 'double-buffer.aref', line, col: 5 });
const op = (o: Op, line: number): Stmt => ({ kind: 'op', op: o, loc: at(line) });
const slot = (e = v('k')) => ({ name: 'A', index: bin('%', e, num(2)) });

/** The double-buffered pipeline of issue 2 (D = 2, P = 1), built directly as IR. */
function doubleBuffer(K: number): Program {
  return {
    params: [{ name: 'K', value: K }],
    resources: [{ kind: 'aref', name: 'A', depth: 2, loc: at(2) }],
    roles: [
      {
        name: 'producer',
        warps: 1,
        body: [{ kind: 'for', var: 'k', from: num(0), to: v('K'), body: [op({ kind: 'put', target: slot(), value: v('k') }, 5)] }],
      },
      {
        name: 'consumer',
        warps: 4,
        body: [
          {
            kind: 'for', var: 'k', from: num(0), to: v('K'),
            body: [
              op({ kind: 'get', target: slot(), expect: v('k') }, 8),
              op({ kind: 'wgmma.issue', target: slot(), commit: true }, 9),
              op({ kind: 'wgmma.wait', pending: num(1) }, 10),
              { kind: 'if', cond: bin('>=', v('k'), num(1)), then: [op({ kind: 'consumed', target: slot(bin('-', v('k'), num(1))) }, 11)], else: [] },
            ],
          },
          op({ kind: 'wgmma.wait', pending: num(0) }, 12),
          op({ kind: 'consumed', target: slot(bin('-', v('K'), num(1))) }, 13),
        ],
      },
    ],
  };
}

const sequence = (p: Program, role: number): string[] => unrollRole(p, role).map(concrete);

describe('lowerProgram on the double-buffered pipeline', () => {
  const lowered = lowerProgram(doubleBuffer(4));

  it('replaces the aref by a buffer and full/empty barriers of count 1', () => {
    expect(lowered.resources).toEqual([
      { kind: 'buffer', name: 'A_buf', slots: 2, bytes: DEFAULT_SLOT_BYTES, loc: at(2) },
      { kind: 'mbarrier', name: 'A_full', size: 2, count: 1, loc: at(2) },
      { kind: 'mbarrier', name: 'A_empty', size: 2, count: 1, loc: at(2) },
    ]);
    expect(programLevel(lowered)).toBe('mbarrier');
  });

  it('gives the producer empty-wait (parity 1 first), arrive.expect_tx, TMA per put', () => {
    const b = DEFAULT_SLOT_BYTES;
    const put = (s: number, parity: number, value: number) => [
      `wait A_empty[${s}] ${parity}`,
      `arrive.expect_tx A_full[${s}] ${b}`,
      `tma.load A_buf[${s}] -> A_full[${s}] ${b} value ${value}`,
    ];
    expect(sequence(lowered, 0)).toEqual([...put(0, 1, 0), ...put(1, 1, 1), ...put(0, 0, 2), ...put(1, 0, 3)]);
  });

  it('gives the consumer full-wait, read, wgmma on the buffer, a proxy fence and the release after wgmma.wait', () => {
    const get = (s: number, parity: number, value: number) => [
      `wait A_full[${s}] ${parity}`,
      `read A_buf[${s}] expect ${value}`,
      `mma.issue A_buf[${s}]`,
      'wgmma.wait 1',
    ];
    // the gets read A_buf with ld.shared and the producer refills it by TMA: each release is fenced
    const release = (s: number) => ['fence.proxy.async', `arrive A_empty[${s}] 1`];
    expect(sequence(lowered, 1)).toEqual([
      ...get(0, 0, 0),
      ...get(1, 0, 1), ...release(0),
      ...get(0, 1, 2), ...release(1),
      ...get(1, 1, 3), ...release(0),
      'wgmma.wait 0', ...release(1),
    ]);
  });

  it('keeps the loc of each original op on the ops it lowers to', () => {
    const lines = unrollRole(lowered, 0).slice(0, 3).map((u) => u.loc?.line);
    expect(lines).toEqual([5, 5, 5]);
    const consumerLines = unrollRole(lowered, 1).map((u) => u.loc?.line);
    expect(consumerLines.slice(0, 4)).toEqual([8, 8, 9, 10]);
    expect(consumerLines.at(-1)).toBe(13);
  });

  it('leaves the params and role shapes alone', () => {
    expect(lowered.params).toEqual(doubleBuffer(4).params);
    expect(lowered.roles.map((r) => [r.name, r.warps])).toEqual([['producer', 1], ['consumer', 4]]);
  });
});

describe('lowerProgram on examples/double-buffer.aref', () => {
  const file = new URL('../../examples/double-buffer.aref', import.meta.url).pathname;
  const source = loadProgramFile(file);
  const lowered = lowerProgram(source);

  it('gives the same program as the IR built by hand (K = 8)', () => {
    expect(stripLocs(lowered)).toEqual(stripLocs(lowerProgram(doubleBuffer(8))));
  });

  it('points every lowered op at its line in the file', () => {
    const putLine = unrollRole(source, 0)[0]!.loc?.line;
    expect(putLine).toBeGreaterThan(0);
    expect(unrollRole(lowered, 0).slice(0, 3).map((u) => [u.loc?.file, u.loc?.line])).toEqual(Array(3).fill([file, putLine]));
  });
});

describe('lowerProgram options and errors', () => {
  it('takes slot bytes from the aref first, then the option, then the default', () => {
    const p = doubleBuffer(2);
    const withOpt = lowerProgram(p, { bytes: 4096 });
    expect(withOpt.resources[0]).toMatchObject({ kind: 'buffer', bytes: 4096 });
    expect(sequence(withOpt, 0)[1]).toBe('arrive.expect_tx A_full[0] 4096');
    const own: Program = { ...p, resources: [{ kind: 'aref', name: 'A', depth: 2, bytes: 512 }] };
    expect(lowerProgram(own, { bytes: 4096 }).resources[0]).toMatchObject({ bytes: 512 });
  });

  it('lowers a get without expect to the wait alone', () => {
    const p = doubleBuffer(1);
    const consumer = p.roles[1]!;
    const loop = consumer.body[0]!;
    if (loop.kind !== 'for') throw new Error('shape');
    const noExpect: Program = {
      ...p,
      roles: [p.roles[0]!, { ...consumer, body: [{ ...loop, body: [op({ kind: 'get', target: slot() }, 8)] }] }],
    };
    expect(sequence(lowerProgram(noExpect), 1)).toEqual(['wait A_full[0] 0']);
  });

  const withPut = (index: Program['roles'][number]['body'][number]): Program => ({
    params: [{ name: 'D', value: 2 }],
    resources: [{ kind: 'aref', name: 'A', depth: 2 }],
    roles: [{ name: 'producer', warps: 1, body: [index] }],
  });

  it('accepts `e % D` with D a param whose value is the depth', () => {
    const p = withPut(op({ kind: 'put', target: { name: 'A', index: bin('%', num(3), v('D')) }, value: num(7) }, 3));
    expect(sequence(lowerProgram(p), 0)[0]).toBe('wait A_empty[1] 0');
  });

  it.each([
    ['a bare index', num(0)],
    ['a modulus that is not the depth', bin('%', v('k'), num(3))],
    ['a modulus over a loop variable', bin('%', v('k'), v('k'))],
    ['another operator', bin('&', v('k'), num(1))],
  ])('refuses %s with an InputError at the op', (_what, index) => {
    const p = withPut(op({ kind: 'put', target: { name: 'A', index }, value: num(0) }, 3));
    let caught: unknown;
    try {
      lowerProgram(p);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(InputError);
    const err = caught as InputError;
    expect(err.message).toMatch(/^cannot lower: slot index of A must be `e % 2`/);
    expect(err.format()).toMatch(/^double-buffer\.aref:3:5: error: /);
  });

  it('refuses a program whose names collide with the lowered ones', () => {
    const p: Program = { ...doubleBuffer(1), resources: [{ kind: 'aref', name: 'A', depth: 2 }, { kind: 'buffer', name: 'A_buf', slots: 1, bytes: 8 }] };
    expect(() => lowerProgram(p)).toThrow(/A_buf is already used/);
  });
});

// Oracle: CUTLASS PipelineState (ptx-mbarrier.md §5.1): index/phase advanced by ++, flipping the
// phase on wrap; the producer starts at phase 1, the consumer at phase 0.
function pipelineStateWaits(D: number, K: number, startPhase: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let index = 0;
  let phase = startPhase;
  for (let k = 0; k < K; k++) {
    out.push([index, phase]);
    index += 1;
    if (index === D) {
      index = 0;
      phase ^= 1;
    }
  }
  return out;
}

describe('lowered pipelines against independent oracles', () => {
  it('wait slots and parities equal CUTLASS PipelineState for C = 1', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 20 }), (D, P, K) => {
        const p = pipelineProgram({ depth: D, pending: P, consumers: 1, iterations: K, level: 'mbarrier' });
        const waits = (role: number, bar: string) =>
          sequence(p, role)
            .filter((s) => s.startsWith(`wait ${bar}`))
            .map((s) => {
              const m = /\[(\d+)\] (\d+)$/.exec(s)!;
              return [Number(m[1]), Number(m[2])];
            });
        expect(waits(0, 'A_empty')).toEqual(pipelineStateWaits(D, K, 1));
        expect(waits(1, 'A_full')).toEqual(pipelineStateWaits(D, K, 0));
      }),
    );
  });

  // When C divides D every slot belongs to one consumer (k mod D determines k mod C), so the run
  // is determined up to interleaving: consumer c holds at most D/C slots, and it deadlocks the
  // producer iff it needs a slot again (more than D/C iterations) before it releases one (D/C <= P).
  it('aref and mbarrier levels agree with the D/C <= P deadlock rule under random schedules', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 10 }), fc.integer(),
        (C, slotsPerConsumer, P, K, seed) => {
          const D = C * slotsPerConsumer;
          const aref = pipelineProgram({ depth: D, pending: P, consumers: C, iterations: K, level: 'aref' });
          const expected = Math.ceil(K / C) > slotsPerConsumer && slotsPerConsumer <= P ? 'stuck' : 'finished';
          expect(simulate(aref, seed).kind).toBe(expected);
          expect(simulate(lowerProgram(aref), seed).kind).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  // With C not dividing D, a consumer can take a slot filled for another consumer's iteration:
  // the family itself breaks FIFO (aref.pml asserts x == k there too). The oracle must see it.
  it('finds the FIFO break of D = 1, C = 2 at both levels on some schedule', () => {
    const aref = pipelineProgram({ depth: 1, pending: 0, consumers: 2, iterations: 2, level: 'aref' });
    const seeds = Array.from({ length: 50 }, (_, i) => i + 1);
    expect(seeds.some((s) => simulate(aref, s).kind === 'error')).toBe(true);
    expect(seeds.some((s) => simulate(lowerProgram(aref), s).kind === 'error')).toBe(true);
    expect(seeds.some((s) => simulate(aref, s).kind === 'finished')).toBe(true);
  });
});
