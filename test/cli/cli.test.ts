// The CLI as a user meets it: spawned as a process, exit codes and streams checked.
import { describe, expect, it } from 'vitest';
import { programToJson } from '../../src/lang/json.ts';
import { parseAref } from '../../src/lang/parser.ts';
import { pipelineProgram } from '../../src/pipeline.ts';
import { arefcheck, expectUsageError } from './spawn.ts';


describe('arefcheck (top level)', () => {
  it('--help lists every command and exits 0', () => {
    const r = arefcheck('--help');
    expect(r.status).toBe(0);
    for (const c of ['verify', 'run', 'pipeline', 'replay', 'emit', 'lift']) expect(r.stdout).toMatch(new RegExp(`^  ${c} `, 'm'));
    expect(r.stderr).toBe('');
  });

  it('with no arguments prints the help on stderr and exits 2', () => {
    const r = arefcheck();
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^Usage: arefcheck <command>/m);
  });

  it('rejects an unknown command in one line', () => {
    expectUsageError(arefcheck('frobnicate'), /^error: unknown command 'frobnicate'; commands: verify, run, pipeline/);
  });

  it('rejects an option before the command', () => {
    expectUsageError(arefcheck('--depth', '2'), /unknown option '--depth' before the command/);
  });

  it('prints its version', () => {
    const r = arefcheck('--version');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^arefcheck \d+\.\d+\.\d+\n$/);
  });
});

describe('arefcheck pipeline', () => {
  const flags = ['--depth', '3', '--pending', '1', '--consumers', '2', '--iterations', '6'];
  const opts = { depth: 3, pending: 1, consumers: 2, iterations: 6 } as const;

  it('--help and `help pipeline` print the options', () => {
    for (const r of [arefcheck('pipeline', '--help'), arefcheck('help', 'pipeline')]) {
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^Usage: arefcheck pipeline --depth D/);
      expect(r.stdout).toMatch(/--level aref\|mbarrier/);
    }
  });

  it.each(['aref', 'mbarrier'] as const)('--print at level %s parses back to the generated program', (level) => {
    const r = arefcheck('pipeline', ...flags, '--level', level, '--print');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const parsed = parseAref(r.stdout, 'stdout.aref');
    expect(programToJson(parsed)).toBe(programToJson(pipelineProgram({ ...opts, level })));
  });

  it('--print --json prints the machine form', () => {
    const r = arefcheck('pipeline', ...flags, '--print', '--json', '--bytes', '4096', '--level', 'mbarrier');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(programToJson(pipelineProgram({ ...opts, level: 'mbarrier', bytes: 4096 })));
    expect(JSON.parse(r.stdout)).toHaveProperty('roles');
  });

  it.each([
    [['--depth', '0'], /--depth expects an integer in 1\.\.4096, got '0'/],
    [['--depth', 'two'], /--depth expects an integer/],
    [['--depth', '2.5'], /--depth expects an integer/],
    [['--depth', '1e3'], /--depth expects an integer/],
    [['--pending', '-1'], /option '--pending' needs a value; for one that starts with '-', write --pending=VALUE/],
    [['--pending=-1'], /--pending expects an integer in 0\.\./],
    [['--iterations', '99999999999'], /--iterations expects an integer in 0\.\.2147483647/],
    [['--level', 'ptx'], /--level expects one of aref, mbarrier, got 'ptx'/],
    [['--colour'], /unknown option '--colour'/],
    [['--print=yes'], /option '--print' does not take an argument/],
    [['extra'], /unexpected argument 'extra'/],
  ])('refuses %j with one line and exit 2', (bad, message) => {
    const args = [...flags, '--print'];
    for (let i = 0; i < bad.length; i++) {
      const flag = bad[i]!.split('=')[0]!;
      const at = args.indexOf(flag);
      if (at >= 0 && flag !== '--print') args.splice(at, 2);
    }
    expectUsageError(arefcheck('pipeline', ...args, ...bad), message);
  });

  it('names a missing required flag', () => {
    expectUsageError(arefcheck('pipeline', '--depth', '2', '--pending', '1', '--consumers', '1', '--print'), /missing --iterations/);
  });
});

describe('arefcheck run', () => {
  it('finishes the correct double buffer at both levels (exit 0)', () => {
    for (const level of ['aref', 'mbarrier']) {
      const r = arefcheck('run', 'examples/double-buffer.aref', '--seed', '7', '--level', level);
      expect(r.status).toBe(0);
      expect(r.stdout.split('\n')[0]).toBe(`run examples/double-buffer.aref at the ${level} level`);
      expect(r.stdout).toMatch(/^finished: every role completed \(\d+ steps, seed 7\)$/m);
      if (level === 'mbarrier') expect(r.stdout).toMatch(/wait A_empty\[0\], parity 1/);
    }
  });

  it('reports D = P as stuck (exit 1)', () => {
    const r = arefcheck('run', 'examples/depth-equals-pending.aref', '--seed', '1');
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^stuck after \d+ steps/m);
  });

  it('finds the early release race on some seed (exit 1)', () => {
    const statuses: Array<number | null> = [];
    for (let seed = 1; seed <= 10 && !statuses.includes(1); seed++) {
      const r = arefcheck('run', 'examples/early-release-mbar.aref', '--seed', String(seed));
      statuses.push(r.status);
      if (r.status === 1) expect(r.stdout).toMatch(/race error after \d+ steps/);
    }
    expect(statuses).toContain(1);
  });

  it('stops at --max-steps with exit 3', () => {
    const r = arefcheck('run', 'examples/double-buffer.aref', '--seed', '1', '--max-steps', '3');
    expect(r.status).toBe(3);
    expect(r.stdout).toMatch(/step limit/);
  });

  it('--json prints one object with the outcome and the seed; --param overrides', () => {
    const r = arefcheck('run', 'examples/double-buffer.aref', '--seed', '5', '--json', '--param', 'K=2');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { seed: number; level: string; outcome: { kind: string }; steps: Array<{ action: string }> };
    expect(out).toMatchObject({ seed: 5, level: 'aref', outcome: { kind: 'finished' } });
    expect(out.steps.filter((s) => s.action.startsWith('put '))).toHaveLength(2);
  });

  it.each([
    [['examples/double-buffer-mbar.aref', '--level', 'aref'], /mbarrier-level program; it cannot be run at the aref level/],
    [['examples/no-such-file.aref'], /^error: cannot read 'examples\/no-such-file\.aref'/],
    [['examples/double-buffer.aref', '--param', 'K'], /--param expects NAME=VALUE, got 'K'/],
    [['examples/double-buffer.aref', '--seed', '-'], /--seed expects an integer in 0\.\.4294967295/],
    [[], /arefcheck run: missing FILE/],
    [['a.aref', 'b.aref'], /arefcheck run: too many arguments \(expected FILE\)/],
  ])('refuses %j with one line and exit 2', (args, message) => {
    expectUsageError(arefcheck('run', ...args), message);
  });
});
