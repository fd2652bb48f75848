// The events of a branch on data, from the events of its two sides. The sides must synchronize
// alike: the same mbarrier, named-barrier, TMA, wgmma and fence events in the same order. Their
// shared-memory reads and writes may differ (FlashMLA's epilogue reads the row max only where the
// row sum is not 0): between two synchronization events the joined run does the accesses of both
// sides. An access is not synchronization, so taking one that a side does not do can add a race
// to the model, never hide a deadlock or a race of the kernel.
import type { WarpEvent } from './events.ts';

const isAccess = (e: WarpEvent): boolean => e.k === 'read' || e.k === 'write';

/** An event without its source line (nor a commit's `settled`, which the join takes from both): equal keys, the same event. */
export function eventKey(e: WarpEvent): string {
  if (e.k === 'wgmma.commit') return '{"k":"wgmma.commit"}';
  const { loc: _loc, ...rest } = e;
  return JSON.stringify(rest);
}

/** A commit after the branch has its loads over only if both sides do. */
function bothSettled(a: WarpEvent | undefined, b: WarpEvent): WarpEvent {
  if (b.k !== 'wgmma.commit' || a?.k !== 'wgmma.commit' || a.settled === b.settled) return b;
  return { k: 'wgmma.commit', loc: b.loc };
}

/** Runs of accesses between synchronization events: gaps[i] comes before sync[i] (the last gap after every one). */
function split(events: readonly WarpEvent[]): { sync: WarpEvent[]; gaps: WarpEvent[][] } {
  const sync: WarpEvent[] = [];
  const gaps: WarpEvent[][] = [[]];
  for (const e of events) {
    if (isAccess(e)) gaps[gaps.length - 1]?.push(e);
    else {
      sync.push(e);
      gaps.push([]);
    }
  }
  return { sync, gaps };
}

/**
 * The joined events, or undefined when the sides synchronize differently. Sides with equal events
 * give the fall-through side's (its source lines).
 */
export function joinSides(taken: readonly WarpEvent[], fallthrough: readonly WarpEvent[]): WarpEvent[] | undefined {
  const a = split(taken);
  const b = split(fallthrough);
  if (a.sync.length !== b.sync.length || a.sync.some((e, i) => eventKey(e) !== eventKey(b.sync[i] as WarpEvent))) return undefined;
  const out: WarpEvent[] = [];
  b.gaps.forEach((gap, i) => {
    const seen = new Set(gap.map(eventKey));
    out.push(...gap, ...(a.gaps[i] ?? []).filter((e) => !seen.has(eventKey(e))));
    const s = b.sync[i];
    if (s) out.push(bothSettled(a.sync[i], s));
  });
  return out;
}
