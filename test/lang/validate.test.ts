// Validation: names, kinds, sizes, and operand values over the iteration space.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { InputError } from '../../src/diag.ts';
import { errorOf } from './input-error.ts';
import type { Program } from '../../src/ir/program.ts';
import { parseAref, parseArefFile, programFromJson, validateProgram } from '../../src/lang/index.ts';

const check = (text: string, overrides?: ReadonlyMap<string, number>): Program => parseArefFile(text, 'v.aref', overrides);
const where = (e: InputError): string => `${e.loc?.line}:${e.loc?.col}`;

const doubleBuffer = readFileSync(join(import.meta.dirname, '../../examples/double-buffer.aref'), 'utf8');

describe('value checks over the iteration space', () => {
  it('follow if conditions: a guarded (k - 1) % 2 is never -1', () => {
    expect(() => check(doubleBuffer)).not.toThrow();
    const unguarded = doubleBuffer.replace('if k >= 1: consumed A[(k - 1) % 2]', 'consumed A[(k - 1) % 2]');
    const e = errorOf(() => check(unguarded));
    expect(e.message).toBe('the index of A must be in 0..1 (A has 2 elements), but (k - 1) % 2 is -1 when k = 0');
  });

  it('use overridden parameter values', () => {
    const p = check(doubleBuffer, new Map([['K', 3]]));
    expect(p.params).toEqual([expect.objectContaining({ name: 'K', value: 3 })]);
    // with K = 0 the final release would touch A[-1]
    expect(errorOf(() => check(doubleBuffer, new Map([['K', 0]]))).message).toContain('(K - 1) % 2 is -1');
    expect(errorOf(() => check(doubleBuffer, new Map([['D', 3]]))).message).toContain("unknown parameter 'D'");
    expect(errorOf(() => check(doubleBuffer, new Map([['K', 2 ** 40]]))).message).toContain('not an integer');
  });

  it('name the loop values that break a rule', () => {
    const e = errorOf(() => check('mbarrier b[2] count 1\nrole r warps 1:\n  for i in 0..3:\n    for j in 0..3:\n      wait b[0], i * j\n'));
    expect(e.message).toBe('the parity of wait must be 0 or 1, but i * j is 2 when i = 1, j = 2');
    expect(where(e)).toBe('5:18');
  });

  it('fall back to intervals for large spaces, reporting only certain errors', () => {
    const big = (index: string, guard = ''): string => `param K = 1000000\naref A[4]\nrole r warps 1:\n  for k in 0..K:\n    ${guard}put A[${index}], k\n`;
    expect(() => check(big('k % 4'))).not.toThrow();
    expect(() => check(big('k & 3'))).not.toThrow();
    // after a loop that uses up the enumeration budget, A[K] is certainly out of range: reported
    const after = `${big('k % 4')}  put A[K - 1000000 + 4], 0\n`;
    const e = errorOf(() => check(after));
    expect(e.message).toBe('the index of A must be in 0..3 (A has 4 elements), but K - 1000000 + 4 is 4');
    expect(where(e)).toBe('6:9');
    // intervals lose the relation between k and k + 1, but k + 4 is out of range for every k: reported
    const loop2 = `${big('k % 4')}  for j in 1..K:\n    put A[j + 3], j\n`;
    expect(errorOf(() => check(loop2)).message).toBe('the index of A must be in 0..3 (A has 4 elements), but j + 3 takes values in 4..1000002');
    // past the budget, j % 8 may be in range and j + 4 sits under an undecided condition: both
    // accepted (the run-time semantics checks each access), although j % 8 does reach 4
    expect(() => check(`${big('k % 4')}  for j in 0..K:\n    put A[j % 8], j\n`)).not.toThrow();
    expect(() => check(`${big('k % 4')}  for j in 0..K:\n    if j > 5: put A[j + 4], j\n`)).not.toThrow();
    // a concrete error met before the budget runs out is reported exactly
    expect(errorOf(() => check(big('k % 8'))).message).toContain('k % 8 is 4 when k = 4');
  });

  it('check counts, byte counts and named barrier operands', () => {
    const prog = (line: string): string => `mbarrier b[2]\nbuffer S[2] bytes 1024\nrole r warps 4:\n  ${line}\n`;
    expect(() => check(prog('init b[0], 128'))).not.toThrow();
    expect(errorOf(() => check(prog('arrive b[0], 0'))).message).toContain('count of arrive must be in 1..1048575');
    expect(errorOf(() => check(prog('expect_tx b[1], 1048576'))).message).toContain('byte count of expect_tx');
    // an expect of no bytes is legal (a CTA with no rows to load); a completion of none is not
    expect(() => check(prog('arrive.expect_tx b[1], 0'))).not.toThrow();
    expect(errorOf(() => check(prog('complete_tx b[1], 0'))).message).toContain('byte count of complete_tx must be in 1..1048575');
    expect(errorOf(() => check(prog('bar.sync 16, 128'))).message).toContain('barrier id of bar.sync must be in 0..15');
    expect(errorOf(() => check(prog('wgmma.wait -1'))).message).toContain('group count of wgmma.wait must be at least 0');
    expect(() => check(prog('tma.load S[1] -> b[1], 1024 value 7'))).not.toThrow();
  });

  it('report division by zero where it happens', () => {
    const e = errorOf(() => check('param Z = 0\naref A[2]\nrole r warps 1:\n  for k in 0..2:\n    put A[k], k % Z\n'));
    expect(e.message).toBe('remainder by zero in k % Z when k = 0');
    expect(where(e)).toBe('5:19'); // at the zero divisor
  });
});

