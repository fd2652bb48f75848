// `arefcheck export --promela FILE -o model.pml`: hand a program to SPIN, for models that
// outgrow one machine (swarm verification, bitstate hashing, multi-core search). docs/scale.md.
import { writeFileSync } from 'node:fs';
import { InputError } from '../diag.ts';
import { toPromela } from '../promela/export.ts';
import { flagBoolean, flagChoice, flagInt, flagString, parseCommandLine, usageError, type CommandSpec } from './args.ts';
import { loadFlags, loadProgramForCli } from './load-program.ts';
import { EXIT } from '../exit-codes.ts';

export const EXPORT_HELP = `Usage: arefcheck export --promela FILE [-o model.pml] [options]

Writes FILE (.aref, .json or .ptx) as a Promela model that SPIN checks for the properties
arefcheck decides: one process per role, one for the asynchronous units (TMA copies, wgmma
and TMA-store groups), happens-before as ghost state, and a monitor that asserts each
violation class and reports deadlocks. The model's first lines give the commands to check
it; docs/scale.md shows swarm verification for a model too large for one machine.

Options:
  --promela              the only format
  --level aref|mbarrier  the level to export (default: the program's own; an aref program
                         is lowered to mbarriers for 'mbarrier')
  --param NAME=V         override a param (repeatable; every param needs a value: K=any
                         is not exported)
  --literal              the paper's consumed rule without its premise (as verify --literal)
  --groups N             committed wgmma / TMA-store groups one role can hold (default: the
                         most any role holds, found by walking its operations)
  --multicore            for pan's multi-core build (-DNCORE=N, spin -search -dfspar): scratch
                         variables become plain globals that each step zeroes
  --kernel NAME, --block N, --cta N, --tma-bytes N
                         for a .ptx FILE, as in verify
  -o, --output FILE      write the model to FILE (default: stdout)
  -h, --help             show this help

Exit codes: 0 written, 2 bad input.
`;

const SPEC: CommandSpec = {
  name: 'export',
  help: EXPORT_HELP,
  options: {
    promela: { type: 'boolean' },
    level: { type: 'string' },
    param: { type: 'string', multiple: true },
    literal: { type: 'boolean' },
    groups: { type: 'string' },
    multicore: { type: 'boolean' },
    kernel: { type: 'string' },
    block: { type: 'string' },
    cta: { type: 'string' },
    'tma-bytes': { type: 'string' },
    output: { type: 'string', short: 'o' },
  },
  positionals: { min: 1, max: 1, what: 'FILE' },
};

/** `arefcheck export …`: argv holds the arguments after `export`. */
export async function main(argv: string[]): Promise<number> {
  const cl = parseCommandLine(SPEC, argv);
  if (!cl) return EXIT.verified;
  if (!flagBoolean(cl, 'promela')) throw usageError('export', 'name the format: --promela (the only one)');
  const file = cl.positionals[0] ?? '';
  const level = flagChoice(cl, 'level', ['aref', 'mbarrier'] as const);
  const groups = flagInt(cl, 'groups', 1, 64);
  const load = loadFlags(cl);
  const program = await loadProgramForCli(file, load);
  const model = toPromela(program, {
    ...(level === undefined ? {} : { level }),
    literal: flagBoolean(cl, 'literal'),
    multicore: flagBoolean(cl, 'multicore'),
    ...(groups === undefined ? {} : { groups }),
  });
  const output = flagString(cl, 'output');
  if (output === undefined) {
    process.stdout.write(model.text);
    return EXIT.verified;
  }
  try {
    writeFileSync(output, model.text);
  } catch (err) {
    throw new InputError(`cannot write ${output}: ${(err as Error).message}`);
  }
  process.stderr.write(`wrote ${output}: the ${model.level} level, ${model.text.split('\n').length} lines; check it with\n  spin -a ${output} && gcc -O2 -DSAFETY -DVECTORSZ=${model.layout.vectorBytes} -o pan pan.c && ./pan -E -c0 -m1000000\n`);
  return EXIT.verified;
}
