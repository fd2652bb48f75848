// Every malformed input under test/fixtures/malformed, given to the real CLI (`verify` and
// `run`), gives exit code 2 and exactly one line on stderr: file:line:col and the message,
// never a stack trace.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = 'test/fixtures/malformed';
const expected = JSON.parse(readFileSync(`${root}/${dir}/expected.json`, 'utf8')) as Record<string, { line: number; col: number; message: string }>;

function arefcheck(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: root, env: { ...process.env, FORCE_COLOR: '0' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Run the cases two at a time (the machine has two cores). */
async function inPairs<T, R>(items: readonly T[], f: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += 2) out.push(...(await Promise.all(items.slice(i, i + 2).map(f))));
  return out;
}

describe('malformed inputs through the CLI', () => {
  const files = Object.keys(expected).sort();

  it('has at least 20 malformed fixtures', () => {
    expect(files.length).toBeGreaterThanOrEqual(20);
  });

  it('verify: exit 2, one line file:line:col, no stack, for every fixture', async () => {
    const results = await inPairs(files, async (f) => ({ f, r: await arefcheck(['verify', `${dir}/${f}`]) }));
    for (const { f, r } of results) {
      const want = expected[f]!;
      expect(r.status, f).toBe(2);
      expect(r.stdout, f).toBe('');
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines, f).toHaveLength(1);
      expect(lines[0], f).toContain(`${dir}/${f}:${want.line}:${want.col}: error:`);
      expect(lines[0], f).toContain(want.message);
      expect(r.stderr, f).not.toMatch(/\n\s+at |Error:/);
    }
  }, 180_000);

  it('run: the same message and exit 2', async () => {
    const sample = files.filter((_, i) => i % 4 === 0);
    const results = await inPairs(sample, async (f) => ({ f, r: await arefcheck(['run', `${dir}/${f}`, '--seed', '1']) }));
    for (const { f, r } of results) {
      expect(r.status, f).toBe(2);
      expect(r.stderr.trimEnd().split('\n'), f).toHaveLength(1);
      expect(r.stderr, f).toContain(`${dir}/${f}:${expected[f]!.line}:${expected[f]!.col}: error:`);
    }
  }, 120_000);
});
