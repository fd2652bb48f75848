// The kernel prologue: barrier inits followed by the first CTA-wide `bar.sync 0` (or, in a
// cluster, the cluster barrier) after `fence.mbarrier_init`. Inits there happen before any role
// starts, which is what a Program's initialised barrier declaration (`mbarrier name[n] count c`)
// says; the lifter turns them into declarations (docs/ptx.md, "prologue"). An init that is
// repeated, done by several threads, or preceded by another use of its barrier stays an `init`
// op so the checker sees it; the barrier after the prologue is then kept, since it orders those
// inits before the roles go on. It is kept too when anything else happens before it that a role
// after it may depend on (fast.cu M11 stores its tile schedule to shared memory there, and the
// consumers read it after the cluster barrier). When every init became a declaration and nothing
// else precedes it, the barrier says nothing more and is dropped.
import type { WarpEvent } from './events.ts';

export interface Prologue {
  /** Per CTA: barrier address → init count, for the hoisted inits. */
  readonly declared: ReadonlyMap<number, ReadonlyMap<number, number>>;
  readonly warps: WarpEvent[][];
}

function isPrologueEnd(e: WarpEvent, blockThreads: number): boolean {
  return (e.k === 'bar.sync' && e.id === 0 && (e.threads === undefined || e.threads >= blockThreads)) || e.k === 'cluster.sync';
}

export function hoistPrologue(warps: readonly (readonly WarpEvent[])[], blockThreads: number): Prologue {
  const declared = new Map<number, Map<number, number>>();
  const unchanged = (): Prologue => ({ declared, warps: warps.map((x) => [...x]) });
  const cut: number[] = [];
  for (const w of warps) {
    if (w.length === 0) {
      cut.push(-1);
      continue;
    }
    const i = w.findIndex((e) => isPrologueEnd(e, blockThreads));
    if (i < 0) return unchanged();
    cut.push(i);
  }
  const key = (cta: number, bar: number): string => `${cta}:${bar}`;
  const inits = new Map<string, { cta: number; bar: number; count: number; threads: number; n: number }>();
  const usedEarly = new Set<string>();
  let other = false;
  warps.forEach((w, wi) => {
    const end = cut[wi] ?? -1;
    for (let j = 0; j < end; j++) {
      const e = w[j];
      if (!e) continue;
      if (e.k !== 'init' && e.k !== 'fence.proxy.async') other = true;
      if (e.k === 'init') {
        const prev = inits.get(key(e.cta, e.bar));
        inits.set(key(e.cta, e.bar), { cta: e.cta, bar: e.bar, count: e.count, threads: e.threads, n: (prev?.n ?? 0) + 1 });
      } else if ('bar' in e) {
        usedEarly.add(key(e.cta, e.bar));
      }
    }
  });
  let all = !other;
  for (const [k, x] of inits) {
    if (x.n === 1 && x.threads === 1 && !usedEarly.has(k)) {
      const m = declared.get(x.cta) ?? new Map<number, number>();
      m.set(x.bar, x.count);
      declared.set(x.cta, m);
    } else all = false;
  }
  if (declared.size === 0) return unchanged();
  const isDeclared = (e: WarpEvent): boolean => e.k === 'init' && declared.get(e.cta)?.has(e.bar) === true;
  const out = warps.map((w, wi) => {
    const end = cut[wi] ?? -1;
    // keep the barrier after the prologue unless every init before it became a declaration
    return w.filter((e, j) => (j === end ? !all : !(j < end && isDeclared(e))));
  });
  return { declared, warps: out };
}
