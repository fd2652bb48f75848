// Run one cluster of CTAs concretely: every warp of every CTA as a coroutine, each run until it
// must wait for others (warp.ts), resumed once its wait can pass. One schedule is enough for the
// lifter: it records what each warp did, and values one warp stores to shared memory are seen
// by warps that load them after synchronizing. The model checker then explores every
// interleaving of the recorded events. When every unfinished warp waits for something that can
// no longer come (a hang of this schedule), the first warp blocked on an mbarrier is let past its
// wait and the run goes on: what each warp does next does not depend on when its waits pass
// (they are spin loops), so the recorded schedule is the kernel's, and the checker finds the hang
// in the model with a shortest trace. A hang no mbarrier wait explains (bar.sync short of
// threads) ends the run, with each blocked warp's wait as its last event. A `wgmma.wait_group`
// waits too, until the other warps of its warpgroup have committed the groups it retires: the
// hardware retires a group only then, and a run that let a warp past sooner could let it release
// a stage two phases ahead of a warp of its own warpgroup, which then hangs on a parity whose
// phase has passed (FlashAttention-3's forward kernel on a 2×1 cluster, under a scheduler that
// lets other warps go first at a try_wait: a hang of the run that no hardware schedule has).
import type { Loc } from '../../ir/program.ts';
import type { WarpEvent } from './events.ts';
import type { FlatFunction } from './flatten.ts';
import type { LaunchValues } from './launch.ts';
import { ClusterSync } from './sim.ts';
import type { Block } from './sync-ops.ts';
import { popcount, WARP } from './values.ts';
import { StepBudget, WarpInterp, type WarpPlace } from './warp.ts';

export interface ClusterShape {
  readonly block: readonly [number, number, number];
  readonly grid: readonly [number, number, number];
  readonly cluster: readonly [number, number, number];
  /** %ctaid of the cluster's first CTA */
  readonly firstCta: readonly [number, number, number];
}

export interface WarpTrace {
  readonly cta: number;
  readonly warp: number;
  readonly events: readonly WarpEvent[];
}

export interface ClusterRun {
  readonly warps: readonly WarpTrace[];
  /** where the run first hung, every unfinished warp waiting for another */
  readonly stuck?: readonly { readonly cta: number; readonly warp: number; readonly loc: Loc }[];
  /** mbarrier waits let pass after a hang */
  readonly forced: number;
  /** every warp ran to its end (false: a hang no forced wait resolved; the blocked waits are the last events) */
  readonly complete: boolean;
  /** lines of the tensormap.* instructions that ran (in-kernel descriptor updates) */
  readonly descriptorUpdates: readonly number[];
  /** box bytes by map key, for the descriptors the kernel built in full itself (descriptors.ts) */
  readonly descriptorBoxes: ReadonlyMap<string, number>;
  /** lines of test_wait that returned false at least once (a polling kernel: one schedule's outcomes) */
  readonly polled: readonly number[];
  /** lines of a try_wait not in a spin loop: its false first try let the kernel go on (a token) */
  readonly triedFalse: readonly number[];
  /** lines of mbarrier.inval that only a branch on data reaches (the last thread out of a teardown), left out */
  readonly droppedInvals: readonly number[];
  /** lines of Ampere cp.async copies and of their commit_group/wait_group: the copies land at issue */
  readonly ampereCopies: readonly number[];
  /** lines of generic accesses (ld, st, atom) to another CTA's shared memory */
  readonly remoteAccesses: readonly number[];
  /** per function, 1 at each pc some warp executed (the run's path: inert.ts `runRelevance`) */
  readonly executed: ReadonlyMap<FlatFunction, Uint8Array>;
}

/** Waits a hung run may be let past before the lifter gives up on recording the rest. */
const MAX_FORCED = 10_000;

