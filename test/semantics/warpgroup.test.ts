// One wgmma, several roles: `warpgroup R1, R2` (semantics/async.ts). wgmma.mma_async is an
// operation of a warpgroup's 4 warps; when the warps are different roles (fast.cu M2/M3: warp 0
// also issues the copies) a group retires in all of them at once, once each has committed it, and
// every partner's wait acquires the completion of all their reads.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Program } from '../../src/ir/program.ts';
import { parseArefFile, printProgram, programFromJson } from '../../src/lang/index.ts';
import { verifyProgram } from '../../src/verify.ts';
import { replayTrace } from '../../src/verify/replay.ts';
import { readTraceJson, violationToTraceJson } from '../../src/verify/trace-json.ts';
import { errorOf } from '../lang/input-error.ts';

const FIXTURES = join(import.meta.dirname, '../fixtures/programs');
const load = (name: string): Program => parseArefFile(readFileSync(join(FIXTURES, name), 'utf8'), name);
const kinds = (p: Program, por = true): string[] => [...new Set(verifyProgram(p, { reduction: por }).violations.map((v) => v.kind))].sort();

describe('warpgroup: one wgmma operation over several roles', () => {
  const shared = load('warpgroup-shared-mma.aref');

  it('verifies the split warpgroup, with and without reduction', () => {
    for (const por of [true, false]) {
      const r = verifyProgram(shared, { reduction: por });
      expect(r.verdict, r.violations[0]?.message).toBe('verified');
      expect(r.stats.states).toBeGreaterThan(50);
    }
  });

  it('without the declaration each role retires alone: the refill races with the partner’s read', () => {
    const { warpgroups: _, ...alone } = shared;
    const r = verifyProgram(alone, { stopAtFirst: true });
    expect(r.verdict).toBe('violation');
    const v = r.violations[0]!;
    expect(v.kind).toBe('race');
    // the leader retired its group alone and refilled S[0] before the rest read it
    expect(v.message).toMatch(/race on S\[0\]: wgmma\.issue reading by rest while a TMA copy into it \(issued by leader\)/);
    const json = violationToTraceJson(r, 0, 'alone.aref', { params: { K: 3 }, literal: false });
    expect(replayTrace(alone, readTraceJson(JSON.stringify(json), 'trace.json')).reached).toBe('race');
  });

  it('a wgmma of the split warpgroup reads once every partner issued it: each role may write its own rows of the operand before its issue', () => {
    // FlashAttention-3 at head dim 64: each warp writes its rows of P, fences and issues P·V
    const operand = load('warpgroup-smem-operand.aref');
    for (const por of [true, false]) expect(verifyProgram(operand, { reduction: por }).verdict).toBe('verified');
    const text = readFileSync(join(FIXTURES, 'warpgroup-smem-operand.aref'), 'utf8');
    const restAt = text.indexOf('role rest');
    const rest = (edit: (body: string) => string): Program => parseArefFile(text.slice(0, restAt) + edit(text.slice(restAt)), 'mutant.aref');
    const raceOf = (p: Program, por = true): string | undefined => verifyProgram(p, { reduction: por }).violations.find((v) => v.kind === 'race')?.message;
    // the rest's row written after its own issue: the operation may already read it
    const late = rest((b) => b.replace('  write P[1]\n', '').replace('  wgmma.issue P[1]\n', '  wgmma.issue P[1]\n  write P[1]\n'));
    for (const por of [true, false]) expect(raceOf(late, por)).toMatch(/race on P\[1\]: write by rest while a wgmma of rest is still reading it/);
    // no proxy fence after the rest's generic write: its own issue is the async read after it
    const unfenced = rest((b) => b.replace('  fence.proxy.async\n', ''));
    for (const por of [true, false]) expect(raceOf(unfenced, por)).toMatch(/race on P\[1\]: wgmma\.issue reading by rest by the async proxy after a generic write with no fence/);
    // a role outside the warpgroup writes P[1] with nothing ordering it before the issue: a race as before
    const other = parseArefFile(`${text}\nrole other warps 1:\n  write P[1]\n  fence.proxy.async\n`, 'other.aref');
    for (const por of [true, false]) expect(raceOf(other, por)).toMatch(/race on P\[1\]/);
    // and the roles retiring alone (no warpgroup line): the leader's wgmma reads while the rest writes
    const { warpgroups: _, ...alone } = operand;
    expect(raceOf(alone)).toMatch(/race on P\[/);
  });

  it('a partner’s read before its issue is not ordered before another partner’s release: a race, unless one role makes both', () => {
    // CUTLASS example 68: every warp reads a stage's scales, then issues; warp 4 alone releases the stage
    const text = readFileSync(join(FIXTURES, 'warpgroup-partner-read.aref'), 'utf8');
    const p = parseArefFile(text, 'warpgroup-partner-read.aref');
    for (const por of [true, false]) {
      const r = verifyProgram(p, { reduction: por });
      expect(r.violations.map((v) => v.kind)).toEqual(['race']);
      expect(r.violations[0]!.message).toBe('producer: race on scales[0]: write by producer is not ordered after the read by rest (write-after-read)');
    }
    // the four warps as one role (the lifter folds them when each used its loaded value before
    // committing): its own release follows its read in program order
    const leaderAt = text.indexOf('role leader');
    const folded = parseArefFile(text.slice(0, leaderAt).replace('warpgroup leader, rest\n', '') + text.slice(leaderAt, text.indexOf('role rest')).replace('role leader warps 1:', 'role consumer warps 4:'), 'folded.aref');
    for (const por of [true, false]) expect(verifyProgram(folded, { reduction: por }).verdict).toBe('verified');
  });

  it('a group one partner never issues never retires: deadlock, naming that partner', () => {
    const p = load('warpgroup-missing-mma.aref');
    expect(kinds(p)).toEqual(['deadlock']);
    expect(kinds(p, false)).toEqual(['deadlock']);
    const v = verifyProgram(p).violations[0]!;
    expect(v.message).toContain('leader wgmma.wait 0 needs at most 0 outstanding groups; 1 outstanding (one warpgroup operation: rest has not committed it)');
  });

  it('the retirement is one action of the first role, retiring both roles’ groups', () => {
    const r = verifyProgram(load('warpgroup-missing-mma.aref'));
    const retires = r.violations[0]!.trace.filter((t) => t.actor.startsWith('wgmma unit'));
    expect(retires.length).toBe(2); // K − 1 iterations with the whole warpgroup's wgmma
    for (const t of retires) {
      expect(t.actor).toBe('wgmma unit (leader)');
      expect(t.changes.join('; ')).toContain('leader wgmma outstanding: 0; rest wgmma outstanding: 0');
    }
  });

  it('survives printing and the JSON form', () => {
    const text = printProgram(shared);
    expect(text).toContain('warpgroup leader, rest\n');
    expect(parseArefFile(text, 'again.aref').warpgroups).toEqual([['leader', 'rest']]);
    const json = programFromJson(JSON.stringify(shared), 'p.json');
    expect(json.warpgroups).toEqual([['leader', 'rest']]);
  });

  it('bad declarations are one error with their position', () => {
    const base = readFileSync(join(FIXTURES, 'warpgroup-shared-mma.aref'), 'utf8');
    const line = base.split('\n').findIndex((l) => l.startsWith('warpgroup')) + 1;
    const at = (text: string): string => {
      const e = errorOf(() => parseArefFile(text, 'w.aref'));
      return `${e.loc?.line}:${e.loc?.col} ${e.message}`;
    };
    expect(at(base.replace('warpgroup leader, rest', 'warpgroup leader, reast'))).toBe(`${line}:1 warpgroup: 'reast' is not a role (did you mean 'rest'?)`);
    expect(at(base.replace('warpgroup leader, rest', 'warpgroup leader, leader'))).toBe(`${line}:1 warpgroup: role 'leader' is in more than one warpgroup (or twice in one)`);
    expect(at(base.replace('warpgroup leader, rest', 'warpgroup leader'))).toBe(`${line}:1 a warpgroup joins at least two roles, found 1`);
    expect(at(base.replace('role rest warps 3', 'role rest warps 4'))).toBe(`${line}:1 warpgroup leader, rest: its roles have 5 warps, a warpgroup has 4`);
    expect(at(base.replace('warpgroup leader, rest', 'warpgroup leader rest'))).toMatch(new RegExp(`^${line}:18 `));
    const e = errorOf(() => programFromJson(JSON.stringify({ ...shared, warpgroups: [['leader', 7]] }), 'p.json'));
    expect(e.message).toMatch(/role name/);
  });
});
