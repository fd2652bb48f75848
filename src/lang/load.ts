// Entry points: text or file → validated Program, choosing .aref or .json by the file name.
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { InputError } from '../diag.ts';
import type { Program } from '../ir/program.ts';
import { programFromJson } from './json.ts';
import { parseAref } from './parser.ts';
import { validateProgram } from './validate.ts';

/** Parse and validate .aref text. */
export function parseArefFile(text: string, file: string, overrides?: ReadonlyMap<string, number>): Program {
  return validateProgram(parseAref(text, file), overrides);
}

/** Parse and validate program text; `file` picks the form: `.json` is the machine form, anything else .aref. */
export function parseProgramText(text: string, file: string, overrides?: ReadonlyMap<string, number>): Program {
  const program = extname(file).toLowerCase() === '.json' ? programFromJson(text, file) : parseAref(text, file);
  return validateProgram(program, overrides);
}

/** Read, parse and validate a `.aref` or `.json` program file. */
export function loadProgramFile(path: string, overrides?: ReadonlyMap<string, number>): Program {
  const ext = extname(path).toLowerCase();
  if (ext !== '.aref' && ext !== '.json') throw new InputError(`cannot load '${path}': expected a .aref or .json program file`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = err instanceof Error && 'code' in err ? ` (${String(err.code)})` : '';
    throw new InputError(`cannot read '${path}'${code}`);
  }
  return parseProgramText(text, path, overrides);
}
