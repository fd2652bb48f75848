// `arefcheck verify --param K=any` as a user meets it: exit codes, the verdict line, the trace
// file that replays at the K it was found at, and the errors for 'any' where it does not apply.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { arefcheck, expectUsageError } from '../cli/spawn.ts';

describe('verify --param K=any', () => {
  it('proves the double buffer for every K (exit 0)', () => {
    const r = arefcheck('verify', 'examples/double-buffer.aref', '--param', 'K=any');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^✔ verified {2}examples\/double-buffer\.aref at the aref level for every K ≥ 1: /);
    expect(r.stdout).toMatch(/note: proof for every K ≥ 1: the counters are exact up to a shift by the period 2/);
  });

  it('reports the deadlock at K = 2 and writes a trace that replays at K = 2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'arefcheck-any-'));
    const r = arefcheck('verify', 'examples/depth-equals-pending.aref', '--param', 'K=any', '--trace-out', dir, '--json');
    expect(r.status, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as { scope: string; violations: { kind: string; message: string; traceFile: string }[] };
    expect(report.scope).toBe('for every K ≥ 1');
    expect(report.violations.map((v) => v.kind)).toEqual(['deadlock']);
    expect(report.violations[0]?.message).toMatch(/^with K = 2: /);
    const file = report.violations[0]?.traceFile ?? '';
    const meta = (JSON.parse(readFileSync(file, 'utf8')) as { '#meta': { params: Record<string, number> } })['#meta'];
    expect(meta.params).toEqual({ K: 2 });
    const replay = arefcheck('replay', file, 'examples/depth-equals-pending.aref');
    expect(replay.status, replay.stderr).toBe(1);
    expect(replay.stdout).toMatch(/^confirmed: deadlock after \d+ steps$/m);
  });

  it('K=any>=N starts at N', () => {
    const r = arefcheck('verify', 'examples/depth-equals-pending.aref', '--param', 'K=any>=6');
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/for every K ≥ 6: /);
    expect(r.stdout).toMatch(/with K = 6: /);
  });

  it('a program outside the fragment: bounded, exit 3, with the line', () => {
    const r = arefcheck('verify', 'test/fixtures/every-k/squared-index.aref', '--param', 'K=any');
    expect(r.status).toBe(3);
    expect(r.stdout).toMatch(/^\? inconclusive {2}.* for K = 1\.\.32 \(bounded\): verified for K = 1\.\.32 only, not for every K: line 9: /);
  });

  it('errors: an unknown parameter, two open parameters, any in run, an unknown launch value on .ptx', () => {
    expectUsageError(arefcheck('verify', 'examples/double-buffer.aref', '--param', 'N=any'), /unknown parameter 'N' \(the program declares: K\)/);
    expectUsageError(arefcheck('verify', 'examples/double-buffer.aref', '--param', 'K=any', '--param', 'D=any'), /only one parameter can be left open \(K already is\)/);
    expectUsageError(arefcheck('run', 'examples/double-buffer.aref', '--param', 'K=any'), /a parameter left open \('any'\) is for the commands that verify \(verify, emit; pipeline --iterations any\)/);
    // on a kernel, NAME=any is a bounded scan of a launch value (test/ptx/every-value.test.ts): it must exist
    expectUsageError(arefcheck('verify', 'test/fixtures/cuda/ws_ring_ok.ptx', '--param', 'K=any'), /kernel ws_ring_ok has no parameter 'K'/);
  });
});
