// PTX the lifter understands syntactically but cannot turn into a model: control flow on
// loaded data, unknown barrier addresses, tcgen05, … An InputError (exit 2, file:line:col)
// whose message starts with "unsupported:".
import { InputError } from '../../diag.ts';
import type { Loc } from '../../ir/program.ts';

export class UnsupportedError extends InputError {
  constructor(message: string, loc?: Loc) {
    super(`unsupported: ${message}`, loc);
  }
}
