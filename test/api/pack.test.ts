// The package as users install it (issue 11.1): `npm pack` (its prepack step builds dist/), the
// tarball installed in an empty project, then `npx arefcheck verify`, every example of
// docs/api.md (its `// expected output` comments checked), and a vitest + fast-check property
// test written only against the public entry points.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root } from '../cli/spawn.ts';

const hasNpm = spawnSync('sh', ['-c', 'command -v npm']).status === 0;
const project = mkdtempSync(join(tmpdir(), 'arefcheck-pack-'));

function run(cmd: string, args: string[], cwd: string): { status: number | null; out: string } {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' }, maxBuffer: 1 << 26 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** The ```js blocks of docs/api.md, each with the outputs its `console.log(…); // text` lines promise. */
function examples(): { code: string; expected: string[] }[] {
  const doc = readFileSync(join(root, 'docs/api.md'), 'utf8');
  return [...doc.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => {
    const code = m[1] ?? '';
    const expected = [...code.matchAll(/console\.log\(.*\);\s*\/\/\s*(.+)$/gm)].map((x) => (x[1] ?? '').trim());
    return { code, expected };
  });
}

describe.skipIf(!hasNpm)('the packed package in a fresh project (needs npm)', () => {
  beforeAll(() => {
    const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', project], { cwd: root, encoding: 'utf8' }).trim().split('\n').pop() ?? '';
    const tarball = join(project, packed);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'uses-arefcheck', private: true, type: 'module' }));
    const install = run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, 'fast-check@^4', 'vitest@^4.1'], project);
    expect(install.status, install.out).toBe(0);
  }, 600_000);
  // 48 MB of node_modules per run: do not leave it behind
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it('ships dist/ (prepack built it) and the LICENSE', () => {
    const files = readdirSync(join(project, 'node_modules/arefcheck'));
    expect(files).toEqual(expect.arrayContaining(['dist', 'package.json', 'LICENSE', 'README.md']));
  });

  it('npx arefcheck verify runs the installed command', () => {
    const ok = run('npx', ['arefcheck', 'verify', join(root, 'examples/double-buffer.aref')], project);
    expect(ok.status, ok.out).toBe(0);
    expect(ok.out).toMatch(/verified/);
    const bad = run('npx', ['arefcheck', 'verify', join(root, 'examples/early-release-mbar.aref')], project);
    expect(bad.status, bad.out).toBe(1);
  }, 60_000);

  it.each(examples().map((e, i) => ({ ...e, i })))('docs/api.md example $i runs and prints what it says', ({ code, expected, i }) => {
    const file = join(project, `example-${i}.mjs`);
    writeFileSync(file, code);
    const r = run(process.execPath, [file], project);
    expect(r.status, r.out).toBe(0);
    const lines = r.out.split('\n');
    let at = 0;
    for (const want of expected) {
      const found = lines.findIndex((l, j) => j >= at && l.includes(want));
      expect(found, `example ${i}: expected a line with '${want}' in:\n${r.out}`).toBeGreaterThanOrEqual(0);
      at = found + 1;
    }
  }, 120_000);

  it('a vitest + fast-check property test against the public API passes there', () => {
    writeFileSync(
      join(project, 'family.test.mjs'),
      `import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pipelineProgram, verify } from 'arefcheck';
import { arbPipelineParams } from 'arefcheck/arbitraries';

describe('a user property test', () => {
  it('the aref and mbarrier levels agree on the Tawa family', () => {
    fc.assert(
      fc.property(arbPipelineParams({ depth: { min: 1, max: 3 }, consumers: { min: 1, max: 1 }, iterations: { min: 3, max: 5 } }), (p) => {
        const program = pipelineProgram({ ...p, level: 'aref' });
        expect(verify(program, { level: 'aref' }).verdict).toBe(verify(program, { level: 'mbarrier' }).verdict);
      }),
      { numRuns: 20 },
    );
  });
});
`,
    );
    const r = run('npx', ['vitest', 'run', 'family.test.mjs'], project);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toMatch(/1 passed/);
  }, 180_000);
});
