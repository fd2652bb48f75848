// Array helpers that stay safe on traces of a million steps: no spreading into calls (each
// spread element is a call argument, and V8 runs out of stack near 10^5 of them).

/** The largest of `values`, or `floor` when it is larger (or `values` is empty). */
export function maxOf(values: Iterable<number>, floor: number): number {
  let m = floor;
  for (const v of values) if (v > m) m = v;
  return m;
}

/** Append every item of `items` to `out`. */
export function pushAll<T>(out: T[], items: Iterable<T>): T[] {
  for (const x of items) out.push(x);
  return out;
}
