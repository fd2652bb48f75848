// `arefcheck pipeline`: the Tawa pipeline family (src/pipeline.ts) from flags; print it, verify it,
// or verify and emit it as an sm_90a PTX kernel.
import { existsSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { InputError } from '../diag.ts';
import type { Program } from '../ir/program.ts';
import { programToJson } from '../lang/json.ts';
import { printProgram } from '../lang/printer.ts';
import { MAX_INT } from '../lang/syntax.ts';
import { pipelineProgram } from '../pipeline.ts';
import { flagBoolean, flagChoice, flagInt, flagString, LEVELS, parseCommandLine, requiredInt, usageError, type CommandSpec } from './args.ts';
import { runVerification, verificationFlags } from './cmd-verify.ts';
import { EXIT } from './exit-codes.ts';

export const PIPELINE_HELP = `Usage: arefcheck pipeline --depth D --pending P --consumers C --iterations K [options]

Generates the Tawa pipeline family: one producer puts K values into a D-slot aref ring;
C consumer roles take turns (consumer c handles k = c, c+C, ...), each keeping P wgmma
groups in flight before it releases its oldest slot. Without --print it is verified, like
'arefcheck verify' (at the mbarrier level the aref program is lowered and checked against it:
refinement).

Options:
  --depth D              slots in the ring (>= 1)
  --pending P            wgmma groups kept outstanding before a release (>= 0)
  --consumers C          consumer roles taking turns (>= 1)
  --iterations K         values put in all (>= 0)
  --level aref|mbarrier|both
                         print: the aref program (default) or its lowering to mbarriers, TMA and
                         wgmma; verify: the level(s) to check (default aref)
  --bytes B              bytes per slot expected by the lowering (default 16384)
  --print                print the program in .aref syntax (it parses back)
  --print --json         print the program in its JSON machine form
  --json                 (verify) print the report as one JSON object
  --max-states N         (verify) stop (inconclusive) after storing N states
  --timeout S            (verify) stop (inconclusive) after S seconds
  --literal              (verify) follow the paper's consumed rule as written
  --trace-out DIR        (verify) write each counterexample to DIR as JSON; replay it on the
                         program that --print writes
  --emit-ptx FILE        verify the mbarrier-level program sized for the kernel and, if it is
                         verified, write its sm_90a PTX kernel to FILE
  --kernel stream|gemm   (--emit-ptx) the kernel family (default stream)
  --tile T               (--emit-ptx) gemm: BMxBN[xBK]; stream: bytes per chunk
  -h, --help             show this help

Exit codes: 0 verified (or printed), 1 violation, 2 bad input, 3 inconclusive.

Examples:
  arefcheck pipeline --depth 2 --pending 1 --consumers 1 --iterations 4 --print
  arefcheck pipeline --depth 2 --pending 2 --consumers 1 --iterations 8 --level both
`;

const SPEC: CommandSpec = {
  name: 'pipeline',
  help: PIPELINE_HELP,
  options: {
    depth: { type: 'string' },
    pending: { type: 'string' },
    consumers: { type: 'string' },
    iterations: { type: 'string' },
    level: { type: 'string' },
    bytes: { type: 'string' },
    print: { type: 'boolean' },
    json: { type: 'boolean' },
    'max-states': { type: 'string' },
    timeout: { type: 'string' },
    literal: { type: 'boolean' },
    'trace-out': { type: 'string' },
    'emit-ptx': { type: 'string' },
    kernel: { type: 'string' },
    tile: { type: 'string' },
  },
};

export async function main(argv: string[]): Promise<number> {
  const cl = parseCommandLine(SPEC, argv);
  if (!cl) return EXIT.verified;
  const depth = requiredInt(cl, SPEC.name, 'depth', 1, MAX_INT);
  const pending = requiredInt(cl, SPEC.name, 'pending', 0, MAX_INT);
  const consumers = requiredInt(cl, SPEC.name, 'consumers', 1, MAX_INT);
  const iterations = requiredInt(cl, SPEC.name, 'iterations', 0, MAX_INT);
  const bytes = flagInt(cl, 'bytes', 1, MAX_INT);
  const family = { depth, pending, consumers, iterations };
  const name = `pipeline D=${depth} P=${pending} C=${consumers} K=${iterations}`;

  if (flagBoolean(cl, 'print')) {
    const level = flagChoice(cl, 'level', LEVELS) ?? 'aref';
    const program = pipelineProgram({ ...family, level, ...(bytes === undefined ? {} : { bytes }) });
    process.stdout.write(flagBoolean(cl, 'json') ? programToJson(program) : printProgram(program));
    return EXIT.verified;
  }
  const run = verificationFlags(cl);
  const emitTo = flagString(cl, 'emit-ptx');
  if (emitTo !== undefined) {
    if (run.level !== undefined && run.level !== 'mbarrier') throw usageError(SPEC.name, '--emit-ptx verifies the emitted mbarrier-level program; --level does not apply');
    if (bytes !== undefined) throw usageError(SPEC.name, '--emit-ptx sizes the slots for the kernel; --bytes does not apply (use --tile)');
    const { program, ptx } = await emitPipeline(family, flagString(cl, 'kernel') ?? 'stream', flagString(cl, 'tile'));
    const code = runVerification(program, { ...run, name: `${name} (${emitTo})` });
    if (code !== EXIT.verified) {
      process.stderr.write(`PTX not written to ${emitTo}: the program is not verified\n`);
      return code;
    }
    try {
      writeFileSync(emitTo, ptx);
    } catch (err) {
      throw new InputError(`--emit-ptx: cannot write '${emitTo}'${err instanceof Error && 'code' in err ? ` (${String(err.code)})` : ''}`);
    }
    if (!run.json) process.stdout.write(`PTX written to ${emitTo}\n`);
    return code;
  }
  if (flagString(cl, 'kernel') !== undefined || flagString(cl, 'tile') !== undefined) throw usageError(SPEC.name, '--kernel and --tile go with --emit-ptx');
  const program = pipelineProgram({ ...family, level: 'aref', ...(bytes === undefined ? {} : { bytes }) });
  return runVerification(program, { ...run, level: run.level ?? 'aref', name });
}

type EmitFromPipeline = (opts: { depth: number; pending: number; consumers: number; iterations: number; emit: { kernel: string; tile?: unknown } }) => unknown;
type ParseTile = (kernel: string, text: string) => unknown;

function hasEmit(m: unknown): m is { emitFromPipeline: EmitFromPipeline; parseTile: ParseTile } {
  return typeof m === 'object' && m !== null && 'emitFromPipeline' in m && typeof m.emitFromPipeline === 'function' && 'parseTile' in m && typeof m.parseTile === 'function';
}

/** The PTX emitter is loaded only when it is part of this build (src/ptx/emit/index). */
async function emitPipeline(
  family: { depth: number; pending: number; consumers: number; iterations: number },
  kernel: string,
  tile: string | undefined,
): Promise<{ program: Program; ptx: string }> {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const url = new URL(`../ptx/emit/index${ext}`, import.meta.url);
  const m: unknown = existsSync(fileURLToPath(url)) ? await import(url.href) : undefined;
  if (!hasEmit(m)) throw new InputError('--emit-ptx: PTX emission is not available in this build');
  if (kernel !== 'stream' && kernel !== 'gemm') throw new InputError(`--kernel expects one of stream, gemm, got '${kernel}'`);
  const out = m.emitFromPipeline({ ...family, emit: { kernel, ...(tile === undefined ? {} : { tile: m.parseTile(kernel, tile) }) } });
  if (typeof out !== 'object' || out === null || !('ptx' in out) || typeof out.ptx !== 'string' || !('program' in out)) {
    throw new Error('the PTX emitter returned an unexpected value');
  }
  return { program: out.program as Program, ptx: out.ptx };
}
