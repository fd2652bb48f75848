// Divergence within one warp: which group of lanes runs next, and where groups meet again.
//
// A warp is a set of (pc, lane mask) groups. Lanes split at a branch meet again at the branch's
// immediate post-dominator, as ptxas's reconvergence barriers (BSSY/BSYNC) make them: a group that
// reached the join of its split waits there until every other group of that split has too. Among
// the groups not waiting, the one with the smallest pc runs next. Smallest-pc alone is exact for
// code laid out in order, not for a rotated loop whose latch comes before the `if` that diverged:
// ThunderKittens' Mamba-2 branches back to the latch (`bar.warp.sync; bar.sync 14`) with lanes
// 1–31 while lane 0 still has an mbarrier arrive to do below it; smallest-pc let lanes 1–31 run
// every later iteration first, and the lane-0 arrives came after the warp's last `bar.sync`.

/** A split still open: the pc its groups meet at, and which split it is. */
interface Join {
  readonly pc: number;
  readonly id: number;
}

export interface Group {
  pc: number;
  mask: number;
  /** the splits this group came from and has not yet met again, innermost last */
  joins: readonly Join[];
}

let nextSplit = 0;

/** The group `g` splits into: `mask` goes to `pc`, and both meet again at `join` (-1: nowhere in this function). */
export function split(g: Group, pc: number, mask: number, join: number): Group {
  if (join < 0) return { pc, mask, joins: g.joins };
  const joins = [...g.joins, { pc: join, id: nextSplit++ }];
  g.joins = joins;
  return { pc, mask, joins };
}

/** Whether `g` waits at the join of its innermost split for another group of that split. */
function waiting(g: Group, groups: readonly Group[], stopAt: number): boolean {
  const top = g.joins[g.joins.length - 1];
  if (top && g.pc === top.pc) return groups.some((h) => h !== g && h.joins.some((j) => j.id === top.id));
  // a fork side's groups all stop at the meeting point (warp.ts)
  return g.pc === stopAt && groups.some((h) => h.pc !== stopAt);
}

/**
 * The index of the group to run: the smallest pc among those not waiting at a join. When every
 * group waits (a split whose other side left by a path that skips the join), the smallest pc, its
 * innermost join given up.
 */
export function nextGroup(groups: Group[], stopAt: number): number {
  // one group (a warp not diverged, nearly every instruction): it waits for no other
  if (groups.length === 1) return 0;
  let best = -1;
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i];
    if (!g || waiting(g, groups, stopAt)) continue;
    if (best < 0 || g.pc < (groups[best]?.pc ?? 0)) best = i;
  }
  if (best >= 0) return best;
  for (let i = 0; i < groups.length; i++) if (best < 0 || (groups[i]?.pc ?? 0) < (groups[best]?.pc ?? 0)) best = i;
  const g = groups[best];
  if (g && g.pc !== stopAt) g.joins = g.joins.slice(0, -1);
  return best;
}

/** Groups at one pc run as one (their splits in common kept); a split all of whose groups met is closed. */
export function mergeGroups(groups: Group[]): void {
  for (let i = 0; i < groups.length; i++) {
    const gi = groups[i];
    if (!gi) continue;
    for (let j = groups.length - 1; j > i; j--) {
      const gj = groups[j];
      if (gj && gj.pc === gi.pc) {
        gi.mask = (gi.mask | gj.mask) >>> 0;
        gi.joins = common(gi.joins, gj.joins);
        groups.splice(j, 1);
      }
    }
  }
  for (const g of groups) {
    for (let top = g.joins[g.joins.length - 1]; top && g.pc === top.pc; top = g.joins[g.joins.length - 1]) {
      if (groups.some((h) => h !== g && h.joins.some((j) => j.id === top?.id))) break;
      g.joins = g.joins.slice(0, -1);
    }
  }
}

function common(a: readonly Join[], b: readonly Join[]): readonly Join[] {
  let n = 0;
  while (n < a.length && n < b.length && a[n]?.id === b[n]?.id) n++;
  return n === a.length ? a : a.slice(0, n);
}
