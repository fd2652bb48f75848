// Entry points: text or file → validated Program, choosing .aref or .json by the file name.
import { extname } from 'node:path';
import { InputError } from '../diag.ts';
import type { Program } from '../ir/program.ts';
import { programFromJson } from './json.ts';
import { parseAref } from './parser.ts';
import { validateProgram } from './validate.ts';
import { readInputFile } from '../read-input.ts';

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
  return parseProgramText(readInputFile(path), path, overrides);
}
