// The programs shown in docs/language.md parse and validate, so the page cannot drift from the parser.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseProgramText, printProgram } from '../../src/lang/index.ts';

const page = readFileSync(join(import.meta.dirname, '../../docs/language.md'), 'utf8');
const blocks = [...page.matchAll(/```(\w*)\n([\s\S]*?)```/g)]
  .map(([, lang, body]) => ({ lang: lang ?? '', body: body ?? '' }))
  .filter((b) => (b.lang === 'json' && b.body.includes('"roles"')) || (b.lang === '' && /^(#|param|aref|role)/m.test(b.body) && b.body.includes('role ')));

describe('docs/language.md', () => {
  it('shows three programs', () => {
    expect(blocks.map((b) => b.lang || 'aref')).toEqual(['aref', 'aref', 'json']);
  });

  it.each(blocks.map((b, i) => [i, b] as const))('program %i parses and validates', (_, block) => {
    const program = parseProgramText(block.body, block.lang === 'json' ? 'doc.json' : 'doc.aref');
    expect(program.roles.length).toBeGreaterThan(0);
    if (block.lang === '') {
      // the page shows canonical text: printing gives it back, comments aside
      const code = block.body.split('\n').filter((l) => !l.startsWith('#')).join('\n').trim();
      expect(printProgram(program).trim()).toBe(code);
    }
  });
});
