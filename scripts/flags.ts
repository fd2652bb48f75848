// The value after `--name` on a script's command line (the scripts take a few flags, no parser).
export function flagOf(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}
