// Parse → print → parse is the identity (locations aside) on every example and on random programs;
// the JSON machine form round-trips too.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbProgram } from '../../src/arbitraries.ts';
import { parseAref, printProgram, programFromJson, programToJson, stripLocs, validateProgram } from '../../src/lang/index.ts';
import { loadProgramFile } from '../../src/lang/load.ts';

const examplesDir = join(import.meta.dirname, '../../examples');
// every program below examples/, subfolders included, so later examples are covered too
const exampleFiles = readdirSync(examplesDir, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.aref') || f.endsWith('.json'))
  .sort();

describe('examples/', () => {
  it('holds the bundled examples', () => {
    expect(exampleFiles).toEqual(expect.arrayContaining(['double-buffer.aref', 'depth-equals-pending.aref', 'double-buffer-mbar.aref', 'early-release-mbar.aref']));
  });

  it.each(exampleFiles)('%s parses, validates and prints back to the same program', (file) => {
    const program = loadProgramFile(join(examplesDir, file));
    const text = printProgram(program);
    const again = validateProgram(parseAref(text, 'printed.aref'));
    expect(stripLocs(again)).toEqual(stripLocs(program));
    expect(printProgram(again)).toBe(text);
  });

  it.each(exampleFiles)('%s survives the JSON machine form', (file) => {
    const program = loadProgramFile(join(examplesDir, file));
    const back = validateProgram(programFromJson(programToJson(program), 'x.json'));
    expect(stripLocs(back)).toEqual(stripLocs(program));
  });
});

describe('random programs', () => {
  it('are valid, and print → parse gives them back', () => {
    fc.assert(
      fc.property(arbProgram(), (program) => {
        validateProgram(program);
        const text = printProgram(program);
        const parsed = validateProgram(parseAref(text, 'random.aref'));
        expect(stripLocs(parsed)).toEqual(stripLocs(program));
      }),
      { numRuns: 300 },
    );
  });

  it('JSON → program gives them back', () => {
    fc.assert(
      fc.property(arbProgram(), (program) => {
        const json = programToJson(program);
        expect(stripLocs(programFromJson(json, 'random.json'))).toEqual(stripLocs(program));
        expect(JSON.parse(json)).toEqual(stripLocs(program)); // the machine form is the IR shape
      }),
      { numRuns: 200 },
    );
  });

  it('draw every op family and nested control flow', () => {
    const kinds = new Set<string>();
    const stmts = new Set<string>();
    for (const p of fc.sample(arbProgram(), { numRuns: 300, seed: 7 })) {
      const walk = (xs: readonly import('../../src/ir/program.ts').Stmt[]): void => {
        for (const s of xs) {
          stmts.add(s.kind);
          if (s.kind === 'op') kinds.add(s.op.kind);
          else if (s.kind === 'for') walk(s.body);
          else {
            walk(s.then);
            walk(s.else);
          }
        }
      };
      for (const r of p.roles) walk(r.body);
    }
    expect([...stmts].sort()).toEqual(['for', 'if', 'op']);
    expect(kinds.size).toBe(22);
  });
});

describe('source text', () => {
  it('the printed form of the double buffer example is the canonical text', () => {
    const text = readFileSync(join(examplesDir, 'double-buffer-mbar.aref'), 'utf8');
    const printed = printProgram(loadProgramFile(join(examplesDir, 'double-buffer-mbar.aref')));
    // the example is written canonically apart from its comments and blank lines
    const code = text.split('\n').filter((l) => !l.startsWith('#')).join('\n').trim();
    expect(printed.trim()).toBe(code);
  });
});
