// `verify kernel.ptx --param NAME=any`: a bounded scan of one launch value, never a proof
// (src/verify/ptx-every-value.ts). On the stream kernel emitted from examples/double-buffer-mbar.aref:
// the kernel is bounded-verified, never "verified"; a mutant whose bug needs K ≥ 3 and one whose
// bug needs K ≥ 40 are each reported at exactly that K, with every smaller value checked clean.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { verifyPtx } from '../../src/api.ts';
import { InputError } from '../../src/diag.ts';
import { parseProgramText } from '../../src/lang/load.ts';
import { emitPtx } from '../../src/ptx/emit/index.ts';
import { arefcheck, expectUsageError } from '../cli/spawn.ts';

const example = 'examples/double-buffer-mbar.aref';
const ptx = emitPtx(parseProgramText(readFileSync(example, 'utf8'), example), { kernel: 'stream' });

/** The consumer role's text (between its markers), and the kernel around it. */
function consumerPart(text: string): { before: string; role: string; after: string } {
  const start = text.indexOf('// arefcheck role consumer begin');
  const end = text.indexOf('// arefcheck role consumer end');
  expect(start).toBeGreaterThan(0);
  return { before: text.slice(0, start), role: text.slice(start, end), after: text.slice(end) };
}

/** The consumer's wait on full with its parity flipped in iteration `k` only (a bug that needs K > k). */
function parityFlippedAt(text: string, k: number): string {
  const { before, role, after } = consumerPart(text);
  const counter = /add\.s32 (%r\d+), \1, 1;/.exec(role)?.[1];
  const wait = /(\$L_wait_\d+:)\n\s*mbarrier\.try_wait\.parity\.shared::cta\.b64 %p\d+, \[%r\d+\], (%r\d+);/.exec(role);
  expect(counter).toBeDefined();
  expect(wait).not.toBeNull();
  const [label = '', , parity = ''] = wait ?? [];
  const flip = `{\n\t.reg .pred %pflip;\n\tsetp.eq.s32 %pflip, ${counter}, ${k};\n\t@%pflip xor.b32 ${parity}, ${parity}, 1;\n\t}\n${label}`;
  return before + role.replace(label, flip) + after;
}

const scan = (text: string, maxMs = 60_000) => verifyPtx(text, { file: 'stream.ptx', params: new Map([['K', 'any']]), maxMs });

describe('verify kernel.ptx --param K=any: a bounded scan of K', () => {
  it('is inconclusive (bounded) on a correct kernel, with the values it checked, never verified', () => {
    const r = scan(ptx);
    expect(r.verdict).toBe('inconclusive');
    expect(r.limit?.reason).toBe('bound');
    expect(r.limit?.message).toMatch(/^verified for K ∈ \{1\.\.8, 12, 16, .*\} only, not for every K: lifted PTX has no proof/);
    expect(r.scope).toMatch(/bounded: \d+ values/);
    // the scan stops where a run records more than the sweep's budget of operations, and says so
    expect(r.notes?.some((n) => /the scan ends below K = \d+: that run records more than 6,000 operations/.test(n))).toBe(true);
    expect(r.violations).toEqual([]);
  });

  it('reports a violation at the smallest K checked: the slot reused first at K = 3', () => {
    // without its proxy fence the stream consumer's generic loads race with the producer's next
    // copy into the slot, which first happens at K = 3 (the emitter's own bug, fixed with this test)
    const unfenced = ptx.replace(/\n\tfence\.proxy\.async\.shared::cta;/g, '');
    expect(unfenced).not.toBe(ptx);
    const r = scan(unfenced);
    expect(r.verdict).toBe('violation');
    expect(r.violations[0]?.kind).toBe('race');
    expect(r.violations[0]?.message).toMatch(/^with K = 3: .*cross-proxy write-after-read/);
    expect(r.notes).toContain('K = 3 is the smallest value checked that has the violation (below it, 1, 2 verified)');
  });

  it('bisects the ladder for a bug that needs K ≥ 40 and reports K = 40', () => {
    const r = scan(parityFlippedAt(ptx, 39));
    expect(r.verdict).toBe('violation');
    expect(r.violations.length).toBeGreaterThan(0);
    for (const v of r.violations) expect(v.message).toMatch(/^with K = 40: /);
    // 39 was checked and is clean: the smallest is exact here, not just the ladder step above it
    expect(r.notes?.[0]).toMatch(/^K = 40 is the smallest value checked that has the violation \(below it, 1\.\.8, 12, 16, 24, 32, (36, )?(38, )?39 verified\)$/);
    // and the same kernel at K = 39 with no scan agrees
    const at39 = verifyPtx(parityFlippedAt(ptx, 39), { params: new Map([['K', '39']]), noSweep: true });
    expect(at39.verdict).toBe('verified');
  });

  it('refuses a second open value and a value given twice, with a clear message', () => {
    expect(() => verifyPtx(ptx, { params: new Map([['K', 'any'], ['arg_stride', 'any']]) })).toThrow(InputError);
    expect(() => verifyPtx(ptx, { params: new Map([['K', 'any'], ['5', '4']]) })).toThrow(/given twice/);
    expect(() => verifyPtx(ptx, { params: new Map([['N', 'any']]) })).toThrow(/has no parameter 'N'/);
  });
});

describe('arefcheck verify kernel.ptx --param NAME=any (nvcc-compiled rings)', () => {
  const ring = (name: string) => `test/fixtures/cuda/${name}.ptx`;

  it('exits 3 with the values scanned on a correct ring, and 1 with the smallest value on a buggy one', () => {
    const ok = arefcheck('verify', ring('ws_ring_ok'), '--param', '2=any', '--json');
    expect(ok.status).toBe(3);
    expect(JSON.parse(ok.stdout).limit.reason).toBe('bound');
    // the consumer releases a stage before its reads are done: the 4-stage ring is first reused at 4
    const early = arefcheck('verify', ring('ws_ring_early_release'), '--param', '2=any', '--json');
    expect(early.status).toBe(1);
    const report = JSON.parse(early.stdout) as { violations: { kind: string; message: string }[]; notes: string[] };
    expect(report.violations[0]?.kind).toBe('race');
    expect(report.violations[0]?.message).toMatch(/^with 2 = 4: /);
    expect(report.notes[0]).toBe('2 = 4 is the smallest value checked that has the violation (below it, 1..3 verified)');
    expect(arefcheck('verify', ring('ws_ring_early_release'), '--param', '2=3', '--no-sweep').status).toBe(0);
    expect(arefcheck('verify', ring('ws_ring_early_release'), '--param', '2=4', '--no-sweep').status).toBe(1);
  });

  it('a parameter that does not exist is one line and exit 2', () => {
    expectUsageError(arefcheck('verify', ring('ws_ring_ok'), '--param', '7=any'), /has no parameter '7'/);
  });
});
