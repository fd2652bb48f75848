// `arefcheck emit FILE --target ptx --kernel stream|gemm`: verify a program, then emit it as one
// warp-specialized sm_90a kernel (src/ptx/emit). A program with a violation (or an
// inconclusive check) is refused with the counterexample unless --force, which is how the
// mutant kernels of docs/gpu.md are built.
import { writeFileSync } from 'node:fs';
import chalk from 'chalk';
import { InputError } from '../diag.ts';
import { programLevel, type Program } from '../ir/program.ts';
import { loadProgramFile } from '../lang/load.ts';
import { lowerProgram } from '../lower.ts';
import { emitPtx, gemmStageBytes, gemmTileOf, KERNEL_FAMILIES, parseTile, type EmitOptions } from '../ptx/emit/index.ts';
import { DTYPES } from '../ptx/emit/options.ts';
import { verifyProgram, type Report } from '../verify.ts';
import { verifyEveryK } from '../every-k/verify.ts';
import { formatReportText } from '../verify/format-text.ts';
import { anyParam, flagBoolean, flagChoice, flagInt, flagString, flagStrings, paramOverrides, parseCommandLine, usageError, type CommandLine, type CommandSpec, type OptionSpec } from './args.ts';
import { EXIT } from '../exit-codes.ts';

export const EMIT_HELP = `Usage: arefcheck emit FILE --target ptx --kernel stream|gemm [options]

Verifies FILE (.aref or .json; an aref program is lowered to mbarriers first), then emits one
warp-specialized kernel for sm_90a: the producer role on warpgroup 0 (an elected thread issues
the TMA copies), each consumer role on its own warpgroup, the Program's mbarriers, loops and
parities compiled as they are. docs/emit.md has the op table, docs/gpu.md how to run it.

Options:
  --target ptx           the only target
  --kernel stream|gemm   stream: y = alpha*x + beta over fp32 with 1-D bulk copies;
                         gemm: C = A*B^T, bf16/f16 in, fp32 accumulate, TMA tensor loads + wgmma
  --tile T               gemm: BMxBN[xBK] (default 128x128x64; BK*2 = 128 bytes);
                         stream: chunk bytes (default: the slot size)
  --dtype bf16|f16|f32   gemm input type (default bf16); stream is f32
  --name NAME            kernel entry name (default arefcheck_<kernel>)
  --param NAME=V         override a param before verifying and emitting (repeatable)
  --param NAME=any       prove the program for every value of NAME >= 1 (NAME=any>=N: >= N)
                         before emitting: the kernel reads NAME at run time, and a check at
                         one value covers launches with that value only
  --inline NAME          compile param NAME in as a constant (repeatable; default: every param
                         is a kernel .param .u32 named after it)
  --watchdog N           debug build: a spin on try_wait traps after N failed tries, so a hang
                         ends with an error
  -o, --output FILE      write the PTX to FILE (default: stdout)
  --force                emit even if verification finds a violation or is inconclusive
  --max-states N         checker limit (default 20,000,000)
  --timeout S            checker time limit in seconds (default 600)
  -h, --help             show this help

Exit codes: 0 emitted, 1 refused (violation), 2 bad input, 3 refused (inconclusive).
The verdict goes to stderr; the PTX to stdout unless -o.
`;

/** The options `emit` shares with `pipeline --emit-ptx`. */
export const EMIT_OPTIONS: OptionSpec = {
  target: { type: 'string' },
  kernel: { type: 'string' },
  tile: { type: 'string' },
  dtype: { type: 'string' },
  name: { type: 'string' },
  inline: { type: 'string', multiple: true },
  watchdog: { type: 'string' },
  output: { type: 'string', short: 'o' },
  force: { type: 'boolean' },
  'max-states': { type: 'string' },
  timeout: { type: 'string' },
};

const SPEC: CommandSpec = {
  name: 'emit',
  help: EMIT_HELP,
  options: { ...EMIT_OPTIONS, param: { type: 'string', multiple: true } },
  positionals: { min: 1, max: 1, what: 'FILE' },
};

/** What to do around the emission: where the PTX goes, whether to force, checker limits. */
export interface EmitRun {
  /** What is emitted, for messages: a file name or a description. */
  readonly name: string;
  readonly output?: string;
  readonly force: boolean;
  readonly maxStates?: number;
  readonly maxMs?: number;
  /** --param NAME=any: prove the program for every value of NAME from `min` before emitting */
  readonly anyParam?: { readonly name: string; readonly min: number };
}

/** --kernel, --tile, --dtype, --name, --inline, --watchdog as EmitOptions (for emit and pipeline --emit-ptx). */
export function emitOptionsFromFlags(cl: CommandLine, command: string): EmitOptions {
  const target = flagString(cl, 'target') ?? 'ptx';
  if (target !== 'ptx') throw new InputError(`--target expects ptx, got '${target}'`);
  const kernel = flagChoice(cl, 'kernel', KERNEL_FAMILIES);
  if (kernel === undefined) throw usageError(command, 'missing --kernel stream|gemm');
  const tileText = flagString(cl, 'tile');
  const dtype = flagChoice(cl, 'dtype', DTYPES);
  const name = flagString(cl, 'name');
  const inline = flagStrings(cl, 'inline');
  const watchdog = flagInt(cl, 'watchdog', 1, 2 ** 32 - 1);
  return {
    kernel,
    ...(tileText === undefined ? {} : { tile: parseTile(kernel, tileText) }),
    ...(dtype === undefined ? {} : { dtype }),
    ...(name === undefined ? {} : { name }),
    ...(inline.length === 0 ? {} : { inlineParams: inline }),
    ...(watchdog === undefined ? {} : { watchdog }),
  };
}

