// A proof for every K covers only the values that keep every expression within 32 bits
// (src/every-k/range.ts): past them a concrete check refuses the program, so the proof says where it stops.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/diag.ts';
import { verifyEveryK } from '../../src/every-k/verify.ts';
import { largestInRange } from '../../src/every-k/range.ts';
import { parseAref } from '../../src/lang/index.ts';
import { MAX_INT } from '../../src/lang/syntax.ts';
import { verifyProgram } from '../../src/verify.ts';

// k * 1000000 passes 2^31 − 1 at k = 2148: K = 2148 is the last value whose values all fit
const scaled = parseAref(
  `param K = 8
aref A[1]
role p warps 1:
  for k in 0..K:
    put A[0], k * 1000000
role c warps 1:
  for k in 0..K:
    get A[0] expect k * 1000000
    consumed A[0]
`,
  'scaled.aref',
);

describe('the range a proof for every K covers', () => {
  it('is the largest K whose expressions stay in 32 bits, and the concrete check agrees at its edge', () => {
    expect(largestInRange(scaled, 'K', new Map(), 1)).toBe(2148);
    expect(verifyProgram(scaled, { params: new Map([['K', 2148]]), everyK: false }).verdict).toBe('verified');
    expect(() => verifyProgram(scaled, { params: new Map([['K', 2149]]), everyK: false })).toThrow(InputError);
  });

  it('a proof for every K says where it stops, and a plain loop covers every K the language allows', () => {
    const r = verifyEveryK(scaled, { param: 'K' });
    expect(r.verdict).toBe('verified');
    expect(r.scope).toBe('for every K from 1 to 2,148');
    expect(r.notes?.some((n) => n.startsWith('past K = 2,148 an expression may pass 2147483647'))).toBe(true);
    const plain = parseAref('param K = 8\naref A[1]\nrole p warps 1:\n  for k in 0..K:\n    put A[0], k\nrole c warps 1:\n  for k in 0..K:\n    get A[0] expect k\n    consumed A[0]\n', 'plain.aref');
    expect(largestInRange(plain, 'K', new Map(), 1)).toBe(MAX_INT);
    expect(verifyEveryK(plain, { param: 'K' }).scope).toBe('for every K ≥ 1');
  });

  it('a K inside the range is covered by the proof; one past it is refused as before', () => {
    const inside = verifyProgram(scaled, { params: new Map([['K', 2048]]) });
    expect(inside.verdict).toBe('verified');
    expect(inside.scope).toBe('for K = 2048, by a proof for every K from 1 to 2,148');
    expect(() => verifyProgram(scaled, { params: new Map([['K', 4096]]) })).toThrow(InputError);
  });
});
