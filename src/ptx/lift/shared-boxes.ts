// One box size per tensor map for every point of a sweep. A map's box is a constant of the host's
// CUtensorMap, the same at every launch, but each point's run sees only part of the kernel's
// shared memory: at ThunderKittens' defaults its based kernel loads one of two q tiles, so the gap
// to the next thing placed reads as both tiles, and its two v arrays, filled through one map in
// one phase, read as a ring of twice the stride. tma-bytes.ts's rules other than expect_tx bound
// the box from above by what the run placed or read past the destination (the next anchor, the
// next slot of the map, the end of the reads), and a run that places and reads more can only
// tighten them. So every point's copies take the strongest kind of evidence any point found and,
// among the points that found that kind, the smallest size; expect_tx (a split of the expected
// bytes, not a bound) only when those points agree. The note names the point the size came from.
import type { KernelTrace, LiftFacts, LiftOptions } from './lift.ts';
import { SIZE_SOURCES, type SizedMap, type SizeSource } from './tma-bytes.ts';
import type { Program } from '../../ir/program.ts';

export interface SizedPoint {
  readonly label: string;
  readonly trace: KernelTrace;
  readonly program: Program;
  readonly facts: LiftFacts;
}

type Relift = (trace: KernelTrace, options: LiftOptions) => { program: Program; facts: LiftFacts };

interface Best {
  readonly bytes: number;
  readonly how: SizeSource;
  /** the point that found it */
  readonly at: string;
}

/** The points, each lifted again where another point sized one of its maps on better evidence. */
export function shareBoxes<P extends SizedPoint>(points: readonly P[], options: LiftOptions, relift: Relift): P[] {
  const found = new Map<string, { m: SizedMap; label: string }[]>();
  for (const p of points) for (const m of p.facts.tma) found.set(m.map, [...(found.get(m.map) ?? []), { m, label: p.label }]);
  const best = new Map<string, Best>();
  for (const [map, list] of found) {
    const strongest = Math.min(...list.map((x) => SIZE_SOURCES.indexOf(x.m.how)));
    const how = SIZE_SOURCES[strongest]!;
    const top = list.filter((x) => x.m.how === how);
    if (how === 'given' || (how === 'expect_tx' && new Set(top.map((x) => x.m.bytes)).size > 1)) continue;
    const pick = top.reduce((a, b) => (b.m.bytes < a.m.bytes ? b : a));
    best.set(map, { bytes: pick.m.bytes, how, at: pick.label });
  }
  return points.map((p) => {
    // this point's maps sized on weaker evidence than another point's
    const taken = new Map<string, Best>();
    for (const m of p.facts.tma) {
      const b = best.get(m.map);
      if (b && (b.bytes !== m.bytes || b.how !== m.how)) taken.set(m.map, b);
    }
    if (taken.size === 0) return p;
    // a size that only gains better evidence changes the note, not the program
    const resized = [...taken].some(([map, b]) => p.facts.tma.find((m) => m.map === map)?.bytes !== b.bytes);
    const again = resized ? relift(p.trace, { ...options, tmaBoxes: new Map([...(options.tmaBoxes ?? []), ...[...taken].map(([map, b]) => [map, b.bytes] as const)]) }) : p;
    const tma = again.facts.tma.map((m) => {
      const b = taken.get(m.map);
      return b ? { ...m, bytes: b.bytes, how: b.how, ...(b.at !== p.label ? { at: b.at } : {}) } : m;
    });
    return { ...p, program: again.program, facts: { ...again.facts, tma } };
  });
}