export function runCluster(
  kernel: FlatFunction,
  functions: ReadonlyMap<string, FlatFunction>,
  shape: ClusterShape,
  launch: LaunchValues,
  maxSteps: number,
  maxEvents = Infinity,
): ClusterRun {
  const [bx, by, bz] = shape.block;
  const [cx, cy, cz] = shape.cluster;
  const threads = bx * by * bz;
  const nwarps = Math.ceil(threads / WARP);
  const nctas = cx * cy * cz;
  const sim = new ClusterSync(nctas, threads);
  const budget = new StepBudget(maxSteps, maxEvents);
  const runners: { interp: WarpInterp; gen: Generator<Block, void, void>; blocked: Block | undefined; done: boolean }[] = [];
  // what the run recorded, however it ended: each warp's events, and the descriptor updates it ran
  const recorded = (): Pick<ClusterRun, 'warps' | 'descriptorUpdates' | 'descriptorBoxes' | 'polled' | 'triedFalse' | 'droppedInvals' | 'ampereCopies' | 'remoteAccesses' | 'executed'> => ({
    executed: sim.executed,
    warps: runners.map((r) => ({ cta: r.interp.cta, warp: r.interp.warp, events: r.interp.events })),
    descriptorUpdates: [...sim.descriptorUpdates].sort((a, b) => a - b),
    descriptorBoxes: sim.descriptors.boxes(),
    polled: [...sim.polled].sort((a, b) => a - b),
    triedFalse: [...sim.triedFalse].filter((line) => !sim.spunOn.has(line)).sort((a, b) => a - b),
    droppedInvals: [...sim.droppedInvals].sort((a, b) => a - b),
    ampereCopies: [...sim.ampereCopies].sort((a, b) => a - b),
    remoteAccesses: [...sim.remoteAccesses].sort((a, b) => a - b),
  });
  for (let rank = 0; rank < nctas; rank++) {
    const clusterCtaid: [number, number, number] = [rank % cx, Math.floor(rank / cx) % cy, Math.floor(rank / (cx * cy))];
    const ctaid: [number, number, number] = [shape.firstCta[0] + clusterCtaid[0], shape.firstCta[1] + clusterCtaid[1], shape.firstCta[2] + clusterCtaid[2]];
    for (let w = 0; w < nwarps; w++) {
      const place: WarpPlace = { warp: w, cta: rank, block: shape.block, ctaid, grid: shape.grid, cluster: shape.cluster, clusterCtaid };
      const interp = new WarpInterp(place, kernel, functions, launch, sim, budget);
      runners.push({ interp, gen: interp.run(), blocked: undefined, done: false });
    }
  }
  const canGo = (b: Block): boolean => {
    switch (b.kind) {
      case 'mbar': {
        const bar = sim.cta(b.cta).mbar(b.bar);
        return !bar || (bar.phase & 1) !== b.parity;
      }
      case 'token': {
        const bar = sim.cta(b.cta).mbar(b.bar);
        return !bar || bar.phase !== b.phase;
      }
      case 'named':
        return sim.cta(b.cta).namedBarrier(b.id).generation > b.generation;
      case 'cluster':
        return sim.clusterGeneration > b.generation;
      case 'poll':
        return true;
      case 'wgmma':
        return sim.wgmmaCoupled(b.cta, b.warp, b.groups);
    }
  };
  let stuck: { cta: number; warp: number; loc: Loc }[] | undefined;
  let forced = 0;
  for (;;) {
    let progress = false;
    for (const r of runners) {
      if (r.done || (r.blocked && !canGo(r.blocked))) continue;
      // a warp that polled, and polls again having recorded nothing, changed nothing another
      // warp waits for: a pass of such steps alone is a hang (it would poll for ever)
      const polling = r.blocked?.kind === 'poll';
      const before = r.interp.events.length;
      r.blocked = undefined;
      const live = r.interp.live;
      const step = r.gen.next();
      if (step.done) {
        r.done = true;
        sim.warpExited(r.interp.cta, popcount(live), r.interp.warp);
      } else {
        r.blocked = step.value;
      }
      if (!polling || r.done || r.blocked?.kind !== 'poll' || r.interp.events.length !== before) progress = true;
    }
    if (runners.every((r) => r.done)) break;
    if (!progress) {
      // hung: remember where, then let the first warp blocked on an mbarrier (or, when none is,
      // at a wgmma.wait_group) past its wait so the rest of every warp's schedule is recorded (the
      // checker finds the hang in the model)
      if (!stuck) stuck = runners.flatMap((r) => (!r.done && r.blocked ? [{ cta: r.interp.cta, warp: r.interp.warp, loc: r.blocked.loc }] : []));
      const blockedOn = (kinds: readonly Block['kind'][]): (typeof runners)[number] | undefined =>
        runners.find((r) => !r.done && r.blocked !== undefined && kinds.includes(r.blocked.kind));
      const next = forced < MAX_FORCED ? (blockedOn(['mbar', 'token', 'poll']) ?? blockedOn(['wgmma'])) : undefined;
      if (next) {
        forced++;
        next.interp.forcePast = true;
        next.blocked = undefined;
        continue;
      }
      for (const r of runners) {
        if (r.done || !r.blocked) continue;
        const b = r.blocked;
        // the wait it is stuck at (a bar.sync it arrived at is already recorded)
        if (b.kind === 'mbar') r.interp.event({ k: 'wait', cta: b.cta, bar: b.bar, parity: b.parity, loc: b.loc });
        else if (b.kind === 'token') r.interp.event({ k: 'wait', cta: b.cta, bar: b.bar, parity: b.phase & 1, token: b.site, loc: b.loc });
        else if (b.kind === 'cluster') r.interp.event({ k: 'cluster.sync', loc: b.loc });
      }
      return { ...recorded(), stuck, forced, complete: false };
    }
  }
  return { ...recorded(), ...(stuck ? { stuck } : {}), forced, complete: true };
}
