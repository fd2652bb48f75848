// The sync instructions of each role, read back out of the emitted PTX by running one thread of
// it (test/emit/scan.ts), are the Program's ops in order, for concrete K, both kernel families.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { num, v } from '../../src/ir/expr.ts';
import type { Program } from '../../src/ir/program.ts';
import { emitPtx, readMeta, type EmitOptions } from '../../src/ptx/emit/index.ts';
import { pipelineForKernel } from '../../src/ptx/emit/index.ts';
import { expectedPrologue, expectedRole } from './expected.ts';
import { foldEvents, scanThread } from './scan.ts';

function withK(program: Program, k: number): Program {
  return { ...program, params: program.params.map((p) => (p.name === 'K' ? { ...p, value: k } : p)) };
}

/** Runs thread `thread` of the kernel and splits its folded events by region. */
function readBack(ptx: string, program: Program, thread: number): Map<string, string[]> {
  const meta = readMeta(ptx);
  if (!meta) throw new Error('no meta');
  const params: Record<string, number> = { arg_stride: 1000, arg_m: 1024, arg_n: 2048 };
  for (const p of program.params) params[p.name] = p.value;
  const tile = meta['tile'] as { bk: number } | undefined;
  const chunk = meta['chunkBytes'] as number | undefined;
  const events = foldEvents(scanThread(ptx, { thread, params, ...(tile ? { bk: tile.bk } : {}), ...(chunk ? { chunkBytes: chunk } : {}) }));
  const byRegion = new Map<string, string[]>();
  for (const e of events) byRegion.set(e.region, [...(byRegion.get(e.region) ?? []), e.text]);
  return byRegion;
}

function checkKernel(program: Program, options: EmitOptions): void {
  const ptx = emitPtx(program, options);
  const producer = program.roles.findIndex((r) => r.name === 'producer');
  let wg = 0;
  program.roles.forEach((role, index) => {
    const group = index === producer ? 0 : ++wg;
    const first = 128 * group;
    // the elected thread, and another lane in another warp of the role
    const threads: [number, boolean][] = [[first, true], [first + 32 * Math.min(role.warps - 1, 2) + 5, false]];
    for (const [thread, elected] of threads) {
      const got = readBack(ptx, program, thread);
      const at = `${options.kernel} ${role.name} thread ${thread}`;
      expect(got.get('prologue') ?? [], `${at} prologue`).toEqual(expectedPrologue(program, thread === 0));
      expect(got.get(role.name) ?? [], at).toEqual(expectedRole(program, index, options.kernel, elected));
      if (options.kernel === 'gemm' && index !== producer) {
        const consumers = program.roles.length - 1;
        const epilogue = ['wgmma.wait 0', ...(consumers > 1 && options.cooperative !== true ? [`bar.sync ${program.roles.length + 1} ${128 * consumers}`] : [])];
        expect(got.get(`epilogue ${role.name}`) ?? [], `${at} epilogue`).toEqual(epilogue);
      }
      for (const region of got.keys()) expect(['prologue', role.name, `epilogue ${role.name}`, `after ${role.name}`], at).toContain(region);
    }
  });
}

