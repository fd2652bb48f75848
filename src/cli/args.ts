// Argument parsing shared by the subcommands: node:util parseArgs, strict, with every mistake
// turned into one InputError line (exit 2) that says what was expected and where to look.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { InputError } from '../diag.ts';
import type { Level } from '../ir/program.ts';
import { parseAnyValue } from '../every-k/any-value.ts';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export interface CommandLine {
  readonly values: Readonly<Record<string, unknown>>;
  readonly positionals: readonly string[];
}

export interface CommandSpec {
  /** The subcommand, for messages: `arefcheck <name> …`. */
  readonly name: string;
  readonly help: string;
  readonly options: OptionSpec;
  /** Positional arguments this command takes (file names), e.g. { min: 1, max: 1, what: 'FILE' }. */
  readonly positionals?: { readonly min: number; readonly max: number; readonly what: string };
}

/**
 * Parses a subcommand's arguments. `-h`/`--help` prints `spec.help` to stdout and returns
 * undefined (the command then exits 0). Unknown options, missing values and wrong positional
 * counts throw InputError.
 */
export function parseCommandLine(spec: CommandSpec, argv: readonly string[]): CommandLine | undefined {
  const options: OptionSpec = { ...spec.options, help: { type: 'boolean', short: 'h' } };
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: true });
  } catch (e) {
    throw usageError(spec.name, parseArgsMessage(e));
  }
  if (parsed.values['help'] === true) {
    process.stdout.write(spec.help.endsWith('\n') ? spec.help : `${spec.help}\n`);
    return undefined;
  }
  const want = spec.positionals ?? { min: 0, max: 0, what: '' };
  const n = parsed.positionals.length;
  if (n > want.max) {
    const extra = parsed.positionals[want.max] ?? '';
    throw usageError(spec.name, want.max === 0 ? `unexpected argument '${extra}'` : `too many arguments (expected ${want.what})`);
  }
  if (n < want.min) throw usageError(spec.name, `missing ${want.what}`);
  return { values: parsed.values, positionals: parsed.positionals };
}

/** node's parseArgs messages run on over several sentences and lines; keep the point, on one line. */
function parseArgsMessage(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  const ambiguous = /^Option '([^']+)' argument is ambiguous/.exec(message);
  if (ambiguous) return `option '${ambiguous[1]}' needs a value; for one that starts with '-', write ${ambiguous[1]}=VALUE`;
  const first = message.split(/\.\s+(?=[A-Z])/)[0] ?? message;
  return first.replace(/\s+/g, ' ');
}

export function usageError(command: string, message: string): InputError {
  const m = message.replace(/\.$/, '');
  return new InputError(`arefcheck ${command}: ${m.charAt(0).toLowerCase()}${m.slice(1)} (see 'arefcheck ${command} --help')`);
}

export function flagString(cl: CommandLine, name: string): string | undefined {
  const v = cl.values[name];
  return typeof v === 'string' ? v : undefined;
}

export function flagBoolean(cl: CommandLine, name: string): boolean {
  return cl.values[name] === true;
}

export function flagStrings(cl: CommandLine, name: string): string[] {
  const v = cl.values[name];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : [];
}

const INT_RE = /^[+-]?\d+$/;

/** A whole number in [min, max]; the text must be only digits (no 1e3, no 0x10, no 2.5). */
export function parseIntText(text: string, what: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = INT_RE.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `in ${min}..${max}`;
    throw new InputError(`${what} expects an integer ${range}, got '${text}'`);
  }
  return n;
}

export function flagInt(cl: CommandLine, name: string, min: number, max?: number): number | undefined {
  const text = flagString(cl, name);
  return text === undefined ? undefined : parseIntText(text, `--${name}`, min, max);
}

/** A size in bytes: a number with an optional K, M or G suffix (powers of 1024). */
export function flagSize(cl: CommandLine, name: string): number | undefined {
  const text = flagString(cl, name);
  if (text === undefined) return undefined;
  const m = /^(\d+(?:\.\d+)?)([KMG]?)i?B?$/i.exec(text.trim());
  const scale = { '': 1, K: 2 ** 10, M: 2 ** 20, G: 2 ** 30 }[(m?.[2] ?? '').toUpperCase() as '' | 'K' | 'M' | 'G'];
  const bytes = m ? Math.floor(Number(m[1]) * scale) : Number.NaN;
  if (!(bytes >= 2 ** 20)) throw new InputError(`--${name} expects a size of at least 1M (like 512M or 4G), got '${text}'`);
  return bytes;
}

export function requiredInt(cl: CommandLine, command: string, name: string, min: number, max?: number): number {
  const n = flagInt(cl, name, min, max);
  if (n === undefined) throw usageError(command, `missing --${name}`);
  return n;
}

export const LEVELS = ['aref', 'mbarrier'] as const satisfies readonly Level[];

export function flagChoice<const C extends string>(cl: CommandLine, name: string, choices: readonly C[]): C | undefined {
  const text = flagString(cl, name);
  if (text === undefined) return undefined;
  const found = choices.find((c) => c === text);
  if (found === undefined) throw new InputError(`--${name} expects one of ${choices.join(', ')}, got '${text}'`);
  return found;
}

// a name, or a kernel parameter's position for .ptx files (`--param 2=64`)
const PARAM_RE = /^([A-Za-z_][A-Za-z0-9_]*|[0-9]+)=(.*)$/;

/** `--param NAME=V` (repeatable) as a map; a later value for the same name wins. `NAME=any` is refused unless `anyAllowed` (it is read by anyParam). */
export function paramOverrides(cl: CommandLine, anyAllowed = false): Map<string, number> {
  const out = new Map<string, number>();
  for (const text of flagStrings(cl, 'param')) {
    const m = PARAM_RE.exec(text);
    if (!m) throw new InputError(`--param expects NAME=VALUE, got '${text}'`);
    const [, name = '', value = ''] = m;
    if (parseAnyValue(value, `--param ${name}`) !== undefined) {
      if (anyAllowed) continue;
      throw new InputError(`--param ${name}=${value}: a parameter left open ('any') is for the commands that verify (verify, emit; pipeline --iterations any)`);
    }
    const n = INT_RE.test(value.trim()) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n)) throw new InputError(`--param ${name} expects an integer, got '${value}'`);
    out.set(name, n);
  }
  return out;
}

/** The one `--param NAME=any` or `NAME=any>=N` (every value from N, default 1), if given. */
export function anyParam(cl: CommandLine): { readonly name: string; readonly min: number } | undefined {
  let found: { name: string; min: number } | undefined;
  for (const text of flagStrings(cl, 'param')) {
    const m = PARAM_RE.exec(text);
    const name = m?.[1] ?? '';
    const min = m ? parseAnyValue(m[2] ?? '', `--param ${name}`) : undefined;
    if (min === undefined) continue;
    if (found && found.name !== name) throw new InputError(`--param ${name}=any: only one parameter can be left open (${found.name} already is)`);
    found = { name, min };
  }
  return found;
}
