// Colour on a real terminal (issue 11.3): through a pseudo-terminal (util-linux `script`), the
// report is coloured by default, and NO_COLOR=1 or --no-color leave no escape code; --color
// colours a pipe.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { root } from './spawn.ts';

const hasScript = spawnSync('sh', ['-c', 'command -v script']).status === 0;
const ESC = '\u001b[';
const EXAMPLE = 'examples/early-release-mbar.aref';

/** Run the CLI with stdout on a pseudo-terminal; returns what the terminal showed. */
function onTerminal(args: string, env: Record<string, string | undefined>): string {
  const cmd = `${process.execPath} --import tsx src/cli/main.ts ${args}`;
  // a terminal as a user has it: CI=true (set by .ci/run) and TERM=dumb make chalk colourless by design
  const clean = { ...process.env, FORCE_COLOR: undefined, NO_COLOR: undefined, CI: undefined, TERM: 'xterm-256color', ...env };
  const r = spawnSync('script', ['-qec', cmd, '/dev/null'], { cwd: root, encoding: 'utf8', env: clean as NodeJS.ProcessEnv });
  return r.stdout;
}

describe.skipIf(!hasScript)('colour on a terminal (needs script)', () => {
  it('is on by default: the check of the test itself', () => {
    expect(onTerminal(`verify ${EXAMPLE}`, {})).toContain(ESC);
  });

  it('NO_COLOR=1 prints no escape code', () => {
    const out = onTerminal(`verify ${EXAMPLE}`, { NO_COLOR: '1' });
    expect(out).toContain('violation');
    expect(out).not.toContain(ESC);
  });

  it('--no-color prints no escape code, in any position', () => {
    expect(onTerminal(`verify ${EXAMPLE} --no-color`, {})).not.toContain(ESC);
    expect(onTerminal(`--no-color verify ${EXAMPLE}`, {})).not.toContain(ESC);
  });
});

describe('colour on a pipe', () => {
  it('--color colours even a pipe, and beats NO_COLOR', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'verify', EXAMPLE, '--color'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, FORCE_COLOR: undefined, NO_COLOR: '1' } as NodeJS.ProcessEnv,
    });
    expect(r.stdout).toContain(ESC);
    const plain = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'verify', EXAMPLE], { cwd: root, encoding: 'utf8' });
    expect(plain.stdout).not.toContain(ESC);
  });
});
