// Double inits in a prologue stop every path, so the synchronization after them went unchecked:
// inits of a barrier nothing else uses (Triton 3.6's warp specialization) and one init run by all
// lanes of a warp (ThunderKittens). The check then runs once more with them set aside
// (src/verify/set-aside.ts): the double init stays reported, and what the rest does is found too.
import { describe, expect, it } from 'vitest';
import { parseArefFile } from '../../src/lang/index.ts';
import { verifyProgram } from '../../src/verify.ts';
import { checkSettingAsideDoubleInits, SET_ASIDE, setAsideInits } from '../../src/verify/set-aside.ts';
import { forEachOp, type Program, type Stmt } from '../../src/ir/program.ts';

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
    const report = checkSettingAsideDoubleInits(p, check);
    expect(report.verdict).toBe('violation');
    expect(report.violations.map((v) => v.kind)).toEqual(['protocol']);
    expect(report.violations[0]!.message).toMatch(/double init/);
    expect(report.notes?.find((n) => n.startsWith('with the double inits set aside — the inits of barriers nothing uses (lines 9, 10) — '))).toMatch(/the rest of the synchronization: verified; [\d,]+ states$/);
  });

  it('hides nothing behind it: a wrong parity after it is a deadlock the plain check never reaches', () => {
    const p = program('(k / 2) & 1', 'init junk[0], 1');
    const plain = check(p);
    expect(plain.violations.map((v) => v.kind)).toEqual(['protocol']);
    const report = checkSettingAsideDoubleInits(p, check);
    expect(report.violations.map((v) => v.kind)).toEqual(['protocol', 'deadlock']);
    const deadlock = report.violations[1]!;
    expect(deadlock.message.startsWith(SET_ASIDE)).toBe(true);
    expect(deadlock.loc?.line).toBe(12);
    expect(report.notes?.some((n) => /the rest of the synchronization: deadlock \(below, marked\)/.test(n))).toBe(true);
  });

  it('is looked past only when the barrier is dead: a double init of a barrier in use stops there', () => {
    const p = program(GOOD, 'init full[0], 1');
    const report = checkSettingAsideDoubleInits(p, check);
    expect(report.violations.map((v) => v.kind)).toEqual(['protocol']);
    expect(report.violations[0]!.message).toMatch(/full\[0\].*double init/);
    expect((report.notes ?? []).some((n) => n.startsWith('with the'))).toBe(false);
  });

  it('takes out those inits only', () => {
    const p = program(GOOD, 'init junk[0], 1');
    // the op kinds of each role, in order
    const ops = (q: Program): string[] => {
      const out: string[] = [];
      forEachOp(q, (op) => out.push(op.kind));
      return out;
    };
    const aside = setAsideInits(p);
    const stripped = aside.program;
    expect(ops(p).filter((k) => k === 'init')).toHaveLength(2);
    expect(ops(stripped)).toEqual(ops(p).filter((k) => k !== 'init'));
    expect([aside.deadLines, aside.laneLines, aside.removed]).toEqual([[9, 10], [], 2]);
    expect(check(stripped).verdict).toBe('verified');
  });
});

// The lifter records one init per lane when all lanes of a warp run mbarrier.init (ThunderKittens):
// a run of identical inits at one PTX line. Here the producer's first statement repeated so.
function lanesInit(p: Program, lanes: number): Program {
  const [producer, ...rest] = p.roles;
  const [first, ...body] = producer!.body;
  return { ...p, roles: [{ ...producer!, body: [...Array<Stmt>(lanes).fill(first!), ...body] }, ...rest] };
}
// junk is used here (one arrive), so only the lane run is set aside
const lanes = (producerParity: string): Program => lanesInit(parseArefFile(ring({ producerParity, extraInit: 'arrive junk[0]' }), 'ring.aref'), 32);

describe('one init run by all lanes of a warp', () => {
  it('is reported, and counted once for the rest: here it verifies', () => {
    const p = lanes(GOOD);
    expect(check(p).violations.map((v) => [v.kind, v.loc?.line])).toEqual([['protocol', 9]]);
    const aside = setAsideInits(p);
    expect([aside.deadLines, aside.laneLines, aside.removed]).toEqual([[], [9], 31]);
    const report = checkSettingAsideDoubleInits(p, check);
    expect(report.violations.map((v) => v.kind)).toEqual(['protocol']);
    expect(report.notes?.find((n) => n.startsWith('with the double inits set aside — the inits all lanes of a warp repeat, once per lane (line 9), counted once — '))).toMatch(/verified; [\d,]+ states$/);
  });

  it('hides nothing behind it: a wrong parity after it is a deadlock, marked', () => {
    const report = checkSettingAsideDoubleInits(lanes('(k / 2) & 1'), check);
    expect(report.violations.map((v) => v.kind)).toEqual(['protocol', 'deadlock']);
    expect(report.violations[1]!.message.startsWith(SET_ASIDE)).toBe(true);
  });

  it('inits of one barrier at two instructions are not a lane run: nothing set aside', () => {
    const p = parseArefFile(ring({ producerParity: GOOD, extraInit: 'init full[0], 1' }).replace('init junk[0], 1', 'init full[0], 1'), 'ring.aref');
    expect(setAsideInits(p).removed).toBe(0);
    const report = checkSettingAsideDoubleInits(p, check);
    expect(report.violations.map((v) => v.kind)).toEqual(['protocol']);
    expect((report.notes ?? []).some((n) => n.startsWith('with the'))).toBe(false);
  });
});
