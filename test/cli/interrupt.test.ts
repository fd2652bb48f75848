// Ctrl-C during a long check (issue 11.3, issue 9.5): on a terminal the check runs in a worker and
// SIGINT ends it as pan does, with the figures reached and an inconclusive report (exit 3). The
// tests force that mode with AREFCHECK_INTERRUPTIBLE=1 (no terminal here) and send SIGINT.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from './spawn.ts';

const env = { ...process.env, FORCE_COLOR: '0', AREFCHECK_INTERRUPTIBLE: '1' };
const cli = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: root, encoding: 'utf8', env });

/** A pipeline large enough to run for a minute. */
function bigProgram(): string {
  const dir = mkdtempSync(join(tmpdir(), 'arefcheck-int-'));
  const file = join(dir, 'big.aref');
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'pipeline', '--depth', '6', '--pending', '2', '--consumers', '2', '--iterations', '512', '--print'], { cwd: root, encoding: 'utf8' });
  writeFileSync(file, r.stdout);
  return file;
}

/** Start a verify, send SIGINT once its progress line shows, and collect what it printed. */
function interrupt(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: root, env });
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (!sent && /states [\d,]+ ·/.test(stderr)) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('Ctrl-C', () => {
  const big = bigProgram();

  it('stops the check: the figures reached, inconclusive, exit 3', async () => {
    const r = await interrupt(['verify', big, '--level', 'mbarrier', '--no-por']);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toMatch(/inconclusive .* interrupted \(Ctrl-C\): [\d,]+ states stored, [\d,]+ not yet expanded, depth \d+/);
    expect(r.stdout).toMatch(/states [\d,]+ · transitions [\d,]+/);
  }, 120_000);

  it('in JSON: verdict inconclusive, limit reason interrupted', async () => {
    const r = await interrupt(['verify', big, '--level', 'mbarrier', '--json']);
    expect(r.code, r.stderr).toBe(3);
    const report = JSON.parse(r.stdout) as { verdict: string; limit: { reason: string }; stats: { states: number } };
    expect(report.verdict).toBe('inconclusive');
    expect(report.limit.reason).toBe('interrupted');
    expect(report.stats.states).toBeGreaterThan(0);
  }, 120_000);

  it('without Ctrl-C the worker gives the report the in-thread check gives', () => {
    const inWorker = cli(['verify', 'examples/gallery/m11-phase-not-flipped.aref', '--json']);
    const inThread = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'verify', 'examples/gallery/m11-phase-not-flipped.aref', '--json'], { cwd: root, encoding: 'utf8' });
    expect(inWorker.status).toBe(1);
    const strip = (text: string) => {
      const { stats, ...rest } = JSON.parse(text) as { stats: { states: number; transitions: number } };
      return { ...rest, states: stats.states, transitions: stats.transitions };
    };
    expect(strip(inWorker.stdout)).toEqual(strip(inThread.stdout));
  });

  it('bad input met during the check: one error line with its position (after the progress line), exit 2, no stack', () => {
    const r = cli(['verify', 'test/fixtures/programs/value-past-32-bits.aref']);
    expect(r.status).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^test\/fixtures\/programs\/value-past-32-bits\.aref:6:5: error: the put operand evaluates to 2147500000/);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });
});
