// The text of a parameter left open: `any` (every value from 1) or `any>=N`. Shared by the CLI's
// --param and the library's params, and kept free of the checker so that reading flags stays cheap.
import { InputError } from '../diag.ts';

/** `any` → 1, `any>=N` → N: the smallest value a parameter left open covers; undefined for other text. */
export function parseAnyValue(text: string, what: string): number | undefined {
  const m = /^any(?:\s*>=\s*([+-]?\d+))?$/.exec(text.trim());
  if (!m) return undefined;
  const min = m[1] === undefined ? 1 : Number(m[1]);
  if (!Number.isSafeInteger(min) || min < 0) throw new InputError(`${what}=any>=N expects N >= 0, got '${m[1]}'`);
  return min;
}