describe('names and kinds', () => {
  it('wgmma.issue reads a buffer or an aref slot', () => {
    expect(() => check('aref A[1]\nbuffer S[1]\nrole r warps 4:\n  mma.issue A[0]\n  wgmma.issue S[0]\n')).not.toThrow();
    expect(errorOf(() => check('mbarrier b[1]\nrole r warps 4:\n  wgmma.issue b[0]\n')).message)
      .toBe('the target of wgmma.issue must be a buffer or an aref, but b is an mbarrier (declared at 1:1)');
  });

  it('rejects resources used as numbers, keywords as names, and names in use', () => {
    expect(errorOf(() => check('aref A[2]\nrole r warps 1:\n  put A[0], A\n')).message).toContain("'A' is an aref, not a number");
    expect(errorOf(() => check('param count = 1\nrole r warps 1:\n  pass\n')).message).toContain("'count' is a keyword");
    expect(errorOf(() => check('param A = 1\naref A[2]\nrole r warps 1:\n  pass\n')).message).toBe("duplicate name 'A': already used by a param (declared at 1:1)");
    expect(errorOf(() => check('param K = 1\nrole r warps 1:\n  for K in 0..2: pass\n')).message).toContain("loop variable 'K' has the name of a param");
  });

  it('a loop variable is out of scope after its loop', () => {
    const e = errorOf(() => check('aref A[2]\nrole r warps 1:\n  for k in 0..2:\n    put A[k], k\n  put A[0], k\n'));
    expect(e.message).toContain("unknown name 'k'");
    expect(where(e)).toBe('5:13');
  });

  it('bounds the warps of a CTA', () => {
    expect(errorOf(() => check('role a warps 20:\n  pass\nrole b warps 16:\n  pass\n')).message).toContain('36 warps in all');
  });
});

describe('JSON input', () => {
  const json = (roles: string, resources = '[{ "kind": "aref", "name": "A", "depth": 2 }]'): string =>
    `{ "params": [], "resources": ${resources}, "roles": ${roles} }`;

  it('validates names that text could never hold', () => {
    const text = json('[{ "name": "two words", "warps": 1, "body": [] }]');
    const e = errorOf(() => validateProgram(programFromJson(text, 'n.json')));
    expect(e.message).toContain("'two words' is not a valid name");
    expect(where(e)).toBe(`1:${text.indexOf('{ "name": "two words"') + 1}`);
  });

  it('points value errors at the JSON node', () => {
    const text = json('[{ "name": "r", "warps": 1, "body": [\n  { "kind": "op", "op": { "kind": "consumed", "target": { "name": "A", "index": { "kind": "num", "value": 5 } } } }\n] }]');
    const e = errorOf(() => validateProgram(programFromJson(text, 'j.json')));
    expect(e.loc).toEqual({ file: 'j.json', line: 2, col: text.split('\n')[1]!.indexOf('{ "kind": "num"') + 1 });
  });

  it('reports a missing field at its object', () => {
    const e = errorOf(() => programFromJson('{ "params": [], "resources": [], "roles": [\n  { "name": "r", "body": [] }\n] }', 'm.json'));
    expect(e.message).toBe('missing field "warps" in a role');
    expect(where(e)).toBe('2:3');
  });
});

describe('parse without validation', () => {
  it('keeps unknown names for validateProgram to report', () => {
    const p = parseAref('role r warps 1:\n  put Z[0], 1\n', 'u.aref');
    expect(p.roles[0]?.body).toHaveLength(1);
    expect(errorOf(() => validateProgram(p)).message).toContain("unknown resource 'Z'");
  });
});
