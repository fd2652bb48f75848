// `arefcheck lift kernel.ptx --print`: show what a real kernel's pipeline does — the
// mbarrier-level Program the lifter recovers from the PTX, in .aref syntax, each operation
// annotated with the PTX line it comes from.
import type { Program } from '../ir/program.ts';
import { programToJson } from '../lang/json.ts';
import { printProgram } from '../lang/printer.ts';
import { liftPtxFile } from '../ptx/lift/index.ts';
import { flagBoolean, parseCommandLine, type CommandSpec } from './args.ts';
import { loadFlags } from './load-program.ts';
import { ptxFlags } from './verify-ptx.ts';
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
  --kernel NAME          the kernel to lift (default: every kernel in the file); NAME may
                         be an identifier inside a mangled C++ name or any part of one name
  --param NAME=V         value of a kernel parameter, by name or by position (0=V);
                         repeatable; values left open take their defaults (as verify's notes say)
  --param NAME+OFF:T=V   a field of a by-value parameter (CUTLASS Params), e.g.
                         --param 0+12:u32=4096; NAME may be the parameter's index
  --param NAME[B]:T=V    an integer of the array a pointer parameter points to, at
                         byte B (NAME+OFF[B]:T=V: through the pointer field at OFF;
                         [*]: every element); a value the kernel never reads is noted
  --block N              threads per block (default: .reqntid or .maxntid)
  --cta N                the CTA to execute (%ctaid.x, default 0; a grid not given holds it)
  --grid X,Y,Z           the grid (%nctaid; default one cluster)
  --cluster X,Y,Z        the cluster shape (default .reqnctapercluster, else 1; a kernel
                         that addresses another CTA: the ClusterShape in its name, read
                         with c++filt, else a guessed shape)
  --tma-bytes N          bytes of each tensor TMA copy, when the layout cannot tell
  --tma-box MAP=BYTES    bytes of one tensor map's box (BYTES may be ROWSxCOLSxELEMBYTES)
  --ttgir FILE           TMA box sizes from Triton's TTGIR of the kernel; --tma-box overrides
  --triton-cache DIR     the same from every .ttgir under a Triton cache folder
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
    'tma-box': { type: 'string', multiple: true },
    grid: { type: 'string' },
    cluster: { type: 'string' },
    ttgir: { type: 'string' },
    'triton-cache': { type: 'string' },
    'max-steps': { type: 'string' },
    'no-lines': { type: 'boolean' },
  },
  positionals: { min: 1, max: 1, what: 'FILE.ptx' },
};

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
  // the launch values and lifter settings verify takes for a .ptx file, read the same way
  const { params: _ints, ...base } = loadFlags(cl, false);
  const { options } = ptxFlags(cl, base);
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
