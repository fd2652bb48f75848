// The kernel prologue: barrier inits followed by the first CTA-wide `bar.sync 0` (after
// `fence.mbarrier_init`). Inits there happen before any role starts, which is what a
// Program's initialised barrier declaration (`mbarrier name[n] count c`) says; the lifter
// turns them into declarations and drops that bar.sync (docs/ptx.md, "prologue"). An init
// that is repeated, done by several threads, or preceded by another use of its barrier stays
// an `init` op so the checker sees it.
import type { WarpEvent } from './events.ts';

export interface Prologue {
  /** Barrier address → init count, for the hoisted inits. */
  readonly declared: ReadonlyMap<number, number>;
  readonly warps: WarpEvent[][];
}

function isCtaWide(e: WarpEvent, blockThreads: number): boolean {
  return e.k === 'bar.sync' && e.id === 0 && (e.threads === undefined || e.threads >= blockThreads);
}

export function hoistPrologue(warps: readonly (readonly WarpEvent[])[], blockThreads: number): Prologue {
  const declared = new Map<number, number>();
  const cut: number[] = [];
  for (const w of warps) {
    if (w.length === 0) {
      cut.push(-1);
      continue;
    }
    const i = w.findIndex((e) => isCtaWide(e, blockThreads));
    if (i < 0) return { declared, warps: warps.map((x) => [...x]) };
    cut.push(i);
  }
  const inits = new Map<number, { count: number; threads: number; n: number }>();
  const usedEarly = new Set<number>();
  warps.forEach((w, wi) => {
    const end = cut[wi] ?? -1;
    for (let j = 0; j < end; j++) {
      const e = w[j];
      if (!e) continue;
      if (e.k === 'init') {
        const prev = inits.get(e.bar);
        inits.set(e.bar, { count: e.count, threads: e.threads, n: (prev?.n ?? 0) + 1 });
      } else if ('bar' in e) {
        usedEarly.add(e.bar);
      }
    }
  });
  for (const [bar, x] of inits) if (x.n === 1 && x.threads === 1 && !usedEarly.has(bar)) declared.set(bar, x.count);
  if (declared.size === 0) return { declared, warps: warps.map((x) => [...x]) };
  const out = warps.map((w, wi) => {
    const end = cut[wi] ?? -1;
    return w.filter((e, j) => j !== end && !(j < end && e.k === 'init' && declared.has(e.bar)));
  });
  return { declared, warps: out };
}
