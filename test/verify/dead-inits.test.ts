// A double init of a barrier nothing else uses (Triton 3.6's warp specialization does it in every
// kernel's prologue) stops every path, so the synchronization after it went unchecked. The check
// then runs once more with those inits set aside (src/verify/dead-barriers.ts): the double init
// stays reported, and what the rest does is found too.
import { describe, expect, it } from 'vitest';
import { parseArefFile } from '../../src/lang/index.ts';
import { verifyProgram } from '../../src/verify.ts';
import { checkSettingAsideDeadInits, SET_ASIDE, withoutInits } from '../../src/verify/dead-barriers.ts';
import type { Program, Stmt } from '../../src/ir/program.ts';

const ring = (opts: { producerParity: string; extraInit: string }): string => `
param K = 6
buffer S[2] bytes 16384
mbarrier full[2] count 1
mbarrier empty[2] count 1
mbarrier junk[1]

role producer warps 1:
  init junk[0], 1
  ${opts.extraInit}
  for k in 0..K:
    wait empty[k % 2], ${opts.producerParity}
    arrive.expect_tx full[k % 2], 16384
    tma.load S[k % 2] -> full[k % 2], 16384 value k

role consumer warps 4:
  for k in 0..K:
    wait full[k % 2], (k / 2) & 1
    wgmma.issue S[k % 2] expect k
    wgmma.commit
    wgmma.wait 1
    if k >= 1: arrive empty[(k - 1) % 2]
  wgmma.wait 0
  arrive empty[(K - 1) % 2]
`;
const GOOD = '((k / 2) & 1) ^ 1';
const check = (p: Program) => verifyProgram(p, { level: 'mbarrier' });
const program = (producerParity: string, extraInit: string): Program => parseArefFile(ring({ producerParity, extraInit }), 'ring.aref');

describe('a double init of a barrier nothing uses', () => {
  it('is reported, and the rest is checked past it: here it verifies', () => {
    const p = program(GOOD, 'init junk[0], 1');
    const plain = check(p);
    expect(plain.verdict).toBe('violation');
    expect(plain.violations.map((v) => v.kind)).toEqual(['protocol']);
    const report = checkSettingAsideDeadInits(p, check);
    expect(report.verdict).toBe('violation');
    expect(report.violations.map((v) => v.kind)).toEqual(['protocol']);
    expect(report.violations[0]!.message).toMatch(/double init/);
    expect(report.notes?.find((n) => n.startsWith('with the 2 inits of barriers nothing uses set aside (lines 9, 10)'))).toMatch(/: verified; [\d,]+ states$/);
  });

  it('hides nothing behind it: a wrong parity after it is a deadlock the plain check never reaches', () => {
    const p = program('(k / 2) & 1', 'init junk[0], 1');
    const plain = check(p);
    expect(plain.violations.map((v) => v.kind)).toEqual(['protocol']);
    const report = checkSettingAsideDeadInits(p, check);
    expect(report.violations.map((v) => v.kind)).toEqual(['protocol', 'deadlock']);
    const deadlock = report.violations[1]!;
    expect(deadlock.message.startsWith(SET_ASIDE)).toBe(true);
    expect(deadlock.loc?.line).toBe(12);
    expect(report.notes?.some((n) => /the rest of the synchronization: deadlock \(below, marked\)/.test(n))).toBe(true);
  });

  it('is looked past only when the barrier is dead: a double init of a barrier in use stops there', () => {
    const p = program(GOOD, 'init full[0], 1');
    const report = checkSettingAsideDeadInits(p, check);
    expect(report.violations.map((v) => v.kind)).toEqual(['protocol']);
    expect(report.violations[0]!.message).toMatch(/full\[0\].*double init/);
    expect((report.notes ?? []).some((n) => n.startsWith('with the'))).toBe(false);
  });

  it('takes out those inits only', () => {
    const p = program(GOOD, 'init junk[0], 1');
    // the op kinds of each role, in order (the roles here are loops and ifs over ops)
    const ops = (q: Program): string[] => {
      const out: string[] = [];
      const walk = (stmts: readonly Stmt[]): void => {
        for (const s of stmts) {
          if (s.kind === 'op') out.push(s.op.kind);
          else if (s.kind === 'for') walk(s.body);
          else {
            walk(s.then);
            walk(s.else);
          }
        }
      };
      for (const r of q.roles) walk(r.body);
      return out;
    };
    const stripped = withoutInits(p, new Set(['junk']));
    expect(ops(p).filter((k) => k === 'init')).toHaveLength(2);
    expect(ops(stripped)).toEqual(ops(p).filter((k) => k !== 'init'));
    expect(check(stripped).verdict).toBe('verified');
  });
});
