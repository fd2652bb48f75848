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
import type { SizedMap, SizeSource } from './tma-bytes.ts';
import type { Program } from '../../ir/program.ts';

/** The kinds of evidence, strongest first (the order tma-bytes.ts tries them in). */
const STRENGTH: readonly SizeSource[] = ['given', 'footprint', 'ring stride', 'expect_tx', 'gap'];

export interface SizedPoint {
  readonly label: string;
  readonly trace: KernelTrace;
  readonly program: Program;
  readonly facts: LiftFacts;
}

type Relift = (trace: KernelTrace, options: LiftOptions) => { program: Program; facts: LiftFacts };

/** The points, each lifted again where another point sized one of its maps on better evidence. */
export function shareBoxes<P extends SizedPoint>(points: readonly P[], options: LiftOptions, relift: Relift): P[] {
  const best = new Map<string, { bytes: number; how: SizeSource; at: string } | undefined>();
  const found = new Map<string, { m: SizedMap; label: string }[]>();
  for (const p of points) for (const m of p.facts.tma) found.set(m.map, [...(found.get(m.map) ?? []), { m, label: p.label }]);
  for (const [map, list] of found) {
    const strongest = Math.min(...list.map((x) => STRENGTH.indexOf(x.m.how)));
    const top = list.filter((x) => STRENGTH.indexOf(x.m.how) === strongest);
    const how = STRENGTH[strongest]!;
    if (how === 'given') continue;
    const sizes = new Set(top.map((x) => x.m.bytes));
    if (how === 'expect_tx' && sizes.size > 1) continue;
    const pick = top.reduce((a, b) => (b.m.bytes < a.m.bytes ? b : a));
    best.set(map, { bytes: pick.m.bytes, how, at: pick.label });
  }
  return points.map((p) => {
    const boxes = new Map(options.tmaBoxes ?? []);
    let changed = false;
    for (const m of p.facts.tma) {
      const b = best.get(m.map);
      if (!b || (b.bytes === m.bytes && b.how === m.how)) continue;
      boxes.set(m.map, b.bytes);
      changed = true;
    }
    if (!changed) return p;
    const again = relift(p.trace, { ...options, tmaBoxes: boxes });
    // the sizes taken from another point are reported with their evidence, not as given
    const tma = again.facts.tma.map((m) => {
      const b = best.get(m.map);
      return b && !options.tmaBoxes?.has(m.map) && boxes.has(m.map) ? { ...m, how: b.how, ...(b.at !== p.label ? { at: b.at } : {}) } : m;
    });
    return { ...p, program: again.program, facts: { ...again.facts, tma } };
  });
}
