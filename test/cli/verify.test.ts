// `arefcheck verify`, `replay` and `pipeline` (verifying) as a user meets them: spawned as a
// process; the JSON shape and the exit codes are the stable interface of issue 3.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { arefcheck, expectUsageError, type CliResult } from './spawn.ts';
import { mutantLines } from '../../scripts/triton-ws-mutants.ts';
import { dropLines, readPtx as readTritonPtx } from '../ptx/triton-ws-cases.ts';


interface JsonReport {
  program: string;
  verdict: string;
  level: string;
  violations: Array<{ kind: string; message: string; level: string; trace: Array<{ step: number; actor: string; action: string; changes: string[] }>; actionIndices: number[]; traceFile?: string }>;
  stats: Record<string, number>;
  limit?: { reason: string; message: string };
}

/** stdout must be exactly one JSON object (one line). */
function parseReport(stdout: string): JsonReport {
  expect(stdout.endsWith('\n')).toBe(true);
  expect(stdout.trimEnd().split('\n')).toHaveLength(1);
  return JSON.parse(stdout) as JsonReport;
}

const STATS_LINE = /^ {2}states [\d,]+ · transitions [\d,]+ · [\d,]+ ms · [\d,]+ states\/s · [\d,]+ B\/state$/m;
const tmp = (): string => mkdtempSync(join(tmpdir(), 'arefcheck-verify-'));

