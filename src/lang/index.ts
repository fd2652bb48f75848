// The .aref language and its JSON machine form: parse, print, validate, load.
export { parseAref } from './parser.ts';
export { printProgram, printExpr, printOp } from './printer.ts';
export { programToJson, programFromJson } from './json.ts';
export { validateProgram } from './validate.ts';
export { parseArefFile, parseProgramText, loadProgramFile } from './load.ts';
export { stripLocs } from './strip.ts';
