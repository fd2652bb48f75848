// Text-level mutations of emitted PTX, lifted and checked: the bug classes of DESIGN.md are
// reported with their kinds (the original kernels verify).
import { describe, expect, it } from 'vitest';
import type { Program } from '../../src/ir/program.ts';
import { emitFromPipeline } from '../../src/ptx/emit/index.ts';
import { readHints } from '../../src/ptx/lift/hints.ts';
import { liftPtxFile, parsePtx } from '../../src/ptx/lift/index.ts';
import { kinds, verify } from './helpers.ts';

type Kernel = 'stream' | 'gemm';

function emitted(kernel: Kernel): { program: Program; ptx: string } {
  return emitFromPipeline({ depth: 2, pending: 1, consumers: 1, iterations: 4, emit: { kernel } });
}

/** Replace the first line matching `pattern` inside role `role` (or anywhere: role undefined). */
function mutate(ptx: string, role: string | undefined, pattern: RegExp, edit: (line: string) => string): string {
  const lines = ptx.split('\n');
  const hint = role === undefined ? undefined : readHints(parsePtx(ptx, 'e.ptx')).roles.find((r) => r.name === role);
  const i = lines.findIndex((l, n) => pattern.test(l) && (!hint || (n + 1 > hint.from && n + 1 < hint.to)));
  if (i < 0) throw new Error(`no line matches ${String(pattern)}${role ? ` in role ${role}` : ''}`);
  const old = lines[i] ?? '';
  lines[i] = edit(old);
  if (lines[i] === old) throw new Error(`the mutation left line ${i + 1} unchanged: ${old}`);
  return lines.join('\n');
}

function lift(program: Program, ptx: string): Program {
  const [only] = liftPtxFile(ptx, 'e.ptx', { params: new Map(program.params.map((p) => [p.name, p.value])) });
  if (!only) throw new Error('no kernel');
  return only.program;
}

const MUTATIONS: ReadonlyArray<readonly [string, Kernel[], (ptx: string) => string, readonly string[]]> = [
  [
    'consumer parity flipped (M2)',
    ['stream', 'gemm'],
    (ptx) => mutate(ptx, 'consumer0', /mbarrier\.try_wait\.parity/, (l) => {
      const m = /^(\s*)mbarrier\.try_wait\.parity\.shared::cta\.b64 (%p\d+), \[(%r\d+)\], (%r\d+);$/.exec(l);
      if (!m) throw new Error(`unexpected wait: ${l}`);
      return `${m[1]}{\n\t.reg .b32 flipped;\n\txor.b32 flipped, ${m[4]}, 1;\n\tmbarrier.try_wait.parity.shared::cta.b64 ${m[2]}, [${m[3]}], flipped;\n\t}`;
    }),
    ['race', 'fifo'],
  ],
  ['expect_tx bytes halved (M3)', ['stream', 'gemm'], (ptx) => mutate(ptx, 'producer', /^\s*(@%p\d+ )?mbarrier\.arrive\.expect_tx/, (l) => l.replace(/, (\d+);$/, (_, n: string) => `, ${Number(n) / 2};`)), ['race', 'fifo', 'deadlock']],
  ['expect_tx bytes doubled (M4)', ['stream', 'gemm'], (ptx) => mutate(ptx, 'producer', /^\s*(@%p\d+ )?mbarrier\.arrive\.expect_tx/, (l) => l.replace(/, (\d+);$/, (_, n: string) => `, ${Number(n) * 2};`)), ['deadlock']],
  ['empty barrier init count 2 (M5)', ['stream', 'gemm'], (ptx) => mutate(ptx, undefined, /mbarrier\.init\.shared::cta\.b64 \[A_empty\], 1;/, (l) => l.replace('], 1;', '], 2;')), ['deadlock']],
  ['wgmma.wait_group deleted (M6)', ['gemm'], (ptx) => mutate(ptx, 'consumer0', /wgmma\.wait_group\.sync\.aligned 1;/, () => ''), ['race']],
  ['a release deleted (M8)', ['stream', 'gemm'], (ptx) => mutate(ptx, 'consumer0', /mbarrier\.arrive\.shared::cta\.b64/, () => ''), ['deadlock']],
];

describe('mutated emitted kernels', () => {
  it.each(['stream', 'gemm'] as const)('the unmutated %s kernel verifies', async (kernel) => {
    const e = emitted(kernel);
    expect(verify(lift(e.program, e.ptx)).verdict).toBe('verified');
  });

  const cases = MUTATIONS.flatMap(([name, ks, edit, expected]) => ks.map((k) => [`${k}: ${name}`, k, edit, expected] as const));
  it.each(cases)('%s', async (_name, kernel, edit, expected) => {
    const e = emitted(kernel);
    const r = verify(lift(e.program, edit(e.ptx)));
    expect(r.verdict).toBe('violation');
    expect(kinds(r).some((k) => expected.includes(k)), kinds(r).join(', ')).toBe(true);
  });
});
