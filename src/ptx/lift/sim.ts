// The concrete synchronization state of one cluster while the lifter runs it: mbarriers, named
// barriers and the cluster barrier of every CTA, and the data values threads store to shared
// memory. The lifter runs one schedule of the warps (each until it blocks); this state decides
// when a blocked warp may go on, and carries values one warp stores and another loads after a
// barrier. Asynchronous units complete at once here (a TMA copy lands when issued): only the
// recorded events, not this schedule, go to the model checker, which explores every interleaving.
import { WARP, type Val } from './values.ts';
import { KernelDescriptors } from './descriptors.ts';
import type { FlatFunction } from './flatten.ts';

export interface Mbar {
  phase: number;
  pending: number;
  expected: number;
  tx: number;
}

export interface Named {
  /** threads arrived in the current generation */
  count: number;
  generation: number;
  /** thread count it was opened with (0: all threads of the CTA) */
  threads: number;
}

/** Shared-memory data of one CTA: known values stored by threads (byte address → cell). */
export class SmemData {
  private readonly cells = new Map<number, { bytes: number; v: Val }>();

  load(addr: number, bytes: number): Val | undefined {
    const c = this.cells.get(addr);
    if (c && c.bytes === bytes) return c.v;
    // part of a wider known integer (Gluon's default warps store four partition bytes as one
    // b32; each worker warp reads its byte): little-endian, like the hardware
    for (let a = addr; a > addr - 16; a--) {
      const w = this.cells.get(a);
      if (!w || typeof w.v !== 'bigint' || a + w.bytes < addr + bytes) continue;
      return BigInt.asUintN(bytes * 8, w.v >> BigInt(8 * (addr - a)));
    }
    return undefined;
  }

  /** Store a value (undefined: data the lifter does not know, e.g. a TMA copy's). */
  store(addr: number, bytes: number, v: Val | undefined): void {
    this.forget(addr, addr + bytes);
    if (v !== undefined) this.cells.set(addr, { bytes, v });
  }

  /** Everything in [lo, hi) becomes unknown (an asynchronous write, a wide store). */
  forget(lo: number, hi: number): void {
    if (this.cells.size === 0) return;
    if (hi - lo > 64) {
      for (const k of [...this.cells.keys()]) {
        const c = this.cells.get(k);
        if (c && k < hi && k + c.bytes > lo) this.cells.delete(k);
      }
      return;
    }
    for (let a = lo - 16; a < hi; a++) {
      const c = this.cells.get(a);
      if (c && a + c.bytes > lo) this.cells.delete(a);
    }
  }

  snapshot(): Map<number, { bytes: number; v: Val }> {
    return new Map(this.cells);
  }

  restore(cells: ReadonlyMap<number, { bytes: number; v: Val }>): void {
    this.cells.clear();
    for (const [k, c] of cells) this.cells.set(k, c);
  }
}

export class CtaSync {
  readonly mbars = new Map<number, Mbar>();
  readonly named = new Map<number, Named>();
  readonly smem = new SmemData();
  /** threads of this CTA that have exited (they count as arrived at a CTA-wide named barrier) */
  exitedThreads = 0;
  readonly threads: number;

  constructor(threads: number) {
    this.threads = threads;
  }

  mbar(addr: number): Mbar | undefined {
    return this.mbars.get(addr);
  }

  /** A phase completes when every arrival and every byte is in. */
  complete(addr: number): void {
    const b = this.mbars.get(addr);
    if (b && b.pending <= 0 && b.tx === 0) {
      b.phase += 1;
      b.pending = b.expected;
    }
  }

  namedBarrier(id: number): Named {
    let n = this.named.get(id);
    if (!n) {
      n = { count: 0, generation: 0, threads: 0 };
      this.named.set(id, n);
    }
    return n;
  }

  /** `threads` arrive at named barrier id, expecting `total` (0: the whole CTA); returns the generation they wait for. */
  arriveNamed(id: number, threads: number, total: number): number {
    const n = this.namedBarrier(id);
    n.threads = total;
    n.count += threads;
    const gen = n.generation;
    this.releaseNamed(id);
    return gen;
  }

  /** Complete named barrier id if everyone is in (exited threads count for a CTA-wide one). */
  releaseNamed(id: number): void {
    const n = this.namedBarrier(id);
    const need = n.threads === 0 ? this.threads - this.exitedThreads : n.threads;
    if (n.count > 0 && n.count >= need) {
      n.count = 0;
      n.generation += 1;
    }
  }
}

