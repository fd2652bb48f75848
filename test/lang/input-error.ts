// The InputError a call throws (tests of bad input); fails the test if the call is accepted.
import { InputError } from '../../src/diag.ts';

export function errorOf(run: () => unknown): InputError {
  try {
    run();
  } catch (err) {
    if (err instanceof InputError) return err;
    throw err;
  }
  throw new Error('accepted');
}
