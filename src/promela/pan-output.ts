// Reading pan's report on an exported model: the verdict and the classes of the violations it
// found, in arefcheck's words. Run pan with -E (the model's monitor reports deadlocks) and -c0
// (go on after the first error) to see every class: pan prints an error line whenever it differs
// from the previous one, so each failing assertion, and so each class, appears at least once.
import { VIOLATION_CODES } from './prelude.ts';

export type PanKind = keyof typeof VIOLATION_CODES | 'deadlock';

export interface PanReport {
  readonly verdict: 'verified' | 'violation' | 'inconclusive';
  /** violation classes found, sorted */
  readonly kinds: readonly PanKind[];
  readonly errors: number;
  readonly states: number;
  readonly transitions: number;
  readonly stateVectorBytes: number;
  /** why the search did not cover everything (the depth or memory limit), when it did not */
  readonly limit?: string;
}

const BY_CODE = new Map<string, PanKind>(Object.entries(VIOLATION_CODES).map(([kind, code]) => [String(code), kind as PanKind]));

/** The class of one pan error line, or undefined for an error the model does not make (a bug in the export). */
export function panErrorKind(line: string): PanKind | undefined {
  const code = /assertion violated \(viol!=(\d+)\)/.exec(line)?.[1];
  if (code !== undefined) return BY_CODE.get(code);
  if (/assertion violated .*rolesDone/.test(line)) return 'deadlock';
  return undefined;
}

export function readPanOutput(output: string): PanReport {
  const num = (re: RegExp, what: string): number => {
    const m = re.exec(output);
    if (!m?.[1]) throw new Error(`pan: no ${what} in its output:\n${output}`);
    return Number(m[1]);
  };
  const errors = num(/errors: (\d+)/, '"errors: N"');
  const kinds = new Set<PanKind>();
  for (const m of output.matchAll(/^pan:\d+: (.*)$/gm)) {
    const line = m[1] ?? '';
    const kind = panErrorKind(line);
    if (kind === undefined) throw new Error(`pan reported an error the exported model does not make: ${line}`);
    kinds.add(kind);
  }
  const limit = /max search depth too small/.test(output)
    ? 'pan: max search depth too small (raise -m)'
    : /out of memory|pan: reached -DMEMLIM bound/.test(output)
      ? 'pan: out of memory'
      : undefined;
  const verdict = kinds.size > 0 ? 'violation' : limit !== undefined ? 'inconclusive' : 'verified';
  return {
    verdict,
    kinds: [...kinds].sort(),
    errors,
    states: num(/(\d+) states, stored/, '"N states, stored"'),
    transitions: num(/(\d+) transitions \(= stored\+matched\)/, '"N transitions"'),
    stateVectorBytes: num(/State-vector (\d+) byte/, 'state vector size'),
    ...(limit !== undefined ? { limit } : {}),
  };
}