describe('arefcheck verify', () => {
  it('refuses a value tag past 32 bits with its position (exit 2), never a fifo verdict on a wrapped value', () => {
    const r = arefcheck('verify', 'test/fixtures/programs/value-past-32-bits.aref');
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(/^\s+at /m);
    // the last line is the error (a progress line may come before it on a slow machine)
    expect(r.stderr.trimEnd().split('\n').at(-1)).toMatch(/^test\/fixtures\/programs\/value-past-32-bits\.aref:6:5: error: the put operand evaluates to 2147500000, outside the range/);
  });

  it('verifies the double buffer (exit 0) with a verdict line and the figures', () => {
    const r = arefcheck('verify', 'examples/double-buffer.aref');
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('✔ verified  examples/double-buffer.aref at the aref level: every reachable state explored, no violation');
    expect(r.stdout).toMatch(STATS_LINE);
    expect(r.stderr).toBe('');
  });

  it('--json: one object with the stable shape', () => {
    const r = arefcheck('verify', 'examples/double-buffer.aref', '--json', '--level', 'both');
    expect(r.status).toBe(0);
    const out = parseReport(r.stdout);
    expect(out).toMatchObject({ program: 'examples/double-buffer.aref', verdict: 'verified', level: 'both', violations: [] });
    for (const key of ['states', 'transitions', 'ms', 'statesPerSecond', 'bytesPerState']) expect(typeof out.stats[key]).toBe('number');
    expect(out.stats['states']).toBeGreaterThan(100);
  });

  it('reports the D = P deadlock (exit 1) with what each role waits for', () => {
    const r = arefcheck('verify', 'examples/depth-equals-pending.aref', '--json');
    expect(r.status).toBe(1);
    const out = parseReport(r.stdout);
    expect(out.verdict).toBe('violation');
    expect(out.violations.map((v) => v.kind)).toEqual(['deadlock']);
    const [v] = out.violations;
    expect(v!.message).toMatch(/^producer put A\[0\] needs E = 1.*\nconsumer get A\[0\] needs F = 1/);
    expect(v!.trace.map((t) => t.step)).toEqual([1, 2, 3, 4, 5]);
    expect(v!.actionIndices).toHaveLength(v!.trace.length);
    expect(v!.level).toBe('aref');
  });

  it('reports the early release race (exit 1) as a numbered trace table with source lines', () => {
    const r = arefcheck('verify', 'examples/early-release-mbar.aref');
    expect(r.status).toBe(1);
    expect(r.stdout.split('\n')[0]).toBe('✘ violation  examples/early-release-mbar.aref at the mbarrier level: 1 violation (race)');
    expect(r.stdout).toMatch(/^examples\/early-release-mbar\.aref:16:5: error: race after 14 steps$/m);
    expect(r.stdout).toMatch(/^ {2}step {2}actor +action +changes +line$/m);
    expect(r.stdout).toMatch(/^ {5}1 {2}producer +wait empty\[0\], parity 1 +14$/m);
    expect(r.stdout).toMatch(/^ {4}14 {2}producer +tma\.load S\[0\] -> full\[0\], 16384 value 2 +→ race +16$/m);
  });

  it('--max-states 10 is inconclusive (exit 3), never verified', () => {
    const r = arefcheck('verify', 'examples/double-buffer.aref', '--max-states', '10', '--json');
    expect(r.status).toBe(3);
    const out = parseReport(r.stdout);
    expect(out.verdict).toBe('inconclusive');
    expect(out.limit).toMatchObject({ reason: 'states' });
    const text = arefcheck('verify', 'examples/double-buffer.aref', '--max-states', '10');
    expect(text.status).toBe(3);
    expect(text.stdout).toMatch(/^\? inconclusive {2}examples\/double-buffer\.aref at the aref level: state limit reached \(10\)/);
  });

  it('--param changes the program checked', () => {
    const small = parseReport(arefcheck('verify', 'examples/double-buffer.aref', '--json', '--param', 'K=2').stdout);
    const large = parseReport(arefcheck('verify', 'examples/double-buffer.aref', '--json').stdout);
    expect(small.verdict).toBe('verified');
    expect(small.stats['states']).toBeLessThan(large.stats['states']!);
  });

  const malformedDir = tmp();
  const malformed = join(malformedDir, 'bad.aref');
  writeFileSync(malformed, 'param K = 2\nrole producer warps 1:\n  put A[0], 1\n');

  it.each([
    [[malformed], /bad\.aref:3:\d+: error: .*'A'/],
    [['examples/no-such-file.aref'], /^error: cannot read 'examples\/no-such-file\.aref'/],
    [['examples/double-buffer.aref', '--frobnicate'], /unknown option '--frobnicate'/],
    [['examples/double-buffer.aref', '--level', 'ptx'], /--level expects one of aref, mbarrier, both, got 'ptx'/],
    [['examples/double-buffer-mbar.aref', '--level', 'both'], /--level both needs an aref-level program/],
    [['examples/double-buffer.aref', '--max-states', '0'], /--max-states expects an integer >= 1, got '0'/],
    [['examples/double-buffer.aref', '--param', 'Q=1'], /unknown parameter 'Q'/],
    [['examples/double-buffer.aref', '--kernel', 'k'], /--kernel applies to \.ptx files only/],
    [[], /arefcheck verify: missing FILE/],
  ])('refuses %j with one line and exit 2', (args, message) => {
    expectUsageError(arefcheck('verify', ...args), message);
  });

  const tritonSample = 'test/ptx/fixtures/triton-3.6-gemm-tma-3stage-128x128x64-w4.ptx';

  it('loads .ptx through the lifter', () => {
    const r = arefcheck('verify', 'no-such-kernel.ptx');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error: cannot read 'no-such-kernel\.ptx'/);
  });

  it('verifies the Triton 3.6 TMA gemm sample (a correct kernel)', () => {
    const sizes = ['15', '16', '17'].flatMap((i) => ['--param', `matmul_tma_param_${i}=256`]);
    const r = arefcheck('verify', tritonSample, ...sizes, '--json');
    expect(r.status, r.stderr).toBe(0);
    expect(parseReport(r.stdout)).toMatchObject({ verdict: 'verified', level: 'mbarrier' });
  });

  it('finds the early release in lifted CUDA PTX, and the trace replays on the .ptx', () => {
    const dir = tmp();
    const ptx = 'test/fixtures/cuda/ws_ring_early_release.ptx';
    const r = arefcheck('verify', ptx, '--param', 'ws_ring_early_release_param_2=8', '--trace-out', dir, '--json');
    expect(r.status, r.stderr).toBe(1);
    const out = parseReport(r.stdout);
    expect(out.violations.map((v) => [v.kind, v.level])).toEqual([['race', 'mbarrier']]);
    const replay = arefcheck('replay', join(dir, 'ws_ring_early_release.mbarrier.race.json'), ptx);
    expect(replay.status, replay.stderr).toBe(1);
    expect(replay.stdout).toMatch(/^confirmed: race after \d+ steps$/m);
  });

  const EARLY = 'test/fixtures/cuda/ws_ring_early_release.ptx';
  /** `verify EARLY --trace-out DIR` with these flags (a race): its output and the race's trace file */
  const earlyRace = (...flags: string[]): { r: CliResult; file: string } => {
    const dir = tmp();
    const r = arefcheck('verify', EARLY, ...flags, '--trace-out', dir);
    expect(r.status, r.stderr).toBe(1);
    return { r, file: join(dir, 'ws_ring_early_release.mbarrier.race.json') };
  };
  const launchOf = (file: string): unknown => (JSON.parse(readFileSync(file, 'utf8')) as { '#meta': { launch?: unknown } })['#meta'].launch;
  const expectRaceReplays = (file: string): void => {
    const replay = arefcheck('replay', file, EARLY);
    expect(replay.status, replay.stderr).toBe(1);
    expect(replay.stdout).toMatch(/^confirmed: race after \d+ steps$/m);
  };

  it('a race the sweep finds at a raised launch value: the trace records the point, and replays at it', () => {
    const { r, file } = earlyRace();
    expect(r.stdout).toMatch(/note: verdict by launch: defaults: verified; 2 = \d+: violation/);
    expect(launchOf(file)).toEqual({ sweep: true, point: expect.stringMatching(/^2 = \d+$/) });
    expectRaceReplays(file);
  });

  it('with a launch value left open (=any), the trace records the value it was found at, and replays there', () => {
    const { file } = earlyRace('--param', 'ws_ring_early_release_param_2=any');
    expect(launchOf(file)).toMatchObject({ sweep: false, point: 'defaults', params: { ws_ring_early_release_param_2: expect.stringMatching(/^\d+$/) } });
    expectRaceReplays(file);
  });

  it('a trace whose launch point the PTX no longer gives: one message, exit 2', () => {
    const { file } = earlyRace();
    const json = JSON.parse(readFileSync(file, 'utf8')) as { '#meta': { launch: { point: string } } };
    json['#meta'].launch.point = '2 = 99999';
    writeFileSync(file, JSON.stringify(json));
    expectUsageError(arefcheck('replay', file, EARLY), /the trace was recorded at the launch point '2 = 99999', which lifting .* again does not give \(its points: defaults; 2 = \d+\)/);
    json['#meta'].launch = 5 as unknown as { point: string };
    writeFileSync(file, JSON.stringify(json));
    expectUsageError(arefcheck('replay', file, EARLY), /"#meta"\.launch must be an object/);
  });

  it('a deadlock found past a Triton kernel\'s dead double inits: its trace replays on the program it was found in', () => {
    const dir = tmp();
    // Triton's warp-specialized GEMM with the first consumer release of a stage dropped
    const ptx = readTritonPtx('mmws_128x128x64_s2');
    const [release] = mutantLines(ptx);
    const file = join(dir, 'mutant.ptx');
    writeFileSync(file, dropLines(ptx, [release!.line]));
    const r = arefcheck('verify', file, '--trace-out', dir, '--json');
    expect(r.status, r.stderr).toBe(1);
    expect(parseReport(r.stdout).violations.map((v) => v.kind)).toEqual(['protocol', 'deadlock']);
    for (const kind of ['protocol', 'deadlock']) {
      const replay = arefcheck('replay', join(dir, `mutant.mbarrier.${kind}.json`), file);
      expect(replay.status, replay.stderr).toBe(1);
      expect(replay.stdout).toMatch(new RegExp(`^confirmed: ${kind} after \\d+ steps$`, 'm'));
    }
  }, 120_000);

  it('--sarif writes the report as SARIF next to the usual output', () => {
    const file = join(tmp(), 'report.sarif');
    const r = arefcheck('verify', 'examples/early-release-mbar.aref', '--sarif', file, '--json');
    expect(r.status).toBe(1);
    expect(parseReport(r.stdout).verdict).toBe('violation');
    const sarif = JSON.parse(readFileSync(file, 'utf8')) as { version: string; runs: Array<{ results: Array<{ ruleId: string }> }> };
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.runs[0]!.results.map((x) => x.ruleId)).toEqual(['race']);
  });

  it('--no-collapse reports what the default (collapse compression) reports, in more bytes per state', () => {
    const file = 'examples/depth-equals-pending.aref';
    const plain = arefcheck('verify', file, '--level', 'both', '--json', '--no-collapse');
    const collapsed = arefcheck('verify', file, '--level', 'both', '--json');
    expect(collapsed.status).toBe(plain.status);
    const a = parseReport(plain.stdout);
    const b = parseReport(collapsed.stdout);
    expect(b.violations).toEqual(a.violations);
    expect([b.verdict, b.stats['states'], b.stats['transitions']]).toEqual([a.verdict, a.stats['states'], a.stats['transitions']]);
    const big = ['pipeline', '--depth', '4', '--pending', '1', '--consumers', '2', '--iterations', '256', '--no-por', '--json'];
    const bytes = (r: ReturnType<typeof arefcheck>): number => parseReport(r.stdout).stats['bytesPerState']!;
    expect(bytes(arefcheck(...big))).toBeLessThan(bytes(arefcheck(...big, '--no-collapse')));
  });

  it('--no-symmetry stores every order of cooperative consumers: the same verdict, more states, no symmetry note', () => {
    // without reduction: with it the consumers' orders collapse to one already (154 states either
    // way since the commit/wait rule of docs/checker.md), so only the full graph shows symmetry's
    // effect (33,137 states against 174,863)
    const coop = ['pipeline', '--depth', '3', '--pending', '1', '--consumers', '3', '--iterations', '6', '--cooperative', '--level', 'mbarrier', '--no-por', '--json'];
    const reduced = arefcheck(...coop);
    const every = arefcheck(...coop, '--no-symmetry');
    expect([reduced.status, every.status]).toEqual([0, 0]);
    const a = parseReport(reduced.stdout);
    const b = parseReport(every.stdout);
    expect([a.verdict, b.verdict]).toEqual(['verified', 'verified']);
    expect(a.stats['states']!).toBeLessThan(b.stats['states']!);
    expect(reduced.stdout).toContain('symmetry: consumer0, consumer1, consumer2 run the same code');
    expect(every.stdout).not.toContain('symmetry:');
  });

  it('--help lists the flags and exit codes', () => {
    const r = arefcheck('verify', '--help');
    expect(r.status).toBe(0);
    for (const flag of ['--level aref|mbarrier|both', '--param', '--json', '--max-states', '--timeout', '--literal', '--trace-out', '--no-collapse', '--no-symmetry']) expect(r.stdout).toContain(flag);
    expect(r.stdout).toMatch(/Exit codes: 0 verified, 1 violation, 2 bad input, 3 inconclusive/);
  });
});

