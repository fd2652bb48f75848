// `arefcheck pipeline`: the Tawa pipeline family (src/pipeline.ts) from flags; print it or verify it.
import { programToJson } from '../lang/json.ts';
import { printProgram } from '../lang/printer.ts';
import { MAX_INT } from '../lang/syntax.ts';
import { pipelineProgram } from '../pipeline.ts';
import { flagBoolean, flagChoice, flagInt, LEVELS, parseCommandLine, requiredInt, usageError, type CommandSpec } from './args.ts';
import { EXIT } from './exit-codes.ts';

export const PIPELINE_HELP = `Usage: arefcheck pipeline --depth D --pending P --consumers C --iterations K [options]

Generates the Tawa pipeline family: one producer puts K values into a D-slot aref ring;
C consumer roles take turns (consumer c handles k = c, c+C, ...), each keeping P wgmma
groups in flight before it releases its oldest slot.

Options:
  --depth D              slots in the ring (>= 1)
  --pending P            wgmma groups kept outstanding before a release (>= 0)
  --consumers C          consumer roles taking turns (>= 1)
  --iterations K         values put in all (>= 0)
  --level aref|mbarrier  the aref program (default), or its lowering to mbarriers, TMA and wgmma
  --bytes B              bytes per slot expected by the lowering (default 16384)
  --print                print the program in .aref syntax (it parses back)
  --print --json         print the program in its JSON machine form
  -h, --help             show this help

Without --print, the program is verified (exit 0 verified, 1 violation, 3 inconclusive).

Example:
  arefcheck pipeline --depth 2 --pending 1 --consumers 1 --iterations 4 --print
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
  },
};

export async function main(argv: string[]): Promise<number> {
  const cl = parseCommandLine(SPEC, argv);
  if (!cl) return EXIT.verified;
  const depth = requiredInt(cl, SPEC.name, 'depth', 1, MAX_INT);
  const pending = requiredInt(cl, SPEC.name, 'pending', 0, MAX_INT);
  const consumers = requiredInt(cl, SPEC.name, 'consumers', 1, MAX_INT);
  const iterations = requiredInt(cl, SPEC.name, 'iterations', 0, MAX_INT);
  const level = flagChoice(cl, 'level', LEVELS) ?? 'aref';
  const bytes = flagInt(cl, 'bytes', 1, MAX_INT);
  const program = pipelineProgram({ depth, pending, consumers, iterations, level, ...(bytes === undefined ? {} : { bytes }) });

  if (flagBoolean(cl, 'print')) {
    process.stdout.write(flagBoolean(cl, 'json') ? programToJson(program) : printProgram(program));
    return EXIT.verified;
  }
  // Verification needs the checker (issue 3); until it is wired in, say so instead of guessing.
  throw usageError(SPEC.name, 'verification is not available in this build yet; use --print to see the program');
}
