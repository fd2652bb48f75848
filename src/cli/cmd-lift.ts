// `arefcheck lift kernel.ptx --print`: show what a real kernel's pipeline does — the
// mbarrier-level Program the lifter recovers from the PTX, in .aref syntax, each operation
// annotated with the PTX line it comes from.
import { InputError } from '../diag.ts';
import type { Program } from '../ir/program.ts';
import { programToJson } from '../lang/json.ts';
import { printProgram } from '../lang/printer.ts';
import { liftPtxFile, type LiftOptions } from '../ptx/lift/index.ts';
import { flagBoolean, flagInt, flagString, flagStrings, parseCommandLine, type CommandSpec } from './args.ts';
import { EXIT } from '../exit-codes.ts';
import { readInputFile } from '../read-input.ts';

export const LIFT_HELP = `Usage: arefcheck lift FILE.ptx [--print] [options]

Executes every warp of one CTA of a PTX kernel concretely and prints the mbarrier-level
program of its synchronization: barriers, TMA copies, wgmma groups, named barriers and
shared-memory accesses, loops unrolled, each operation followed by the PTX line it comes
from. 'arefcheck verify FILE.ptx' checks that program. See docs/ptx.md.

Options:
  --print                print the program in .aref syntax (the default)
  --json                 print the JSON machine form instead (a list: one entry per kernel)
  --kernel NAME          the kernel to lift (default: every kernel in the file)
  --param NAME=V         value of a kernel parameter, by name or by position (0=V);
                         repeatable; loop bounds read with ld.param need one
  --block N              threads per block (default: .reqntid or .maxntid)
  --cta N                the CTA to execute (%ctaid.x, default 0)
  --tma-bytes N          bytes of each tensor TMA copy, when the layout cannot tell
  --max-steps N          instruction budget for the CTA (default 5,000,000)
  --no-lines             leave out the '# line N' comments
  -h, --help             show this help

Exit codes: 0 lifted, 2 bad input or unsupported PTX (the message says what and where).
`;

const SPEC: CommandSpec = {
  name: 'lift',
  help: LIFT_HELP,
  options: {
    print: { type: 'boolean' },
    json: { type: 'boolean' },
    kernel: { type: 'string' },
    param: { type: 'string', multiple: true },
    block: { type: 'string' },
    cta: { type: 'string' },
    'tma-bytes': { type: 'string' },
    'max-steps': { type: 'string' },
    'no-lines': { type: 'boolean' },
  },
  positionals: { min: 1, max: 1, what: 'FILE.ptx' },
};

/** `--param NAME=V` or `--param 3=V` (by position). */
function liftParams(texts: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const text of texts) {
    const m = /^([A-Za-z_$][A-Za-z0-9_$]*|\d+)=\s*([+-]?\d+)\s*$/.exec(text);
    if (!m) throw new InputError(`--param expects NAME=VALUE (an integer), got '${text}'`);
    const v = Number(m[2]);
    if (!Number.isSafeInteger(v)) throw new InputError(`--param ${m[1]} is out of range: '${m[2]}'`);
    out.set(m[1] ?? '', v);
  }
  return out;
}

/** printProgram's text with `# line N` after each operation (role bodies are straight-line). */
export function printLifted(program: Program): string {
  const text = printProgram(program);
  const lines = text.split('\n');
  let role = -1;
  let op = 0;
  const body: string[] = [];
  for (const line of lines) {
    if (line.startsWith('role ')) {
      role++;
      op = 0;
      body.push(line);
      continue;
    }
    const r = program.roles[role];
    const s = r && line.startsWith('  ') ? r.body[op] : undefined;
    if (s) {
      op++;
      body.push(s.loc ? `${line.padEnd(51)} # line ${s.loc.line}` : line);
    } else {
      body.push(line);
    }
  }
  return body.join('\n');
}

/** `arefcheck lift …`: argv holds the arguments after `lift`. */
export async function main(argv: string[]): Promise<number> {
  const cl = parseCommandLine(SPEC, argv);
  if (!cl) return EXIT.verified;
  const file = cl.positionals[0] ?? '';
  const kernel = flagString(cl, 'kernel');
  const block = flagInt(cl, 'block', 1, 1024);
  const cta = flagInt(cl, 'cta', 0);
  const tmaBytes = flagInt(cl, 'tma-bytes', 1);
  const maxSteps = flagInt(cl, 'max-steps', 1);
  const options: LiftOptions = {
    params: liftParams(flagStrings(cl, 'param')),
    ...(kernel === undefined ? {} : { kernel }),
    ...(block === undefined ? {} : { block }),
    ...(cta === undefined ? {} : { cta }),
    ...(tmaBytes === undefined ? {} : { tmaBytes }),
    ...(maxSteps === undefined ? {} : { maxSteps }),
  };
  const lifted = liftPtxFile(readInputFile(file), file, options);
  if (flagBoolean(cl, 'json')) {
    const entries = lifted.map((k) => `{"kernel":${JSON.stringify(k.kernel)},"program":${programToJson(k.program)}}`);
    process.stdout.write(`[${entries.join(',')}]\n`);
    return EXIT.verified;
  }
  const lines = !flagBoolean(cl, 'no-lines');
  const out = lifted.map((k) => {
    const body = lines ? printLifted(k.program) : printProgram(k.program);
    return lifted.length > 1 ? `# kernel ${k.kernel}\n${body}` : body;
  });
  process.stdout.write(out.join('\n'));
  return EXIT.verified;
}
