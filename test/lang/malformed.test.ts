// Every malformed input gives exactly one InputError, at the expected file:line:col, never a crash.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/diag.ts';
import { loadProgramFile } from '../../src/lang/index.ts';

const dir = join(import.meta.dirname, '../fixtures/malformed');
interface Expected {
  readonly line: number;
  readonly col: number;
  readonly message: string;
}
const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Record<string, Expected>;
const inputs = readdirSync(dir).filter((f) => f.endsWith('.aref') || (f.endsWith('.json') && f !== 'expected.json')).sort();

function errorOf(path: string): InputError {
  try {
    loadProgramFile(path);
  } catch (err) {
    if (err instanceof InputError) return err;
    throw err;
  }
  throw new Error(`${path} was accepted`);
}

describe('malformed inputs', () => {
  it('has at least 20 cases, each with an expectation', () => {
    expect(inputs.length).toBeGreaterThanOrEqual(20);
    expect(Object.keys(expected).sort()).toEqual(inputs);
    expect(inputs.some((f) => f.endsWith('.json'))).toBe(true);
  });

  it.each(inputs)('%s gives one error at its line:col', (file) => {
    const want = expected[file];
    if (!want) throw new Error(`no expectation for ${file}`);
    const path = join(dir, file);
    const err = errorOf(path);
    expect(err.message).toContain(want.message);
    expect({ file: err.loc?.file, line: err.loc?.line, col: err.loc?.col }).toEqual({ file: path, line: want.line, col: want.col });
    const formatted = err.format();
    expect(formatted).toBe(`${path}:${want.line}:${want.col}: error: ${err.message}`);
    expect(formatted).not.toContain('\n');
    expect(formatted).not.toMatch(/\bat .*\.ts:\d+/); // no stack frames
  });
});

describe('file loading', () => {
  it('rejects an unknown extension and a missing file without a position', () => {
    expect(() => loadProgramFile(join(dir, 'expected.txt'))).toThrow(/expected a \.aref or \.json/);
    const missing = (() => {
      try {
        loadProgramFile(join(dir, 'does-not-exist.aref'));
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(missing).toBeInstanceOf(InputError);
    expect((missing as InputError).message).toContain('ENOENT');
  });
});
