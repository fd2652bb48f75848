// Whether output is coloured: NO_COLOR (https://no-color.org: set and not empty) turns colour off,
// --no-color turns it off, --color turns it on even when stdout is not a terminal; the last flag
// wins over the environment. Every command colours through chalk's level, set here once.
import chalk from 'chalk';

/** Apply the colour choice of `argv` and the environment; returns argv without the colour flags. */
export function applyColorChoice(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): string[] {
  let level = chalk.level;
  if ((env['NO_COLOR'] ?? '') !== '') level = 0;
  const rest: string[] = [];
  for (const a of argv) {
    if (a === '--no-color') level = 0;
    else if (a === '--color') level = Math.max(level, 1) as typeof level;
    else rest.push(a);
  }
  chalk.level = level;
  return rest;
}
