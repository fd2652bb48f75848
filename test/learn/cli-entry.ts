// Runs `step` or `diagram` as src/cli/main.ts would (same error reporting and exit codes), for
// the CLI tests: until dispatch.ts lists these commands, main.ts refuses them by name.
import { reportError } from '../../src/cli/dispatch.ts';
import * as diagram from '../../src/cli/cmd-diagram.ts';
import * as step from '../../src/cli/cmd-step.ts';

const [name, ...rest] = process.argv.slice(2);
const command = name === 'step' ? step : name === 'diagram' ? diagram : undefined;
if (!command) {
  process.stderr.write(`cli-entry: unknown command '${name}'\n`);
  process.exitCode = 64;
} else {
  command.main(rest).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.exitCode = reportError(e);
    },
  );
}
