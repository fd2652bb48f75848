// Bad input: one message with file:line:col, never a stack trace (DESIGN.md "Conventions").
import type { Loc } from './ir/program.ts';

/** An error in user input (.aref, .json, .ptx, command line). The CLI prints `format()` and exits 2. */
export class InputError extends Error {
  override readonly name = 'InputError';
  readonly loc: Loc | undefined;
  constructor(message: string, loc?: Loc) {
    super(message);
    this.loc = loc;
  }

  /** `file:line:col: message`, or just the message when there is no position. */
  format(): string {
    if (!this.loc) return `error: ${this.message}`;
    const file = this.loc.file ?? '<input>';
    return `${file}:${this.loc.line}:${this.loc.col}: error: ${this.message}`;
  }
}

export function isInputError(e: unknown): e is InputError {
  return e instanceof InputError;
}
