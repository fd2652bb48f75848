// The subcommand switch and the one place where errors become exit codes. Each subcommand
// lives in ./cmd-<name>.ts and exports
//   main(argv: string[]): Promise<number>     (argv: the arguments after the command name)
// returning its exit code. Bad input (InputError) prints one line and exits 2; anything else is
// our bug: `internal error: …`, exit 70 (set AREFCHECK_DEBUG=1 for the stack).
import { InputError, isInputError } from '../diag.ts';
import { applyColorChoice } from './color.ts';
import { version } from './version.ts';
import { EXIT } from '../exit-codes.ts';

/** sysexits.h EX_SOFTWARE: an internal error, distinct from the verdict codes 0–3. */
export const EXIT_INTERNAL = 70;

export const COMMANDS = [
  { name: 'verify', summary: 'explore every interleaving: verified, or the shortest counterexample' },
  { name: 'run', summary: 'run one random interleaving and print the trace' },
  { name: 'pipeline', summary: 'generate the Tawa pipeline family (D, P, C, K); print or verify it' },
  { name: 'replay', summary: 're-run a counterexample trace through the reference interpreter' },
  { name: 'emit', summary: 'emit an sm_90a PTX kernel for a program' },
  { name: 'lift', summary: "lift a PTX kernel's mbarrier schedule into a program" },
  { name: 'step', summary: 'step through a program action by action (for learning the rules)' },
  { name: 'diagram', summary: 'draw a run or a counterexample: Mermaid or SVG sequence diagram, or the DOT state graph' },
  { name: 'export', summary: 'write a program as a Promela model for SPIN (swarm, bitstate, multi-core)' },
] as const;
export type CommandName = (typeof COMMANDS)[number]['name'];

const HELP = `arefcheck — a model checker for aref pipelines and the mbarrier schedules that implement them

Usage: arefcheck <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(10)}${c.summary}`).join('\n')}

Run 'arefcheck <command> --help' for a command's options.
Every command takes --color / --no-color; NO_COLOR=1 in the environment turns colour off.

Exit codes: 0 verified (or the run finished), 1 violation, 2 bad input or usage,
3 inconclusive (a limit was reached), ${EXIT_INTERNAL} internal error.
`;

function isCommand(name: string): name is CommandName {
  return COMMANDS.some((c) => c.name === name);
}

interface CommandModule {
  main(argv: string[]): Promise<number>;
}

/** The one command table: each command's module, loaded when the command runs. */
const LOADERS: Readonly<Record<CommandName, () => Promise<CommandModule>>> = {
  verify: () => import('./cmd-verify.ts'),
  run: () => import('./cmd-run.ts'),
  pipeline: () => import('./cmd-pipeline.ts'),
  replay: () => import('./cmd-replay.ts'),
  emit: () => import('./cmd-emit.ts'),
  lift: () => import('./cmd-lift.ts'),
  step: () => import('./cmd-step.ts'),
  diagram: () => import('./cmd-diagram.ts'),
  export: () => import('./cmd-export.ts'),
};

/** A command's module; undefined when this build left it out (a trimmed package). */
async function loadCommand(name: CommandName): Promise<CommandModule | undefined> {
  try {
    return await LOADERS[name]();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && String((e as Error).message).includes(`cmd-${name}`)) return undefined;
    throw e;
  }
}

export async function cli(argv: readonly string[]): Promise<number> {
  const [first, ...rest] = applyColorChoice(argv);
  if (first === undefined) {
    process.stderr.write(HELP);
    return EXIT.badInput;
  }
  if (first === '-h' || first === '--help') {
    process.stdout.write(HELP);
    return EXIT.verified;
  }
  if (first === '--version' || first === '-V') {
    process.stdout.write(`arefcheck ${version()}\n`);
    return EXIT.verified;
  }
  if (first === 'help') {
    const topic = rest[0];
    return topic === undefined ? cli(['--help']) : cli([topic, '--help']);
  }
  if (first.startsWith('-')) {
    throw new InputError(`unknown option '${first}' before the command (see 'arefcheck --help')`);
  }
  if (!isCommand(first)) {
    throw new InputError(`unknown command '${first}'; commands: ${COMMANDS.map((c) => c.name).join(', ')} (see 'arefcheck --help')`);
  }
  const command = await loadCommand(first);
  if (!command) throw new InputError(`command '${first}' is not available in this build`);
  return command.main(rest);
}

/** One line on stderr for any error, and the exit code it maps to. */
export function reportError(e: unknown): number {
  if (isInputError(e)) {
    process.stderr.write(`${e.format()}\n`);
    return EXIT.badInput;
  }
  const message = e instanceof Error ? e.message : String(e);
  process.stderr.write(`internal error: ${message}\n`);
  if (process.env['AREFCHECK_DEBUG'] && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
  return EXIT_INTERNAL;
}