export class ClusterSync {
  readonly ctas: CtaSync[];
  /** barrier.cluster: threads arrived in the current generation */
  clusterArrived = 0;
  clusterGeneration = 0;
  readonly clusterThreads: number;
  exitedThreads = 0;
  /** wgmma groups each warp committed, by `cta:warp`; warps that ended are gone (wgmmaCoupled) */
  readonly wgmmaCommits = new Map<string, number>();
  readonly endedWarps = new Set<string>();
  /** lines of tensormap.* instructions run: in-kernel TMA descriptor updates, reported as assumed */
  readonly descriptorUpdates = new Set<number>();
  /** the descriptors the kernel builds itself, and the boxes they give its copies */
  readonly descriptors = new KernelDescriptors();
  /** lines of test_wait that returned false at least once: the kernel polls, and the run followed one schedule's outcomes */
  readonly polled = new Set<number>();
  /** lines of generic accesses to another CTA's shared memory (distributed shared memory) */
  readonly remoteAccesses = new Set<number>();
  /** lines of Ampere cp.async copies (taken to land at issue) and of their commit/wait_group (not modelled) */
  readonly ampereCopies = new Set<number>();
  /** lines of mbarrier.inval on one side of a branch on data (a last-one-out teardown), left out of the program */
  readonly droppedInvals = new Set<number>();
  /** lines of try_wait whose first try at a phase returned false */
  readonly triedFalse = new Set<number>();
  /** lines of try_wait tried again on the same phase with nothing recorded between: spin loops */
  readonly spunOn = new Set<number>();
  /** per function, 1 at each pc some warp of the run executed (inert.ts `runRelevance` reads it) */
  readonly executed = new Map<FlatFunction, Uint8Array>();

  constructor(ctas: number, threadsPerCta: number) {
    this.ctas = Array.from({ length: ctas }, () => new CtaSync(threadsPerCta));
    this.clusterThreads = ctas * threadsPerCta;
  }

  /** The executed marks of function `fn` in this run. */
  executedIn(fn: FlatFunction): Uint8Array {
    let marks = this.executed.get(fn);
    if (!marks) this.executed.set(fn, (marks = new Uint8Array(fn.code.length)));
    return marks;
  }

  cta(i: number): CtaSync {
    const c = this.ctas[i];
    if (!c) throw new Error(`internal: no CTA ${i} in the cluster`);
    return c;
  }

  arriveCluster(threads: number): number {
    this.clusterArrived += threads;
    const gen = this.clusterGeneration;
    this.releaseCluster();
    return gen;
  }

  releaseCluster(): void {
    if (this.clusterArrived > 0 && this.clusterArrived >= this.clusterThreads - this.exitedThreads) {
      this.clusterArrived = 0;
      this.clusterGeneration += 1;
    }
  }

  /** The whole synchronization state (a data-dependent branch runs both sides from it). */
  snapshot(): string {
    return JSON.stringify({
      ctas: this.ctas.map((c) => ({ mbars: [...c.mbars], named: [...c.named], exited: c.exitedThreads })),
      cluster: [this.clusterArrived, this.clusterGeneration, this.exitedThreads],
      commits: [...this.wgmmaCommits],
    });
  }

  restore(snapshot: string): void {
    const s = JSON.parse(snapshot) as {
      ctas: { mbars: [number, Mbar][]; named: [number, Named][]; exited: number }[];
      cluster: [number, number, number];
      commits: [string, number][];
    };
    this.wgmmaCommits.clear();
    for (const [k, v] of s.commits) this.wgmmaCommits.set(k, v);
    s.ctas.forEach((c, i) => {
      const cta = this.cta(i);
      cta.mbars.clear();
      for (const [k, v] of c.mbars) cta.mbars.set(k, v);
      cta.named.clear();
      for (const [k, v] of c.named) cta.named.set(k, v);
      cta.exitedThreads = c.exited;
    });
    [this.clusterArrived, this.clusterGeneration, this.exitedThreads] = s.cluster;
  }

  /**
   * Whether every other warp of this warp's warpgroup has committed `groups` wgmma groups (or
   * ended): a warpgroup's group retires only once each of its four warps committed it (measured
   * on an H200, traces/gpu/wgmma-coupling-h200), so a wait_group that needs it waits for them.
   */
  wgmmaCoupled(cta: number, warp: number, groups: number): boolean {
    const first = warp - (warp % 4);
    const warps = Math.ceil(this.cta(cta).threads / WARP);
    for (let x = first; x < Math.min(first + 4, warps); x++) {
      if (x === warp || this.endedWarps.has(`${cta}:${x}`)) continue;
      if ((this.wgmmaCommits.get(`${cta}:${x}`) ?? 0) < groups) return false;
    }
    return true;
  }

  warpExited(cta: number, threads: number, warp?: number): void {
    if (warp !== undefined) this.endedWarps.add(`${cta}:${warp}`);
    const c = this.cta(cta);
    c.exitedThreads += threads;
    this.exitedThreads += threads;
    for (const id of c.named.keys()) c.releaseNamed(id);
    this.releaseCluster();
  }
}
