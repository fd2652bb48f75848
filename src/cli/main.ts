#!/usr/bin/env node
// arefcheck's entry point. Everything but process wiring is in dispatch.ts.
import { cli, reportError } from './dispatch.ts';

// A reader that closes the pipe early (`arefcheck … | head`) is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  process.exitCode = reportError(e);
});

cli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.exitCode = reportError(e);
  },
);
