// Loading the FILE of `verify`, `replay` and `diagram`: .aref, .json, or .ptx lifted at its
// launch values.
import { extname } from 'node:path';
import { InputError } from '../diag.ts';
import type { Program } from '../ir/program.ts';
import { loadProgramFile } from '../lang/load.ts';
import { liftPtxFile } from '../ptx/lift/index.ts';
import { flagInt, flagString, paramOverrides, type CommandLine } from './args.ts';
import { readInputFile } from '../read-input.ts';


export interface LoadOptions {
  readonly params: ReadonlyMap<string, number>;
  readonly kernel?: string;
  readonly block?: number;
  readonly cta?: number;
  readonly tmaBytes?: number;
}

/** A program file as the CLI takes it: .aref or .json, or .ptx through the lifter when this build has one. */
export async function loadProgramForCli(file: string, options: LoadOptions): Promise<Program> {
  if (extname(file).toLowerCase() === '.ptx') return loadPtx(file, options);
  for (const [flag, value] of [['--kernel', options.kernel], ['--block', options.block], ['--cta', options.cta], ['--tma-bytes', options.tmaBytes]] as const)
    if (value !== undefined) throw new InputError(`${flag} applies to .ptx files only`);
  return loadProgramFile(file, options.params);
}

/** The one kernel of a lifted file (or the one named with --kernel). */
function loadPtx(file: string, options: LoadOptions): Program {
  const kernels = liftPtxFile(readInputFile(file), file, {
    ...(options.kernel === undefined ? {} : { kernel: options.kernel }),
    ...(options.params.size === 0 ? {} : { params: options.params }),
    ...(options.block === undefined ? {} : { block: options.block }),
    ...(options.cta === undefined ? {} : { cta: options.cta }),
    ...(options.tmaBytes === undefined ? {} : { tmaBytes: options.tmaBytes }),
  });
  const [only] = kernels;
  if (kernels.length !== 1 || !only) throw new InputError(`${file} has ${kernels.length} kernels (${kernels.map((k) => k.kernel).join(', ')}); name one with --kernel`);
  return only.program;
}

/** `anyAllowed`: `--param K=any` is read elsewhere (verify's anyParam), not refused here. */
export function loadFlags(cl: CommandLine, intParams = true, anyAllowed = false): LoadOptions {
  const kernel = flagString(cl, 'kernel');
  const block = flagInt(cl, 'block', 1, 1024);
  const cta = flagInt(cl, 'cta', 0);
  const tmaBytes = flagInt(cl, 'tma-bytes', 1);
  return {
    params: intParams ? paramOverrides(cl, anyAllowed) : new Map(),
    ...(kernel === undefined ? {} : { kernel }),
    ...(block === undefined ? {} : { block }),
    ...(cta === undefined ? {} : { cta }),
    ...(tmaBytes === undefined ? {} : { tmaBytes }),
  };
}
