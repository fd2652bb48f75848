// `arefcheck pipeline`: the Tawa pipeline family (src/pipeline.ts) from flags; print it, verify it,
// or verify and emit it as an sm_90a PTX kernel.
import { writeFileSync } from 'node:fs';
import { InputError } from '../diag.ts';
import type { Program } from '../ir/program.ts';
import { programToJson } from '../lang/json.ts';
import { printProgram } from '../lang/printer.ts';
import { PIPELINE_MAX, pipelineProgram, type PipelineOptions } from '../pipeline.ts';
import { flagBoolean, flagChoice, flagInt, flagString, LEVELS, parseCommandLine, requiredInt, usageError, type CommandLine, type CommandSpec } from './args.ts';
import { parseAnyValue } from '../every-k/any-value.ts';
import { runVerification, verificationFlags } from './verification.ts';
import { EXIT } from '../exit-codes.ts';
import { emitFromPipeline, parseTile } from '../ptx/emit/index.ts';
import { runtimeParamsNote } from './cmd-emit.ts';

type PipelineFamily = Omit<PipelineOptions, 'level' | 'bytes'>;

export const PIPELINE_HELP = `Usage: arefcheck pipeline --depth D --pending P --consumers C --iterations K [options]

Generates the Tawa pipeline family: one producer puts K values into a D-slot aref ring;
C consumer roles take turns (consumer c handles k = c, c+C, ...), each keeping P wgmma
groups in flight before it releases its oldest slot. Without --print it is verified, like
'arefcheck verify' (at the mbarrier level the aref program is lowered and checked against it:
refinement).

Options:
  --depth D              slots in the ring (1..4096, an aref's most)
  --pending P            wgmma groups kept outstanding before a release (>= 0)
  --consumers C          consumer roles taking turns (1..7: 4 warps each and the producer's
                         in one CTA of 32 warps)
  --tiles T              T output tiles per CTA, one after the other (a persistent kernel); needs
                         one consumer or --cooperative; 'any' (or any>=N) proves every T
  --cooperative          every consumer reads every slot (empty barriers count C, as CUTLASS's
                         cooperative kernel); mbarrier level only
  --iterations K         values put in all (>= 0); 'any' proves the pipeline for every K >= 1
                         ('any>=N': every K >= N), as verify --param K=any does
  --level aref|mbarrier|both
                         print: the aref program (default) or its lowering to mbarriers, TMA and
                         wgmma; verify: the level(s) to check (default aref)
  --bytes B              bytes per slot expected by the lowering (default 16384; at most
                         1048575, an mbarrier's transaction count)
  --print                print the program in .aref syntax (it parses back)
  --print --json         print the program in its JSON machine form
  --json                 (verify) print the report as one JSON object
  --max-states N         (verify) stop (inconclusive) after storing N states
  --max-memory SIZE      (verify) stop (inconclusive) past SIZE of tables (512M, 4G; default 6G)
  --no-por               (verify) explore every interleaving (no partial-order reduction)
  --no-collapse          (verify) no collapse compression (more memory per state, a little less time)
  --no-symmetry          (verify) store every order of interchangeable roles (cooperative consumers)
  --no-every-k           (verify) explore K itself, not first a proof for every K (K ≥ 1,024)
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
    cooperative: { type: 'boolean' },
    tiles: { type: 'string' },
    print: { type: 'boolean' },
    json: { type: 'boolean' },
    'max-states': { type: 'string' },
    'max-memory': { type: 'string' },
    'no-por': { type: 'boolean' },
    'no-collapse': { type: 'boolean' },
    'no-symmetry': { type: 'boolean' },
    'no-every-k': { type: 'boolean' },
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
  // the language's own bounds (src/pipeline.ts): what is accepted here validates and prints back
  const depth = requiredInt(cl, SPEC.name, 'depth', 1, PIPELINE_MAX.depth);
  const pending = requiredInt(cl, SPEC.name, 'pending', 0, PIPELINE_MAX.pending);
  const consumers = requiredInt(cl, SPEC.name, 'consumers', 1, PIPELINE_MAX.consumers);
  const openK = openCount(cl, 'iterations', 'K', 0);
  const openT = openCount(cl, 'tiles', 'T', 1);
  if (openK && openT) throw usageError(SPEC.name, `only one of --iterations and --tiles can be left open ('any')`);
  const anyParam = openK ?? openT;
  // a count left open is generated at its smallest value: the proof reads the program's structure, not the value
  const iterations = openK?.min ?? requiredInt(cl, SPEC.name, 'iterations', 0, PIPELINE_MAX.iterations);
  const bytes = flagInt(cl, 'bytes', 1, PIPELINE_MAX.bytes);
  const cooperative = flagBoolean(cl, 'cooperative');
  const tiles = openT?.min ?? flagInt(cl, 'tiles', 1, PIPELINE_MAX.tiles);
  const family: PipelineFamily = { depth, pending, consumers, iterations, ...(cooperative ? { cooperative } : {}), ...(tiles === undefined ? {} : { tiles }) };
  const name = `pipeline D=${depth} P=${pending} C=${consumers} K=${openK ? flagString(cl, 'iterations') : iterations}${openT ? ` T=${flagString(cl, 'tiles')}` : ''}`;

  if (flagBoolean(cl, 'print')) {
    if (anyParam) throw usageError(SPEC.name, `--print writes one program: give --${openK ? 'iterations' : 'tiles'} a number`);
    const level = flagChoice(cl, 'level', LEVELS) ?? (cooperative ? 'mbarrier' : 'aref');
    const program = pipelineProgram({ ...family, level, ...(bytes === undefined ? {} : { bytes }) });
    process.stdout.write(flagBoolean(cl, 'json') ? programToJson(program) : printProgram(program));
    return EXIT.verified;
  }
  const run = verificationFlags(cl);
  const emitTo = flagString(cl, 'emit-ptx');
  if (emitTo !== undefined) {
    if (run.level !== undefined && run.level !== 'mbarrier') throw usageError(SPEC.name, '--emit-ptx verifies the emitted mbarrier-level program; --level does not apply');
    if (bytes !== undefined) throw usageError(SPEC.name, '--emit-ptx sizes the slots for the kernel; --bytes does not apply (use --tile)');
    const { program, ptx } = emitPipeline(family, flagString(cl, 'kernel') ?? 'stream', flagString(cl, 'tile'));
    const code = await runVerification(program, { ...run, name: `${name} (${emitTo})`, ...(anyParam ? { anyParam } : {}) });
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
    const note = runtimeParamsNote(program, [], anyParam?.name, anyParam ? 'launch it with these values' : '--iterations any proves every K');
    if (note) process.stderr.write(`${note}\n`);
    return code;
  }
  if (flagString(cl, 'kernel') !== undefined || flagString(cl, 'tile') !== undefined) throw usageError(SPEC.name, '--kernel and --tile go with --emit-ptx');
  // cooperative consumers share every slot: only the mbarrier level can express it
  const own = cooperative ? 'mbarrier' : 'aref';
  const program = pipelineProgram({ ...family, level: own, ...(bytes === undefined ? {} : { bytes }) });
  return runVerification(program, { ...run, level: run.level ?? own, name, ...(anyParam ? { anyParam } : {}) });
}

/** `--iterations any` / `--tiles any>=N`: the family's param left open, from N (at least `least`); undefined for a number. */
function openCount(cl: CommandLine, flag: string, param: 'K' | 'T', least: number): { readonly name: string; readonly min: number } | undefined {
  const text = flagString(cl, flag);
  const min = text === undefined ? undefined : parseAnyValue(text, `--${flag}`);
  if (min === undefined) return undefined;
  if (min < least) throw new InputError(`--${flag} any>=${min}: the smallest value is ${least}`);
  return { name: param, min: Math.max(min, least) };
}

/** Emit the pipeline's kernel: the program is the mbarrier-level pipeline sized for the kernel. */
function emitPipeline(family: PipelineFamily, kernelFlag: string, tile: string | undefined): { program: Program; ptx: string } {
  if (kernelFlag !== 'stream' && kernelFlag !== 'gemm') throw new InputError(`--kernel expects one of stream, gemm, got '${kernelFlag}'`);
  const kernel: 'stream' | 'gemm' = kernelFlag;
  const cooperative = family.cooperative === true;
  const persistent = family.tiles !== undefined;
  if (cooperative && kernel !== 'gemm') throw new InputError('--cooperative goes with --kernel gemm');
  if (persistent && kernel !== 'gemm') throw new InputError('--tiles (a persistent kernel) goes with --kernel gemm');
  const emit = { kernel, ...(tile === undefined ? {} : { tile: parseTile(kernel, tile) }), ...(cooperative ? { cooperative } : {}), ...(persistent ? { persistent } : {}) };
  return emitFromPipeline({ ...family, emit });
}
