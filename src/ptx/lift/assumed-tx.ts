// expect_tx byte counts that come from a launch value the user did not give (CUTLASS's
// `tma_transaction_bytes` in Params). The default launch value means nothing there, so the
// count is taken as what the barrier's copies deliver per expectation — every such assumption
// reported (LiftFacts.assumedTx), and a barrier whose expectations mix launch-derived and
// literal counts, or whose copies do not divide evenly, keeps the run's values.
import type { WarpEvent } from './events.ts';

export interface AssumedTx {
  /** PTX lines of the expect_tx operations */
  readonly lines: readonly number[];
  readonly from: string;
  readonly bytes: number;
}

export function assumeLaunchTx(warps: readonly (readonly WarpEvent[])[]): { warps: WarpEvent[][]; assumed: AssumedTx[] } {
  const key = (cta: number, bar: number): string => `${cta}:${bar}`;
  const delivered = new Map<string, number>();
  const expectations = new Map<string, { n: number; launch: boolean; from: string; lines: Set<number> }>();
  for (const w of warps) {
    for (const e of w) {
      if (e.k === 'tma.load') {
        for (const c of e.ctas ?? [e.cta]) delivered.set(key(c, e.bar), (delivered.get(key(c, e.bar)) ?? 0) + (e.bytes ?? 0) * e.copies);
      } else if (e.k === 'arrive.expect_tx' || e.k === 'expect_tx') {
        const k = key(e.cta, e.bar);
        const x = expectations.get(k) ?? { n: 0, launch: true, from: e.txFrom ?? '', lines: new Set<number>() };
        x.n += e.k === 'arrive.expect_tx' ? e.threads : 1;
        x.launch &&= e.txFrom !== undefined;
        x.lines.add(e.loc.line);
        expectations.set(k, x);
      }
    }
  }
  const per = new Map<string, number>();
  for (const [k, x] of expectations) {
    const total = delivered.get(k) ?? 0;
    if (x.launch && x.n > 0 && total > 0 && total % x.n === 0) per.set(k, total / x.n);
  }
  if (per.size === 0) return { warps: warps.map((w) => [...w]), assumed: [] };
  const assumed = new Map<string, AssumedTx>();
  const out = warps.map((w) =>
    w.map((e): WarpEvent => {
      if (e.k !== 'arrive.expect_tx' && e.k !== 'expect_tx') return e;
      const bytes = per.get(key(e.cta, e.bar));
      if (bytes === undefined) return e;
      const x = expectations.get(key(e.cta, e.bar));
      const lines = [...(x?.lines ?? [])].sort((a, b) => a - b);
      const id = `${e.txFrom ?? ''}:${bytes}:${lines.join(',')}`;
      if (!assumed.has(id)) assumed.set(id, { lines, from: e.txFrom ?? 'a launch value', bytes });
      return { ...e, bytes };
    }),
  );
  return { warps: out, assumed: [...assumed.values()] };
}
