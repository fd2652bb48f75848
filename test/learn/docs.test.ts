// docs/learn.md pastes real output: every `$ arefcheck …` block is re-run here and must print
// what the page shows (all of it, or its end after a `…` line); a diagram command's output is
// the ```mermaid block that follows it.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const page = readFileSync(new URL('../../docs/learn.md', import.meta.url), 'utf8');

interface Example {
  readonly command: string;
  readonly expected: string;
  /** the page shows only the end of the output */
  readonly tail: boolean;
}

/** Fenced blocks in order: their info string and their lines. */
function blocks(text: string): { info: string; lines: string[] }[] {
  const out: { info: string; lines: string[] }[] = [];
  let open: { info: string; lines: string[] } | undefined;
  for (const line of text.split('\n')) {
    if (open === undefined && line.startsWith('```')) open = { info: line.slice(3), lines: [] };
    else if (open !== undefined && line === '```') {
      out.push(open);
      open = undefined;
    } else open?.lines.push(line);
  }
  return out;
}

function examples(): Example[] {
  const all = blocks(page);
  const out: Example[] = [];
  all.forEach((b, i) => {
    const [first = '', ...rest] = b.lines;
    if (b.info !== 'console' || !first.startsWith('$ arefcheck ')) return;
    const command = first.slice(2);
    if (rest.length === 0) {
      const next = all[i + 1];
      if (next?.info !== 'mermaid') throw new Error(`docs/learn.md: '${command}' shows no output`);
      out.push({ command, expected: next.lines.join('\n'), tail: false });
    } else if (rest[0] === '…') out.push({ command, expected: rest.slice(1).join('\n'), tail: true });
    else out.push({ command, expected: rest.join('\n'), tail: false });
  });
  return out;
}

/** Words of a command line; "double quotes" group (all the page needs). */
function words(command: string): string[] {
  return [...command.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '');
}

describe('docs/learn.md', () => {
  const found = examples();

  it('has the examples this test expects (steps, the deadlock, parity, the diagram)', () => {
    expect(found.length).toBeGreaterThanOrEqual(8);
    expect(found.filter((e) => e.command.startsWith('arefcheck diagram '))).toHaveLength(1);
  });

  for (const e of found) {
    it(`prints what the page shows: ${e.command}`, () => {
      const [, ...args] = words(e.command);
      const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });
      expect(r.stderr).toBe('');
      const actual = r.stdout.replace(/\n$/, '');
      if (e.tail) expect(actual.endsWith(`\n${e.expected}`)).toBe(true);
      else expect(actual).toBe(e.expected);
    });
  }
});
