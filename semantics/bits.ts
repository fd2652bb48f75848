// Knowledge bitsets: the happens-before facts an agent holds (hb.ts), as plain arrays of
// 32-bit words (immer-friendly, cheap to copy). Bit ids are laid out by state.ts.

export type Knowledge = number[];

export const emptyKnowledge = (words: number): Knowledge => new Array<number>(words).fill(0);

export function has(k: Knowledge, e: number): boolean {
  if (e < 0) return false; // an untracked event (events.ts) is known to nobody
  return (((k[e >>> 5] ?? 0) >>> (e & 31)) & 1) === 1;
}

export function setBit(k: Knowledge, e: number): void {
  if (e < 0) throw new Error('internal: setting an untracked event');
  const w = e >>> 5;
  k[w] = ((k[w] ?? 0) | (1 << (e & 31))) >>> 0;
}

export function clearBit(k: Knowledge, e: number): void {
  const w = e >>> 5;
  if (w >= k.length) return; // an empty holder (a named barrier no op names) stays empty
  k[w] = ((k[w] ?? 0) & ~(1 << (e & 31))) >>> 0;
}

/** dst ∪= src */
export function orInto(dst: Knowledge, src: Knowledge): void {
  for (let i = 0; i < dst.length; i++) dst[i] = ((dst[i] ?? 0) | (src[i] ?? 0)) >>> 0;
}
