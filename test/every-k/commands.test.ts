// A proof for every K from the other commands that verify: `pipeline --iterations any` (and
// `--tiles any`), `emit --param K=any` (the kernel reads K at run time), and `--level both`,
// whose report keeps what each level's verdict covers.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readMeta } from '../../src/ptx/emit/index.ts';
import { arefcheck, expectUsageError } from '../cli/spawn.ts';

const dir = mkdtempSync(join(tmpdir(), 'arefcheck-any-commands-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const family = (d: number, p: number, c: number): string[] => ['pipeline', '--depth', `${d}`, '--pending', `${p}`, '--consumers', `${c}`];

describe('pipeline with a count left open', () => {
  it('--iterations any proves the family member for every K', () => {
    const r = arefcheck(...family(2, 1, 1), '--iterations', 'any');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^✔ verified {2}pipeline D=2 P=1 C=1 K=any at the aref level for every K ≥ 1: /);
    expect(r.stdout).toMatch(/note: proof for every K ≥ 1/);
  });

  it('a member that deadlocks is shown at the smallest K that does, and any>=N starts at N', () => {
    const r = arefcheck(...family(2, 2, 1), '--iterations', 'any', '--json');
    expect(r.status, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as { scope: string; violations: { kind: string; message: string }[] };
    expect(report.scope).toBe('for every K ≥ 1');
    expect(report.violations.map((v) => v.kind)).toEqual(['deadlock']);
    expect(report.violations[0]?.message).toMatch(/^with K = 3: /);
    const later = arefcheck(...family(2, 2, 1), '--iterations', 'any>=5');
    expect(later.status).toBe(1);
    expect(later.stdout).toMatch(/with K = 5: /);
  });

  it('--tiles any proves a persistent cooperative member for every tile count, at the mbarrier level', () => {
    const r = arefcheck(...family(2, 1, 2), '--cooperative', '--iterations', '6', '--tiles', 'any', '--level', 'mbarrier');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^✔ verified {2}pipeline D=2 P=1 C=2 K=6 T=any at the mbarrier level for every T from 1 to 357,913,941: /); // 6·T − 1 < 2^31
  });

  it('K open with a fixed tile count is a bounded check, never a proof (exit 3)', () => {
    const r = arefcheck(...family(2, 1, 1), '--iterations', 'any', '--tiles', '2');
    expect(r.status).toBe(3);
    expect(r.stdout).toMatch(/for K = 1\.\.32 \(bounded\): verified for K = 1\.\.32 only, not for every K: /);
  });

  it('--emit-ptx with K open proves every K before writing the kernel; without it, a note says what the check covered', () => {
    const out = join(dir, 'pipeline.ptx');
    const proved = arefcheck(...family(2, 1, 1), '--iterations', 'any', '--emit-ptx', out);
    expect(proved.status, proved.stderr).toBe(0);
    expect(proved.stdout).toMatch(/for every K ≥ 1: /);
    expect(proved.stderr).toMatch(/note: checked at D = 2, P = 1, C = 1 only: /);
    expect(readMeta(readFileSync(out, 'utf8'))?.params.map((p) => p.name)).toContain('K');
    const once = arefcheck(...family(2, 1, 1), '--iterations', '8', '--emit-ptx', out);
    expect(once.status, once.stderr).toBe(0);
    expect(once.stderr).toMatch(/note: checked at D = 2, P = 1, C = 1, K = 8 only: the kernel reads these params at run time, so a launch with another value is not covered \(--iterations any proves every K\)/);
  });

  it('errors: --print of an open count, two counts open, any>=0 tiles', () => {
    expectUsageError(arefcheck(...family(2, 1, 1), '--iterations', 'any', '--print'), /--print writes one program: give --iterations a number/);
    expectUsageError(arefcheck(...family(2, 1, 1), '--iterations', 'any', '--tiles', 'any'), /only one of --iterations and --tiles can be left open/);
    expectUsageError(arefcheck(...family(2, 1, 1), '--iterations', '4', '--tiles', 'any>=0'), /--tiles any>=0: the smallest value is 1/);
  });
});

describe('emit with K left open', () => {
  it('proves the program for every K before emitting; K stays a kernel .param', () => {
    const out = join(dir, 'db.ptx');
    const r = arefcheck('emit', 'examples/double-buffer.aref', '--target', 'ptx', '--kernel', 'stream', '--param', 'K=any', '-o', out);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^verified examples\/double-buffer\.aref at the mbarrier level for every K ≥ 1 \(\d+ states\); emitting the stream kernel$/m);
    expect(r.stderr).not.toMatch(/note: checked at/);
    expect(readMeta(readFileSync(out, 'utf8'))?.params).toEqual([{ name: 'K', value: 8, inlined: false }]);
  });

  it('without any, says that the check covers the value given only', () => {
    const r = arefcheck('emit', 'examples/double-buffer.aref', '--target', 'ptx', '--kernel', 'stream', '-o', join(dir, 'db8.ptx'));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/note: checked at K = 8 only: the kernel reads this param at run time/);
    // inlined, K is one value in the kernel: nothing to note
    const inlined = arefcheck('emit', 'examples/double-buffer.aref', '--target', 'ptx', '--kernel', 'stream', '--inline', 'K', '-o', join(dir, 'db-inline.ptx'));
    expect(inlined.status, inlined.stderr).toBe(0);
    expect(inlined.stderr).not.toMatch(/note:/);
  });

  it('refuses a program that deadlocks for some K, at the smallest such K', () => {
    const out = join(dir, 'dep.ptx');
    const r = arefcheck('emit', 'examples/depth-equals-pending.aref', '--target', 'ptx', '--kernel', 'stream', '--param', 'K=any', '-o', out);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/with K = 2: /);
    expect(r.stderr).toMatch(/refused: the program is not verified \(violation\)/);
    expect(() => readFileSync(out)).toThrow();
  });

  it('errors: an inlined param left open, a param the program lacks', () => {
    expectUsageError(arefcheck('emit', 'examples/double-buffer.aref', '--target', 'ptx', '--kernel', 'stream', '--param', 'K=any', '--inline', 'K'), /--param K=any: an inlined param is compiled in as one value/);
    expectUsageError(arefcheck('emit', 'examples/double-buffer.aref', '--target', 'ptx', '--kernel', 'stream', '--param', 'N=any'), /--param N=any: the program has no param N/);
  });
});

describe('--level both with K left open', () => {
  it('keeps the scope of the proof and each level’s note', () => {
    const r = arefcheck('verify', 'examples/double-buffer.aref', '--param', 'K=any', '--level', 'both', '--json');
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { scope: string; notes: string[]; properties: { kind: string; reason?: string }[] };
    expect(report.scope).toBe('for every K ≥ 1');
    expect(report.notes.map((n) => n.slice(0, 10))).toEqual(['[aref] pro', '[mbarrier]']);
    expect(report.properties.find((p) => p.kind === 'refinement')?.reason).toMatch(/one value at a time/);
  });
});