describe('structural: the emitted sync skeleton is the Program, per role, for concrete K', () => {
  for (const kernel of ['stream', 'gemm'] as const) {
    it(`${kernel}: pipeline grid D 2..5, P 0..2, C 1..2, K in {0, 1, 5, 16, 17}`, () => {
      let n = 0;
      for (let depth = 2; depth <= 5; depth++) {
        for (let pending = 0; pending <= 2 && pending < depth; pending++) {
          for (const consumers of [1, 2]) {
            for (const k of [0, 1, 5, 16, 17]) {
              const options: EmitOptions = {
                kernel,
                ...(n % 3 === 0 ? { inlineParams: ['D', 'P', 'C'] } : {}),
                ...(n % 4 === 1 ? { watchdog: 1000 } : {}),
                ...(kernel === 'gemm' && consumers === 1 && n % 2 === 0 ? { ctasPerSm: 2 as const } : {}),
              };
              const program = withK(pipelineForKernel({ depth, pending, consumers, iterations: k }, options), k);
              checkKernel(program, options);
              n++;
            }
          }
        }
      }
      expect(n).toBe(11 * 2 * 5);
    });
  }

  it('gemm, cooperative consumers (both read every stage, no split-K reduction): D 2..4, P < D, C 2, K in {0, 1, 5, 16}, two tiles', () => {
    let n = 0;
    for (let depth = 2; depth <= 4; depth++) {
      for (let pending = 0; pending < depth && pending <= 2; pending++) {
        for (const k of [0, 1, 5, 16]) {
          const options: EmitOptions = { kernel: 'gemm', cooperative: true, tile: n % 2 === 0 ? '128x256x64' : '256x128x64', ...(n % 3 === 0 ? { watchdog: 1000 } : {}) };
          checkKernel(withK(pipelineForKernel({ depth, pending, consumers: 2, iterations: k }, options), k), options);
          n++;
        }
      }
    }
    expect(n).toBe(8 * 4);
  });

  it('a K different from the one emitted with (K is a kernel param) still runs the Program for that K', () => {
    const options: EmitOptions = { kernel: 'gemm' };
    const program = pipelineForKernel({ depth: 3, pending: 1, consumers: 1, iterations: 4 }, options);
    const ptx = emitPtx(program, options);
    const at9 = withK(program, 9);
    expect(readBack(ptx, at9, 128).get('consumer0')).toEqual(expectedRole(at9, 1, 'gemm', true));
  });

  it('detects a changed schedule: a program with a different parity reads back differently', () => {
    const options: EmitOptions = { kernel: 'stream' };
    const program = pipelineForKernel({ depth: 2, pending: 0, consumers: 1, iterations: 4 }, options);
    const ptx = emitPtx(program, options);
    const got = readBack(ptx, program, 0).get('producer') ?? [];
    const wrong = expectedRole(program, 0, 'stream', true).map((t) => t.replace(/^wait A_empty\[0\] 1$/, 'wait A_empty[0] 0'));
    expect(got).not.toEqual(wrong);
  });

  it('refuses a program whose roles share one warpgroup (each emitted role gets its own)', () => {
    const options: EmitOptions = { kernel: 'stream' };
    const program = pipelineForKernel({ depth: 2, pending: 0, consumers: 1, iterations: 4 }, options);
    expect(() => emitPtx(program, options)).not.toThrow();
    const joined: Program = { ...program, warpgroups: [program.roles.map((r) => r.name)] };
    expect(() => emitPtx(joined, options)).toThrow(/each role runs in its own warpgroup; the Program joins roles into one/);
  });
});

describe('expressions compile to the values evalExpr gives', () => {
  // Small operands so that no intermediate value leaves the 32-bit range (PTX wraps, evalExpr does not).
  const leaf = fc.oneof(fc.integer({ min: -9, max: 9 }).map(num), fc.constantFrom(v('k'), v('K'), v('D')));
  const expr = fc.letrec<{ e: ReturnType<typeof num> }>((tie) => ({
    e: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.record({
        kind: fc.constant('bin' as const),
        op: fc.constantFrom('+', '-', '*', '/', '%', '&', '|', '^', '==', '!=', '<', '<=', '>', '>=', '&&', '||'),
        left: tie('e'),
        right: tie('e'),
      }),
      fc.record({ kind: fc.constant('un' as const), op: fc.constantFrom('-', '!'), arg: tie('e') }),
    ),
  })).e;

  it('for random expressions, loop values and inlined or runtime params', () => {
    fc.assert(
      fc.property(expr, fc.boolean(), fc.integer({ min: 1, max: 7 }), (e, inline, dval) => {
        const program: Program = {
          params: [{ name: 'K', value: 3 }, { name: 'D', value: dval }],
          resources: [
            { kind: 'buffer', name: 'S', slots: 1, bytes: 4096 },
            { kind: 'mbarrier', name: 'B', size: 1, count: 1 },
          ],
          roles: [
            {
              name: 'producer',
              warps: 1,
              body: [
                {
                  kind: 'for', var: 'k', from: num(0), to: v('K'),
                  body: [
                    { kind: 'op', op: { kind: 'expect_tx', target: { name: 'B', index: num(0) }, bytes: e } },
                    { kind: 'op', op: { kind: 'tma.load', target: { name: 'S', index: num(0) }, barrier: { name: 'B', index: num(0) }, bytes: num(4096), value: v('k') } },
                  ],
                },
              ],
            },
            { name: 'consumer', warps: 4, body: [] },
          ],
        };
        let expected: string[];
        try {
          expected = expectedRole(program, 0, 'stream', true);
        } catch {
          return true; // division by zero somewhere: evalExpr rejects it, nothing to compare
        }
        if (expected.some((t) => /expect_tx \S+ (-?\d+)$/.test(t) && Math.abs(Number(/(-?\d+)$/.exec(t)?.[1])) >= 2 ** 31)) return true;
        let ptx: string;
        try {
          ptx = emitPtx(program, { kernel: 'stream', ...(inline ? { inlineParams: ['K', 'D'] } : {}) });
        } catch (err) {
          // folding found the division by zero that evaluation at these values did not reach
          if (err instanceof Error && /by zero/.test(err.message)) return true;
          throw err;
        }
        const got = readBack(ptx, program, 0).get('producer') ?? [];
        expect(got).toEqual(expected);
        return true;
      }),
      { numRuns: 300 },
    );
  });
});
