// Exact rationals over small integers: the rates at which expressions move when K does.

export interface Rat {
  readonly n: number;
  /** > 0; n/d in lowest terms */
  readonly d: number;
}

export function gcd(a: number, b: number): number {
  a = Math.abs(a);
  b = Math.abs(b);
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

export const lcm = (a: number, b: number): number => (a === 0 || b === 0 ? 0 : Math.abs(a / gcd(a, b)) * Math.abs(b));

export function rat(n: number, d = 1): Rat {
  if (d === 0) throw new RangeError('rational with denominator 0');
  const g = gcd(n, d) || 1;
  const s = d < 0 ? -1 : 1;
  return { n: (s * n) / g + 0, d: (s * d) / g };
}

export const ZERO = rat(0);
export const ONE = rat(1);
export const radd = (a: Rat, b: Rat): Rat => rat(a.n * b.d + b.n * a.d, a.d * b.d);
export const rsub = (a: Rat, b: Rat): Rat => rat(a.n * b.d - b.n * a.d, a.d * b.d);
export const rmul = (a: Rat, b: Rat): Rat => rat(a.n * b.n, a.d * b.d);
export const rdiv = (a: Rat, b: Rat): Rat => rat(a.n * b.d, a.d * b.n);
export const rnum = (a: Rat): number => a.n / a.d;
export const isZero = (a: Rat): boolean => a.n === 0;
export const requal = (a: Rat, b: Rat): boolean => a.n === b.n && a.d === b.d;
export const rstr = (a: Rat): string => (a.d === 1 ? String(a.n) : `${a.n}/${a.d}`);
