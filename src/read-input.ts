// Reading an input file: a missing or unreadable file is bad input (one line, exit 2), not a crash.
import { readFileSync } from 'node:fs';
import { InputError } from './diag.ts';

export function readInputFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = err instanceof Error && 'code' in err ? ` (${String(err.code)})` : '';
    throw new InputError(`cannot read '${path}'${code}`);
  }
}
