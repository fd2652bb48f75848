// The exactness check of the every-K abstraction (src/every-k/fragment.ts): which programs it
// accepts, with which periods and cutoffs, and which it refuses, with the line and the reason.
import { describe, expect, it } from 'vitest';
import { parseAref } from '../../src/lang/index.ts';
import { analyzeFragment, type FragmentResult } from '../../src/every-k/fragment.ts';

const HEAD = 'param K = 8\naref A[2] bytes 16384\n';
const CONSUMER = `role consumer warps 4:
  for k in 0..K:
    get A[k % 2] expect k
    mma.issue A[k % 2]
    wgmma.wait 1
    if k >= 1: consumed A[(k - 1) % 2]
  wgmma.wait 0
  consumed A[(K - 1) % 2]
`;

function analyze(text: string, param = 'K'): FragmentResult {
  const program = parseAref(text, 't.aref');
  const fixed = new Map(program.params.filter((p) => p.name !== param).map((p) => [p.name, p.value]));
  return analyzeFragment(program, param, fixed);
}

function withProducer(body: string): string {
  return `${HEAD}role producer warps 1:\n${body}\n${CONSUMER}`;
}

function reasons(r: FragmentResult): string[] {
  return r.exact ? [] : r.reasons.map((x) => `${x.loc?.line}: ${x.message}`);
}

describe('the exact fragment', () => {
  it('accepts the double buffer: period 2 (k % 2), K open modulo 1, cutoffs from k >= 1 and K - 1', () => {
    const r = analyze(withProducer('  for k in 0..K:\n    put A[k % 2], k'));
    expect(reasons(r)).toEqual([]);
    if (!r.exact) return;
    expect(r.fragment.period).toBe(2);
    expect(r.fragment.farPeriod).toBe(1);
    expect(r.fragment.counterCutoff).toBeGreaterThanOrEqual(1); // k >= 1 is fixed from k = 1 on
    expect(r.fragment.loops.map((l) => l.length)).toEqual([1, 1]);
  });

  it('takes the period from parities: (k / 4) & 1 needs 8', () => {
    const r = analyze(withProducer('  for k in 0..K:\n    put A[(k / 4) & 1], k'));
    expect(r.exact && r.fragment.period).toBe(8);
  });

  it('keeps K modulo what the code before the loop reads of it: (K + 1) / 3 as a bound', () => {
    const r = analyze(`${HEAD}role producer warps 1:\n  for k in 0..(K + 1) / 3:\n    put A[k % 2], 3 * k\n${CONSUMER}`);
    // the consumer then disagrees with the producer, but that is the checker's business: the abstraction is exact
    expect(r.exact && r.fragment.farPeriod).toBe(3);
  });

  it('a late comparison moves the cutoff: k == 39 is fixed only from k = 40', () => {
    const r = analyze(withProducer('  for k in 0..K:\n    if k == 39: put A[0], k\n    put A[k % 2], k'));
    expect(r.exact && r.fragment.counterCutoff).toBe(40);
  });

  it('refuses a product of two counters in an index, with its line', () => {
    expect(reasons(analyze(withProducer('  for k in 0..K:\n    put A[k * k % 2], k')))).toEqual(['5: a product of two values that both move with the loop counter']);
  });

  it('refuses an index that grows with K', () => {
    const r = reasons(analyze(withProducer('  for k in 0..K:\n    put A[k], k')));
    expect(r.length).toBeGreaterThan(0);
    expect(r[0]).toMatch(/^5: an operand moves with K/);
  });

  it('refuses value tags that move apart under the shift (2k against k)', () => {
    const r = reasons(analyze(withProducer('  for k in 0..K:\n    put A[k % 2], 2 * k')));
    expect(r.some((x) => /tags compared for equality must move together/.test(x))).toBe(true);
  });

  it('refuses a loop over K nested in another loop', () => {
    const r = reasons(analyze(withProducer('  for t in 0..2:\n    for k in 0..K:\n      put A[k % 2], k')));
    expect(r.some((x) => /nested in another loop/.test(x))).toBe(true);
  });

  it('refuses a loop over K whose iterations may execute no operation', () => {
    const r = reasons(analyze(withProducer('  for k in 0..K:\n    if k % 2 == 0: put A[k % 2], k')));
    expect(r.some((x) => /every iteration of a loop over K must execute an operation/.test(x))).toBe(true);
  });

  it('refuses a program with no loop over K: nothing to prove for every K', () => {
    const r = reasons(analyze(`${HEAD}role producer warps 1:\n  put A[0], 0\nrole consumer warps 4:\n  get A[0] expect 0\n  consumed A[0]\n`));
    expect(r.some((x) => /no loop runs to K/.test(x))).toBe(true);
  });

  it('accepts a bounded tail loop whose bounds both move with K (the family consumers)', () => {
    const text = `param K = 8\nparam C = 2\naref A[2] bytes 16384\nrole producer warps 1:\n  for k in 0..K:\n    put A[k % 2], k\nrole c0 warps 4:\n  for j in 0..(K + 1) / C:\n    get A[j * C % 2] expect j * C\n    consumed A[j * C % 2]\n  for j in (K + 1) / C - 1..(K + 1) / C:\n    if j >= 0: mma.issue A[j * C % 2]\n  wgmma.wait 0\nrole c1 warps 4:\n  for j in 0..K / C:\n    get A[(1 + j * C) % 2] expect 1 + j * C\n    consumed A[(1 + j * C) % 2]\n`;
    const r = analyze(text);
    expect(reasons(r)).toEqual([]);
    if (r.exact) expect(r.fragment.loops.map((l) => l.length)).toEqual([1, 1, 1]);
  });
});
