// `arefcheck emit`: verified programs are emitted, violations refused with the counterexample
// unless --force, bad input exits 2.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { printProgram } from '../../src/lang/printer.ts';
import { pipelineProgram } from '../../src/pipeline.ts';
import { readMeta } from '../../src/ptx/emit/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'arefcheck-emit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { maxBuffer: 1 << 26 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const good = write('good.aref', printProgram(pipelineProgram({ depth: 3, pending: 1, consumers: 1, iterations: 6, level: 'mbarrier', bytes: 32768 })));
// M7: D <= P deadlocks
const m7 = write('m7.aref', printProgram(pipelineProgram({ depth: 2, pending: 2, consumers: 1, iterations: 6, level: 'mbarrier', bytes: 32768 })));

describe('arefcheck emit', () => {
  it('emits a verified program to -o, with the verdict on stderr', async () => {
    const out = join(dir, 'good.ptx');
    const r = await cli(['emit', good, '--target', 'ptx', '--kernel', 'gemm', '-o', out]);
    expect(r.stderr).toMatch(/verified/);
    expect(r.code).toBe(0);
    const ptx = readFileSync(out, 'utf8');
    expect(ptx).toMatch(/\.target sm_90a/);
    expect(readMeta(ptx)?.kernel).toBe('gemm');
  });

  it('writes to stdout without -o', async () => {
    const r = await cli(['emit', good, '--kernel', 'gemm', '--tile', '128x128x64', '--name', 'k1']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\.visible \.entry k1\(/);
  });

  it('refuses a program with a violation, printing the counterexample (exit 1)', async () => {
    const out = join(dir, 'm7.ptx');
    const r = await cli(['emit', m7, '--kernel', 'gemm', '-o', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/deadlock/);
    expect(r.stderr).toMatch(/refused/);
    expect(existsSync(out)).toBe(false);
  });

  it('--force emits it anyway (how the mutant kernels are built), with the watchdog', async () => {
    const out = join(dir, 'm7-forced.ptx');
    const r = await cli(['emit', m7, '--kernel', 'gemm', '-o', out, '--force', '--watchdog', '1000']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/--force/);
    expect(readFileSync(out, 'utf8')).toMatch(/trap;/);
  });

  it('lowers an aref-level program with the slot size of the kernel', async () => {
    const aref = write('aref.aref', printProgram(pipelineProgram({ depth: 2, pending: 0, consumers: 1, iterations: 4, level: 'aref' })));
    const r = await cli(['emit', aref, '--kernel', 'stream', '--tile', '8192']);
    expect(r.code).toBe(0);
    expect(readMeta(r.stdout)?.['chunkBytes']).toBe(8192);
  });

  it('--param overrides a param before verifying and emitting', async () => {
    const r = await cli(['emit', good, '--kernel', 'gemm', '--param', 'K=9']);
    expect(r.code).toBe(0);
    expect(readMeta(r.stdout)?.params.find((p) => p.name === 'K')?.value).toBe(9);
  });

  it('bad input exits 2 with one line: missing kernel, wrong tile, a tile that does not match the slots', async () => {
    for (const args of [
      ['emit', good],
      ['emit', good, '--kernel', 'gemm', '--tile', 'big'],
      ['emit', good, '--kernel', 'gemm', '--tile', '64x64'],
      ['emit', good, '--kernel', 'gemm', '--target', 'sass'],
      ['emit', join(dir, 'missing.aref'), '--kernel', 'gemm'],
    ]) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n').length, r.stderr).toBe(1);
      expect(r.stderr).not.toMatch(/at .*\.ts:\d+/);
    }
  });
});