/** --output, --force and the checker limits. */
export function emitRunFromFlags(cl: CommandLine, name: string): EmitRun {
  const output = flagString(cl, 'output');
  const maxStates = flagInt(cl, 'max-states', 1);
  const timeout = flagInt(cl, 'timeout', 1, 24 * 3600);
  const any = anyParam(cl);
  return {
    name,
    force: flagBoolean(cl, 'force'),
    ...(any === undefined ? {} : { anyParam: any }),
    ...(output === undefined ? {} : { output }),
    ...(maxStates === undefined ? {} : { maxStates }),
    ...(timeout === undefined ? {} : { maxMs: timeout * 1000 }),
  };
}

/** Bytes per slot the kernel needs, for lowering aref programs that do not declare theirs. */
export function kernelSlotBytes(options: EmitOptions): number | undefined {
  if (options.kernel === 'gemm') return gemmStageBytes(gemmTileOf(options), options.dtype ?? 'bf16');
  return typeof options.tile === 'number' ? options.tile : undefined;
}

/**
 * Verifies `program` and, unless that finds a violation (or ends inconclusive) without
 * `run.force`, emits it. An aref program is lowered first (and checked at the mbarrier level,
 * against itself as refinement). Returns the exit code. `arefcheck pipeline --emit-ptx` calls this.
 */
export function verifyAndEmit(program: Program, options: EmitOptions, run: EmitRun): number {
  const aref = programLevel(program) === 'aref';
  const bytes = kernelSlotBytes(options);
  const lowered = aref ? lowerProgram(program, bytes === undefined ? {} : { bytes }) : program;
  const any = run.anyParam;
  if (any !== undefined) {
    if (!program.params.some((p) => p.name === any.name)) throw new InputError(`--param ${any.name}=any: the program has no param ${any.name}`);
    if (options.inlineParams?.includes(any.name)) throw new InputError(`--param ${any.name}=any: an inlined param is compiled in as one value; leave it a kernel .param to prove it for every value`);
  }
  // Emit first: a program the kernel cannot realize is bad input, whatever its verdict.
  const ptx = emitPtx(lowered, options);
  const limits = {
    ...(aref ? { level: 'mbarrier' as const } : {}),
    ...(run.maxStates === undefined ? {} : { maxStates: run.maxStates }),
    ...(run.maxMs === undefined ? {} : { maxMs: run.maxMs }),
  };
  const report: Report = any ? verifyEveryK(program, { ...limits, param: any.name, min: any.min }) : verifyProgram(program, limits);
  const color = chalk.level > 0 && process.stderr.isTTY === true;
  if (report.verdict !== 'verified') {
    process.stderr.write(formatReportText(report, { color, program: run.name }));
    if (!run.force) {
      process.stderr.write(`arefcheck emit: refused: the program is not verified (${report.verdict}); --force emits it anyway\n`);
      return report.verdict === 'violation' ? EXIT.violation : EXIT.inconclusive;
    }
    process.stderr.write(`arefcheck emit: --force: emitting a program that is not verified (${report.verdict})\n`);
  } else {
    const scope = report.scope ? ` ${report.scope}` : '';
    process.stderr.write(`verified ${run.name} at the mbarrier level${scope} (${report.stats.states} states); emitting the ${options.kernel} kernel\n`);
    const note = runtimeParamsNote(program, options.inlineParams ?? [], any?.name, '--param NAME=any proves one for every value; --inline NAME compiles it in');
    if (note) process.stderr.write(`${note}\n`);
  }
  if (run.output === undefined) process.stdout.write(ptx);
  else {
    try {
      writeFileSync(run.output, ptx);
    } catch (err) {
      const code = err instanceof Error && 'code' in err ? ` (${String(err.code)})` : '';
      throw new InputError(`cannot write '${run.output}'${code}`);
    }
  }
  return EXIT.verified;
}

/**
 * What a check at the program's param values leaves out of an emitted kernel: the params it reads
 * as `.param`s at launch (not inlined), but the one proved for every value. Undefined when none.
 */
export function runtimeParamsNote(program: Program, inlined: readonly string[], proved: string | undefined, how: string): string | undefined {
  const open = program.params.filter((p) => !inlined.includes(p.name) && p.name !== proved);
  if (open.length === 0) return undefined;
  const values = open.map((p) => `${p.name} = ${p.value}`).join(', ');
  return `note: checked at ${values} only: the kernel reads ${open.length === 1 ? 'this param' : 'these params'} at run time, so a launch with another value is not covered (${how})`;
}

export async function main(argv: string[]): Promise<number> {
  const cl = parseCommandLine(SPEC, argv);
  if (!cl) return EXIT.verified;
  const file = cl.positionals[0] ?? '';
  const options = emitOptionsFromFlags(cl, SPEC.name);
  const program = loadProgramFile(file, paramOverrides(cl, true));
  return verifyAndEmit(program, options, emitRunFromFlags(cl, file));
}