describe('arefcheck replay', () => {
  const dir = tmp();
  const verify = arefcheck('verify', 'examples/depth-equals-pending.aref', '--level', 'both', '--trace-out', dir, '--json');
  const files = readdirSync(dir).sort();

  it('verify --trace-out writes one trace file per violation', () => {
    expect(verify.status).toBe(1);
    expect(files).toEqual(['depth-equals-pending.aref.deadlock.json', 'depth-equals-pending.mbarrier.deadlock.json']);
    const out = parseReport(verify.stdout);
    expect(out.violations.map((v) => v.traceFile)).toEqual(files.map((f) => join(dir, f)));
    const trace = JSON.parse(readFileSync(join(dir, files[1]!), 'utf8')) as { '#meta': Record<string, unknown>; states: unknown[] };
    expect(trace['#meta']).toMatchObject({ tool: 'arefcheck', format: 'ITF', kind: 'deadlock', level: 'mbarrier', params: { K: 8 } });
    expect(trace.states).toHaveLength(out.violations[1]!.trace.length + 1);
  });

  it('confirms each trace (exit 1) step by step', () => {
    for (const f of files) {
      const r = arefcheck('replay', join(dir, f), 'examples/depth-equals-pending.aref');
      expect(r.status, r.stderr).toBe(1);
      expect(r.stdout).toMatch(/^confirmed: deadlock after \d+ steps$/m);
      expect(r.stdout).toMatch(/^ {5}1 {2}producer {2}/m);
    }
    const json = arefcheck('replay', join(dir, files[1]!), 'examples/depth-equals-pending.aref', '--json');
    expect(json.status).toBe(1);
    const out = JSON.parse(json.stdout) as { reproduced: boolean; reached: string; level: string; steps: unknown[] };
    expect(out).toMatchObject({ reproduced: true, reached: 'deadlock', level: 'mbarrier' });
    expect(out.steps).toHaveLength(9);
  });

  it('exits 4 when the trace runs but does not reach its violation', () => {
    const trace = JSON.parse(readFileSync(join(dir, files[0]!), 'utf8')) as { '#meta': { actionIndices: number[] }; states: unknown[] };
    trace['#meta'].actionIndices.pop();
    trace.states.pop();
    const cut = join(dir, 'cut.json');
    writeFileSync(cut, JSON.stringify(trace));
    const r = arefcheck('replay', cut, 'examples/depth-equals-pending.aref');
    expect(r.status).toBe(4);
    expect(r.stdout).toMatch(/^not reproduced: the trace ends with running, not deadlock$/m);
  });

  it('exits 2 when the trace does not fit the program, naming the step', () => {
    const misfit = join(dir, 'misfit.json');
    writeFileSync(misfit, JSON.stringify({ '#meta': { kind: 'deadlock', level: 'aref', params: { K: 8 }, actionIndices: [0, 0, 5] } }));
    expectUsageError(arefcheck('replay', misfit, 'examples/double-buffer.aref'), /step 3 takes action #5 but only actions #0\.\.#\d are enabled/);
    expectUsageError(arefcheck('replay', join(dir, files[0]!), 'examples/double-buffer-mbar.aref'), /trace is at the aref level but the program is at the mbarrier level/);
  });

  it.each([
    [['examples/double-buffer.aref', 'examples/double-buffer.aref'], /^examples\/double-buffer\.aref:1:1: error: expected a JSON value/],
    [['no-such-trace.json', 'examples/double-buffer.aref'], /^error: cannot read 'no-such-trace\.json'/],
    [['x.json'], /arefcheck replay: missing TRACE\.json PROGRAM/],
  ])('refuses %j with one line and exit 2', (args, message) => {
    expectUsageError(arefcheck('replay', ...args), message);
  });

  it('--help documents exit 4', () => {
    const r = arefcheck('replay', '--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/Exit codes: 1 the violation is reproduced \(confirmed\), 4 the trace runs but does not reach it/);
  });
});

describe('arefcheck pipeline (verifying)', () => {
  it('D = P deadlocks (exit 1), D > P is verified at both levels (exit 0)', () => {
    const bad = arefcheck('pipeline', '--depth', '2', '--pending', '2', '--consumers', '1', '--iterations', '4', '--json');
    expect(bad.status).toBe(1);
    const out = parseReport(bad.stdout);
    expect(out).toMatchObject({ program: 'pipeline D=2 P=2 C=1 K=4', verdict: 'violation', level: 'aref' });
    expect(out.violations.map((v) => v.kind)).toEqual(['deadlock']);
    const good = arefcheck('pipeline', '--depth', '3', '--pending', '2', '--consumers', '1', '--iterations', '4', '--level', 'both');
    expect(good.status).toBe(0);
    expect(good.stdout).toMatch(/^✔ verified {2}pipeline D=3 P=2 C=1 K=4 at the aref and mbarrier levels/);
  });

  it('C = 2 not dividing D: fifo at the aref level, refinement and a missed phase once lowered; traces replay on the printed program', () => {
    const flags = ['--depth', '3', '--pending', '0', '--consumers', '2', '--iterations', '6'];
    const dir = tmp();
    const r = arefcheck('pipeline', ...flags, '--level', 'both', '--trace-out', dir, '--json');
    expect(r.status).toBe(1);
    expect(parseReport(r.stdout).violations.map((v) => [v.kind, v.level])).toEqual([['fifo', 'aref'], ['refinement', 'mbarrier'], ['protocol', 'mbarrier']]);
    const program = join(dir, 'pipeline.aref');
    writeFileSync(program, arefcheck('pipeline', ...flags, '--print').stdout);
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.json'))) {
      const replay = arefcheck('replay', join(dir, f), program);
      expect(replay.status, replay.stderr).toBe(1);
    }
  });

  it('--emit-ptx writes the kernel only when its program is verified', () => {
    const dir = tmp();
    const good = join(dir, 'good.ptx');
    const ok = arefcheck('pipeline', '--depth', '2', '--pending', '1', '--consumers', '1', '--iterations', '4', '--emit-ptx', good);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^✔ verified .* at the mbarrier level/);
    expect(readFileSync(good, 'utf8')).toMatch(/^\.target sm_90a/m);
    const bad = join(dir, 'bad.ptx');
    const no = arefcheck('pipeline', '--depth', '2', '--pending', '2', '--consumers', '1', '--iterations', '4', '--emit-ptx', bad);
    expect(no.status).toBe(1);
    expect(no.stderr).toMatch(/PTX not written to .*bad\.ptx: the program is not verified/);
    expect(existsSync(bad)).toBe(false);
  });

  it('--max-states makes it inconclusive (exit 3); --print refuses --level both', () => {
    expect(arefcheck('pipeline', '--depth', '2', '--pending', '1', '--consumers', '1', '--iterations', '8', '--max-states', '5').status).toBe(3);
    expectUsageError(arefcheck('pipeline', '--depth', '2', '--pending', '1', '--consumers', '1', '--iterations', '8', '--level', 'both', '--print'), /--level expects one of aref, mbarrier, got 'both'/);
  });
});
