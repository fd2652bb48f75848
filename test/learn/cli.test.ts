// `arefcheck step` and `arefcheck diagram` as a user meets them: spawned, with exit codes,
// streams, and the transcripts and diagrams compared with committed goldens.
// Regenerate the goldens after an intended change: npx vitest run test/learn -u
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

function arefcheck(args: readonly string[], stdin = ''): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: root,
    encoding: 'utf8',
    input: stdin,
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function expectOneLineError(r: ReturnType<typeof arefcheck>, message: RegExp): void {
  expect(r.status).toBe(2);
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(r.stderr.trimEnd()).toMatch(message);
}

/** The early release reached by hand: both copies issued, S[0] lands, the consumer releases S[0] before its wgmma.wait, the producer reuses it. */
const RACE_SCRIPT = '1 1 1 1 1 1 1 1 1 1 1 1 1 1';

describe('arefcheck step', () => {
  it('steps the aref double buffer by script: puts, a get, an undo, the state (golden)', async () => {
    const r = arefcheck(['step', 'examples/double-buffer.aref', '--seed', '1', '--script', '1 2 1 1 u s 1']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(3); // the script ends before the run does
    await expect(r.stdout).toMatchFileSnapshot('./golden/step-double-buffer.txt');
  });

  it('reaches the early-release race at the mbarrier level and exits 1 (golden, --brief)', async () => {
    const r = arefcheck(['step', 'examples/early-release-mbar.aref', '--seed', '1', '--brief', '--script', RACE_SCRIPT]);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('race error after 14 steps:');
    await expect(r.stdout).toMatchFileSnapshot('./golden/step-early-release-mbar.txt');
  });

  it('reads the same commands line by line from a pipe', () => {
    const scripted = arefcheck(['step', 'examples/double-buffer.aref', '--seed', '1', '--script', '1 2 1']);
    const piped = arefcheck(['step', 'examples/double-buffer.aref', '--seed', '1'], '1\n2\n1\n');
    expect(piped.status).toBe(3);
    expect(piped.stdout).toBe(scripted.stdout);
  });

  it('finishes with 0 (K = 1, random steps with a seed)', () => {
    const r = arefcheck(['step', 'examples/double-buffer.aref', '--param', 'K=1', '--seed', '4', '--brief', '--script', 'r r r r r r r']);
    expect(r.stdout).toContain('finished: every role completed (7 steps)');
    expect(r.status).toBe(0);
  });

  it('refuses, in one line with exit 2: a script step that is not enabled, an unknown option, a level the program cannot run at', () => {
    expectOneLineError(arefcheck(['step', 'examples/double-buffer.aref', '--script', '1 7']), /^error: step 2: '7' is not an enabled action: choose 1\.\.2$/);
    expectOneLineError(arefcheck(['step', 'examples/double-buffer.aref', '--frob']), /arefcheck step: unknown option '--frob'/);
    expectOneLineError(arefcheck(['step', 'examples/early-release-mbar.aref', '--level', 'aref']), /mbarrier-level program; it cannot be run at the aref level/);
  });
});

describe('arefcheck diagram', () => {
  it('draws a seeded run as Mermaid (golden)', async () => {
    const r = arefcheck(['diagram', 'examples/double-buffer.aref', '--seed', '2', '--param', 'K=2']);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^sequenceDiagram\n  %% arefcheck diagram examples\/double-buffer\.aref --seed 2 --param K=2: /);
    await expect(r.stdout).toMatchFileSnapshot('./golden/diagram-double-buffer.K2.seed2.mmd');
  });

  it('draws a counterexample file, replayed (golden: the gallery’s early release)', async () => {
    const r = arefcheck(['diagram', 'examples/gallery/m6-early-release.aref', '--trace', 'traces/m6-early-release.json']);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('  r0-xtma: 14. tma.load S[0] value 2, 16384 B on full[0]\n');
    await expect(r.stdout).toMatchFileSnapshot('./golden/diagram-m6-trace.mmd');
  });

  it('writes SVG to -o, the format following the name (golden)', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'arefcheck-diagram-')), 'race.svg');
    const r = arefcheck(['diagram', 'examples/early-release-mbar.aref', '--seed', '3', '-o', out]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    const svg = readFileSync(out, 'utf8');
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    await expect(svg).toMatchFileSnapshot('./golden/diagram-early-release-mbar.seed3.svg');
  });

  it('writes the whole state graph as DOT for a tiny program (the format following a .dot name)', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'arefcheck-diagram-')), 'states.dot');
    const r = arefcheck(['diagram', 'examples/depth-equals-pending.aref', '--param', 'K=2', '-o', out]);
    expect(r.status).toBe(0);
    const dot = readFileSync(out, 'utf8');
    expect(dot).toMatch(/^digraph states \{\n  label="arefcheck diagram examples\/depth-equals-pending\.aref --param K=2 --format dot: 7 states, 7 transitions at the aref level";/);
    expectOneLineError(arefcheck(['diagram', 'examples/double-buffer.aref', '--format', 'dot', '--seed', '1']), /--seed does not apply to --format dot/);
    expectOneLineError(arefcheck(['diagram', 'examples/double-buffer.aref', '--format', 'dot', '--max-states', '5']), /the state graph has more than 5 states/);
  });

  it('warns when a trace does not reach what it records, and refuses one of the wrong level', () => {
    const r = arefcheck(['diagram', 'examples/double-buffer.aref', '--trace', 'traces/m1-producer-parity.json']);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('warning: traces/m1-producer-parity.json ends with running, not the deadlock it records\n');
    expectOneLineError(arefcheck(['diagram', 'examples/early-release-mbar.aref', '--trace', 'traces/m7-depth-too-small.json']), /the trace is at the aref level but the program is at the mbarrier level/);
  });

  it('refuses conflicting or unknown options in one line with exit 2', () => {
    expectOneLineError(arefcheck(['diagram', 'examples/double-buffer.aref', '--trace', 'traces/m6-early-release.json', '--param', 'K=2']), /--param cannot be used with --trace/);
    expectOneLineError(arefcheck(['diagram', 'examples/double-buffer.aref', '--format', 'png']), /--format expects one of mermaid, svg, dot, got 'png'/);
    expectOneLineError(arefcheck(['diagram', 'examples/double-buffer.aref', '-o', '/nonexistent-dir/x.mmd', '--seed', '1']), /--out: cannot write '\/nonexistent-dir\/x\.mmd'/);
  });
});
