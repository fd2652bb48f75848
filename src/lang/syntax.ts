// Lexical facts shared by the parser, the printer, the JSON reader and validation.

/** Identifiers: names of params, resources, roles and loop variables. */
export const IDENT_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Words with a fixed meaning in .aref text; they cannot name anything. */
export const RESERVED = new Set([
  'param', 'aref', 'mbarrier', 'buffer', 'role', 'warps', 'bytes', 'count',
  'for', 'in', 'if', 'elif', 'else', 'pass', 'expect', 'value', 'token', 'named',
]);

/** Largest magnitude of any number in a program: numbers must fit a signed 32-bit register. */
export const MAX_INT = 2 ** 31 - 1;

export function isSafeInt(n: number): boolean {
  return Number.isInteger(n) && Math.abs(n) <= MAX_INT;
}

/** Edit distance with adjacent transpositions (optimal string alignment), for "did you mean" hints. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number): number => d[i]?.[j] ?? Infinity;
  for (let i = 1; i <= a.length; i++) {
    const row = d[i] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      row[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** ` (did you mean 'x'?)` when a candidate is close to `name`, else ''. */
export function suggest(name: string, candidates: Iterable<string>): string {
  const limit = Math.min(Math.max(1, Math.floor(name.length / 3)), name.length - 1);
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const c of candidates) {
    const dist = editDistance(name.toLowerCase(), c.toLowerCase());
    if (dist < bestDistance && c !== name) {
      best = c;
      bestDistance = dist;
    }
  }
  return best === undefined ? '' : ` (did you mean '${best}'?)`;
}

/** `a buffer`, `an aref`, `an mbarrier`. */
export function article(word: string): string {
  return /^[aeiou]|^mb/i.test(word) ? `an ${word}` : `a ${word}`;
}
