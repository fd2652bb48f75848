// Lines from a stream (a terminal or a pipe) one at a time, on demand. At a terminal the
// prompt is shown before each read; Ctrl-C and Ctrl-D end the input like the end of a pipe.
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

export interface LineReader {
  /** The next line, or undefined when the input has ended. */
  read(prompt: string): Promise<string | undefined>;
  close(): void;
}

export function lineReader(input: Readable, output: NodeJS.WritableStream | undefined): LineReader {
  const rl = createInterface(output ? { input, output, terminal: true } : { input, terminal: false });
  const lines: string[] = [];
  const waiters: ((line: string | undefined) => void)[] = [];
  let closed = false;
  rl.on('line', (line) => {
    const w = waiters.shift();
    if (w) w(line);
    else lines.push(line);
  });
  rl.on('close', () => {
    closed = true;
    for (const w of waiters.splice(0)) w(undefined);
  });
  rl.on('SIGINT', () => rl.close());
  return {
    read(prompt) {
      const line = lines.shift();
      if (line !== undefined) return Promise.resolve(line);
      if (closed) return Promise.resolve(undefined);
      if (output) {
        rl.setPrompt(prompt);
        rl.prompt();
      }
      return new Promise((resolve) => waiters.push(resolve));
    },
    close() {
      rl.close();
      // a pipe whose writer is still open (q typed into `cat | arefcheck step`) must not keep us waiting
      input.destroy();
    },
  };
}
