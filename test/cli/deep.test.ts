// Issue 12.7: a counterexample a million steps deep. The text report, the trace file, SARIF and
// replay must all work (no recursion or argument spread proportional to the depth, no string
// past V8's limit, no out-of-memory), and a diagram refuses politely.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { arefcheck } from './spawn.ts';

const PROGRAM = 'test/fixtures/programs/deep-counterexample.aref';
const DEPTH = 1_019_999; // 340,000 × (put, get, consumed), less the last consumed

describe('a counterexample of a million steps', () => {
  it('is printed, written as a trace file and as SARIF, replayed, and not drawn', () => {
    const dir = mkdtempSync(join(tmpdir(), 'arefcheck-deep-'));
    // the trace file is 431 MB: never leave it behind, pass or fail
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const sarif = join(dir, 'deep.sarif');
    const r = arefcheck('verify', PROGRAM, '--trace-out', dir, '--sarif', sarif);
    expect(r.stderr).not.toMatch(/internal error|Maximum call stack|heap/);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^test\/fixtures\/programs\/deep-counterexample\.aref:11:5: error: fifo after 1019999 steps$/m);
    // the whole trace is printed: one row per step
    expect(r.stdout).toMatch(/^ {2}1019999 {2}c {6}get A\[0\] expect 340000 {2}→ fifo/m);

    const traceFile = join(dir, 'deep-counterexample.aref.fifo.json');
    expect(statSync(traceFile).size).toBeGreaterThan(100e6);
    const flows = JSON.parse(readFileSync(sarif, 'utf8')) as { runs: { results: { properties: { traceSteps: number }; codeFlows: { threadFlows: { locations: unknown[] }[] }[] }[] }[] };
    const result = flows.runs[0]!.results[0]!;
    expect(result.properties.traceSteps).toBe(DEPTH);
    expect(result.codeFlows[0]!.threadFlows[0]!.locations).toHaveLength(1000);

    const replay = arefcheck('replay', traceFile, PROGRAM);
    expect(replay.stderr).toBe('');
    expect(replay.status).toBe(1);
    expect(replay.stdout).toMatch(/confirmed: fifo after 1019999 steps/);

    const diagram = arefcheck('diagram', PROGRAM, '--trace', traceFile);
    expect(diagram.status).toBe(2);
    expect(diagram.stderr).toMatch(/has 1,019,999 steps; a diagram is drawn for at most 5,000/);
  }, 240_000);
});
