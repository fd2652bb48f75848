// Concrete execution of one warp over flattened PTX: control flow, calls, lanes, and the
// helpers the instruction families (exec.ts, sync-ops.ts, collectives.ts) use.
//
// Lanes: a register holds one Scalar while all live lanes agree and a 32-lane vector only where
// they differ, so uniform code (loop counters, barrier addresses) runs once per warp and only
// %tid-derived values are computed per lane. Divergence: the warp is a set of (pc, lane mask)
// groups; lanes split at a branch meet again at its immediate post-dominator, and among the groups
// not waiting there the one with the smallest pc runs next (reconverge.ts).
//
// The warp runs as a coroutine (a generator): an instruction that must wait for other warps
// (an mbarrier wait whose phase has not completed, bar.sync, barrier.cluster.wait) yields a
// Block, and the cluster scheduler (cluster.ts) resumes the warp once the wait can pass.
//
// A branch on data the lifter does not know (a float, a global load, a pointer compared with
// another) runs both sides to where they meet again (the branch's post-dominator): when both
// did the same synchronization, execution goes on with the values they disagree on unknown;
// otherwise the branch is refused, with its line.
import { InputError } from '../../diag.ts';
import type { Loc } from '../../ir/program.ts';
import type { ParamDecl } from '../parse/ast.ts';
import { notPred, symReason, u } from './alu.ts';
import { postDominators } from './cfg.ts';
import { mergeGroups, nextGroup, split, type Group } from './reconverge.ts';
import { UnsupportedError } from './errors.ts';
import type { WarpEvent } from './events.ts';
import { execInstr, isExecInstr } from './exec.ts';
import { joinSides } from './fork-events.ts';
import { LoadsInFlight, type LoadsState } from './load-waits.ts';
import { CLUSTER_BASE, CTA_WINDOW } from './shared-windows.ts';
import type { Arg, FlatFunction, FlatInstr } from './flatten.ts';
import { CTA_INDEX, type LaunchValues } from './launch.ts';
import { plain } from './launch-pointers.ts';
import { typeBytes } from './opcode.ts';
import type { ClusterSync } from './sim.ts';
import { type Block, syncInstr } from './sync-ops.ts';
import { spinExit } from './spin.ts';
import { AmpereCopies } from './ampere-copies.ts';
import {
  canonical, firstLane, isLanes, laneOf, plusOffset, popcount, SHARED_GENERIC_BASE, SHARED_WINDOW, sameScalar, scalarKey, SymAddr, Token,
  UNINIT, Unknown, WARP, type Scalar, type Val,
} from './values.ts';

/** Where this warp sits in the launch. */
export interface WarpPlace {
  /** warp index within its CTA */
  readonly warp: number;
  /** rank of its CTA in the cluster (the CTA the model's roles of this warp belong to) */
  readonly cta: number;
  readonly block: readonly [number, number, number];
  readonly ctaid: readonly [number, number, number];
  readonly grid: readonly [number, number, number];
  readonly cluster: readonly [number, number, number];
  /** position of the CTA in the cluster */
  readonly clusterCtaid: readonly [number, number, number];
}

export interface Frame {
  readonly fn: FlatFunction;
  readonly regs: Val[];
  readonly id: number;
}

export interface MemCell {
  v: Val;
  readonly bytes: number;
}

/** Budget of executed instructions, shared by every warp of a run. */
export class StepBudget {
  steps = 0;
  readonly max: number;
  /** events recorded by all warps, and the most a run may record (a sweep's probe stops early) */
  events = 0;
  readonly maxEvents: number;
  constructor(max: number, maxEvents = Infinity) {
    this.max = max;
    this.maxEvents = maxEvents;
  }
}

/** A run that recorded more events than its budget: too large a launch for a sweep point. */
export class EventBudgetExceeded extends InputError {
  constructor(max: number) {
    super(`the run recorded more than ${max} synchronization events`);
  }
}

const MAX_CALL_DEPTH = 64;
const FULL = 0xffffffff;

/** Instructions whose effect the model needs: refused on an unknown guard rather than skipped. */
const SYNC_BASES = new Set(['mbarrier', 'cp', 'wgmma', 'bar', 'barrier', 'fence', 'stmatrix', 'call', 'ret', 'exit', 'trap', 'setmaxnreg']);

/** A side of a data-dependent branch that must not block (it would wait for other warps mid-fork). */
class ForkBlocked extends Error {}

export class WarpInterp {
  readonly events: WarpEvent[] = [];
  live: number;
  readonly mem = new Map<string, Map<bigint, MemCell>>();
  readonly sregs = new Map<string, Val>();
  private nextFrame = 1;
  /** >0 while running a side of a data-dependent branch */
  private forkDepth = 0;
  /**
   * Register writes made inside a side of a branch on data, with the value each overwrote: a
   * side is undone and the sides compared by what they wrote, not by copying the whole register
   * file (FA3's kernels have 24,000 register slots and fork 128 times per run).
   */
  private readonly journal: { readonly regs: Val[]; readonly slot: number; readonly old: Val }[] = [];
  /** a bar.sync / cluster wait this warp has arrived at and waits on (generation), set by sync-ops */
  waitingGeneration: number | undefined;
  /** arrive sites, for naming tokens */
  nextSite = 0;
  /** the scheduler let this warp past the mbarrier wait it hangs at (cluster.ts); taken by that wait */
  forcePast = false;
  /** by try_wait line and barrier, the barrier's phase at the last try (the first try at a phase returns false) */
  readonly triedPhase = new Map<string, number>();
  /** the try_wait line and event count of the last false try: the same again is a spin loop */
  lastFalseTry: string | undefined;
  /** the cluster-barrier generation this warp arrived in (barrier.cluster.arrive), until its wait */
  clusterArrival: number | undefined;
  /** set when a fork side's groups all reached the join */
  private joined = false;
  /** generic shared-memory loads whose value the warp has not read yet (load-waits.ts) */
  readonly loads = new LoadsInFlight();
  /** Ampere cp.async copies issued and not yet known complete */
  readonly ampere = new AmpereCopies();

  readonly place: WarpPlace;
  private readonly kernel: FlatFunction;
  private readonly functions: ReadonlyMap<string, FlatFunction>;
  readonly launch: LaunchValues;
  readonly sim: ClusterSync;
  private readonly budget: StepBudget;

  constructor(place: WarpPlace, kernel: FlatFunction, functions: ReadonlyMap<string, FlatFunction>, launch: LaunchValues, sim: ClusterSync, budget: StepBudget) {
    this.place = place;
    this.kernel = kernel;
    this.functions = functions;
    this.launch = launch;
    this.sim = sim;
    this.budget = budget;
    const [bx, by, bz] = place.block;
    const threads = bx * by * bz;
    let live = 0;
    const tx: Scalar[] = [];
    const ty: Scalar[] = [];
    const tz: Scalar[] = [];
    const laneid: Scalar[] = [];
    for (let l = 0; l < WARP; l++) {
      const t = place.warp * WARP + l;
      if (t < threads) live |= 1 << l;
      tx.push(BigInt(t % bx));
      ty.push(BigInt(Math.floor(t / bx) % by));
      tz.push(BigInt(Math.floor(t / (bx * by)) % Math.max(1, bz)));
      laneid.push(BigInt(l));
    }
    this.live = live >>> 0;
    const lanes = (xs: Scalar[]): Val => canonical(xs, this.live);
    const dims = ['x', 'y', 'z'] as const;
    this.sregs.set('%tid.x', lanes(tx));
    this.sregs.set('%tid.y', lanes(ty));
    this.sregs.set('%tid.z', lanes(tz));
    this.sregs.set('%laneid', lanes(laneid));
    this.sregs.set('%warpid', BigInt(place.warp));
    this.sregs.set('%nwarpid', BigInt(Math.ceil(threads / WARP)));
    const [cx, cy, cz] = place.cluster;
    dims.forEach((d, i) => {
      this.sregs.set(`%ntid.${d}`, BigInt(place.block[i] ?? 1));
      this.sregs.set(`%ctaid.${d}`, BigInt(place.ctaid[i] ?? 0));
      this.sregs.set(`%nctaid.${d}`, BigInt(place.grid[i] ?? 1));
      this.sregs.set(`%cluster_ctaid.${d}`, BigInt(place.clusterCtaid[i] ?? 0));
      this.sregs.set(`%cluster_nctaid.${d}`, BigInt(place.cluster[i] ?? 1));
      this.sregs.set(`%clusterid.${d}`, BigInt(Math.floor((place.ctaid[i] ?? 0) / (place.cluster[i] ?? 1))));
      this.sregs.set(`%nclusterid.${d}`, BigInt(Math.ceil((place.grid[i] ?? 1) / (place.cluster[i] ?? 1))));
    });
    this.sregs.set('%cluster_ctarank', BigInt(place.cta));
    this.sregs.set('%cluster_nctarank', BigInt(cx * cy * cz));
    this.sregs.set('%is_explicit_cluster', 1n);
    this.sregs.set('%smid', BigInt(place.cta));
    for (const [name, f] of [
      ['eq', (l: number, x: number) => l === x],
      ['lt', (l: number, x: number) => x < l],
      ['le', (l: number, x: number) => x <= l],
      ['gt', (l: number, x: number) => x > l],
      ['ge', (l: number, x: number) => x >= l],
    ] as const) {
      const v: Scalar[] = [];
      for (let l = 0; l < WARP; l++) {
        let m = 0n;
        for (let x = 0; x < WARP; x++) if (f(l, x)) m |= 1n << BigInt(x);
        v.push(m);
      }
      this.sregs.set(`%lanemask_${name}`, lanes(v));
    }
  }

  get warp(): number {
    return this.place.warp;
  }

  get cta(): number {
    return this.place.cta;
  }

  /** Run the kernel for this warp: yields a Block whenever it must wait for other warps. */
  *run(): Generator<Block, void, void> {
    if (this.live === 0) return;
    const frame: Frame = { fn: this.kernel, regs: new Array<Val>(this.kernel.nslots).fill(UNINIT), id: 0 };
    this.bindKernelParams(this.kernel.fn.params);
    yield* this.runFunction(frame, this.live, 0);
  }

  // ---- parameters and frame memory --------------------------------------------------------

  /** Scalar kernel parameters get their launch value; by-value structs are read field by field (memLoad). */
  private bindKernelParams(params: readonly ParamDecl[]): void {
    params.forEach((p, i) => {
      if (p.elements !== undefined) return;
      const bytes = typeBytes(p.type) || 8;
      this.memCells(`f0:${p.name}`).set(0n, { v: this.launch.scalar(p, i), bytes });
    });
  }

  memCells(base: string): Map<bigint, MemCell> {
    let m = this.mem.get(base);
    if (!m) {
      m = new Map();
      this.mem.set(base, m);
    }
    return m;
  }

  /** Read frame memory: a stored cell, or a field of a by-value kernel parameter (a launch value). */
  memLoad(a: SymAddr, bytes: number, float = false): Val {
    const cells = this.mem.get(a.base);
    const hit = cells?.get(a.offset);
    if (hit && hit.bytes === bytes) return hit.v;
    if (cells) {
      for (const [off, c] of cells) {
        if (off <= a.offset && a.offset + BigInt(bytes) <= off + BigInt(c.bytes) && typeof c.v === 'bigint') {
          return u(c.v >> (8n * (a.offset - off)), bytes * 8);
        }
      }
    }
    if (a.base.startsWith('f0:')) {
      const p = this.kernel.fn.params.find((x) => `f0:${x.name}` === a.base);
      if (p?.elements !== undefined) return this.launch.field(p, Number(a.offset), bytes, float);
    }
    const name = a.base.replace(/^f\d+:/, '').replace(/^ptr:/, '');
    return new Unknown(`the contents of ${name}${a.offset ? `+${a.offset}` : ''}`);
  }

  memStore(a: SymAddr, v: Val, bytes: number, mask: number): void {
    const cells = this.memCells(a.base);
    const old = cells.get(a.offset);
    const prev: Val = old && old.bytes === bytes ? old.v : UNINIT;
    cells.set(a.offset, { v: this.merge(prev, v, mask), bytes });
  }

  // ---- values -----------------------------------------------------------------------------

  read(fr: Frame, a: Arg): Val {
    switch (a.k) {
      case 'reg':
        return fr.regs[a.slot] ?? UNINIT;
      case 'not': {
        const v = fr.regs[a.slot] ?? UNINIT;
        return isLanes(v) ? v.map(notPred) : notPred(v);
      }
      case 'imm':
        return a.v;
      case 'const':
        return a.v;
      case 'sreg':
        if (a.name === CTA_INDEX) this.launch.ctaIndexRead();
        return this.sregs.get(a.name) ?? new Unknown(`the special register ${a.name}`);
      case 'frame':
        return new SymAddr(`f${fr.id}:${a.name}`, a.offset);
      case 'unk':
        return a.why;
      case 'mem':
        return this.address(fr, a);
      default:
        return new Unknown('an operand the lifter does not evaluate');
    }
  }

  address(fr: Frame, a: Arg): Val {
    if (a.k !== 'mem') return this.read(fr, a);
    if (!a.base) return a.offset;
    const b = this.read(fr, a.base);
    if (a.offset === 0n) return b;
    const off = a.offset;
    return isLanes(b) ? b.map((x) => plusOffset(x, off)) : plusOffset(b, off);
  }

  /** Merge `v` into `old` on the lanes of `mask`. */
  merge(old: Val, v: Val, mask: number): Val {
    const live = this.live;
    if (((mask & live) >>> 0) === live) return isLanes(v) ? canonical(v, live) : v;
    if (!isLanes(old) && !isLanes(v) && sameScalar(old, v)) return old;
    const out: Scalar[] = new Array<Scalar>(WARP);
    for (let l = 0; l < WARP; l++) out[l] = (mask >>> l) & 1 ? laneOf(v, l) : laneOf(old, l);
    return canonical(out, live);
  }

  write(fr: Frame, a: Arg | undefined, v: Val, mask: number): void {
    if (!a) return;
    if (a.k === 'reg') {
      const old = fr.regs[a.slot] ?? UNINIT;
      if (this.forkDepth > 0) this.journal.push({ regs: fr.regs, slot: a.slot, old });
      fr.regs[a.slot] = this.merge(old, v, mask);
    }
    else if (a.k === 'vec') for (const item of a.items) this.write(fr, item, v, mask);
    else if (a.k === 'pair') this.write(fr, a.first, v, mask);
  }

  /** f on each active lane where an input varies, once otherwise. */
  map(mask: number, ins: readonly Val[], f: (xs: Scalar[]) => Scalar): Val {
    if (!ins.some(isLanes)) return f(ins as Scalar[]);
    const out: Scalar[] = new Array<Scalar>(WARP).fill(UNINIT);
    // one operand array for every lane: f reads it and keeps none of it
    const xs: Scalar[] = new Array<Scalar>(ins.length);
    for (let l = 0; l < WARP; l++) {
      if (((mask >>> l) & 1) === 0) continue;
      for (let i = 0; i < ins.length; i++) xs[i] = laneOf(ins[i]!, l);
      out[l] = f(xs);
    }
    return out;
  }

  unknownResult(ins: FlatInstr): Unknown {
    return new Unknown(`the result of '${ins.op.text}' at line ${ins.loc.line}`);
  }

  /** Destinations of an instruction the lifter does not model become unknown. */
  clobber(fr: Frame, ins: FlatInstr, mask: number): void {
    const d = ins.args[0];
    if (d && (d.k === 'reg' || d.k === 'vec' || d.k === 'pair')) {
      const u0 = this.unknownResult(ins);
      this.write(fr, d, u0, mask);
      if (d.k === 'pair') this.write(fr, d.second, u0, mask);
    }
  }

  // ---- errors and operands of sync instructions ---------------------------------------------

  why(x: Scalar): string {
    if (x instanceof Unknown) return x.why;
    if (x instanceof SymAddr) return symReason(x);
    if (x instanceof Token) return 'an mbarrier state token';
    return 'a value';
  }

  unsupported(msg: string, loc: Loc): never {
    throw new UnsupportedError(msg, loc);
  }

  /** A known integer operand of a sync instruction. */
  known(x: Scalar, what: string, ins: FlatInstr): number {
    if (typeof x === 'bigint') return Number(plain(x));
    this.unsupported(`${what} of '${ins.op.text}' at line ${ins.loc.line} depends on ${this.why(x)}`, ins.loc);
  }

  /**
   * A shared-memory address operand: the CTA it is in (this one, or another of the cluster for a
   * `.shared::cluster` address from mapa) and the byte offset in that CTA's window.
   */
  smem(x: Scalar, ins: FlatInstr, what: string): { cta: number; addr: number } {
    if (typeof x === 'bigint') {
      const local = x >= SHARED_GENERIC_BASE && x < SHARED_GENERIC_BASE + SHARED_WINDOW ? x - SHARED_GENERIC_BASE : x;
      if (x >= CLUSTER_BASE && x < CLUSTER_BASE + BigInt(CTA_WINDOW) * 64n) {
        const off = Number(x - CLUSTER_BASE);
        return { cta: Math.floor(off / CTA_WINDOW), addr: off % CTA_WINDOW };
      }
      if (local >= 0n && local < BigInt(CTA_WINDOW)) return { cta: this.cta, addr: Number(local) };
      // the hardware's cluster window puts a CTA's rank in bits 24-27 of its shared addresses, and
      // FlashMLA reaches its peer by flipping bit 24 (`get_peer_addr`). Here a CTA's own addresses
      // have rank bits 0, that is the hardware's XOR its own rank: so the bits name rank bits ^ own.
      const rank = Number(local >> 24n) ^ this.cta;
      const off = Number(local & 0xff_ffffn);
      if (local >= 1n << 24n && local < 16n << 24n && off < CTA_WINDOW && rank < this.sim.ctas.length) return { cta: rank, addr: off };
    }
    const reason = typeof x === 'bigint' ? `an address outside shared memory (${x})` : this.why(x);
    this.unsupported(`the ${what} address of '${ins.op.text}' at line ${ins.loc.line} depends on ${reason}`, ins.loc);
  }

  /** Group the active lanes by the values of some operands: one group per distinct tuple, in lane order. */
  laneGroups(m: number, vals: readonly Val[]): { lane: number; n: number; xs: Scalar[] }[] {
    if (!vals.some(isLanes)) return [{ lane: firstLane(m), n: popcount(m), xs: vals as Scalar[] }];
    const groups = new Map<string, { lane: number; n: number; xs: Scalar[] }>();
    for (let l = 0; l < WARP; l++) {
      if (((m >>> l) & 1) === 0) continue;
      const xs = vals.map((v) => laneOf(v, l));
      const key = xs.map(scalarKey).join('|');
      const g = groups.get(key);
      if (g) g.n++;
      else groups.set(key, { lane: l, n: 1, xs });
    }
    return [...groups.values()];
  }

  /** Record a synchronization event (a fork compares its two sides' events). */
  event(e: WarpEvent): void {
    this.events.push(e);
    if (++this.budget.events > this.budget.maxEvents) throw new EventBudgetExceeded(this.budget.maxEvents);
  }

  /** Inside a side of a data-dependent branch, waiting for other warps is not possible. */
  get forking(): boolean {
    return this.forkDepth > 0;
  }

  // ---- control ----------------------------------------------------------------------------

  private guardMask(fr: Frame, ins: FlatInstr, mask: number): number | Unknown {
    const g = fr.regs[ins.guard] ?? UNINIT;
    if (!isLanes(g)) {
      if (typeof g !== 'bigint') return g instanceof Unknown ? g : new Unknown(this.why(g));
      return (g !== 0n) !== ins.guardNeg ? mask : 0;
    }
    let m = 0;
    for (let l = 0; l < WARP; l++) {
      if (((mask >>> l) & 1) === 0) continue;
      const x = g[l] ?? UNINIT;
      if (typeof x !== 'bigint') return x instanceof Unknown ? x : new Unknown(this.why(x));
      if ((x !== 0n) !== ins.guardNeg) m |= 1 << l;
    }
    return m >>> 0;
  }

  private tick(ins: FlatInstr): void {
    if (++this.budget.steps > this.budget.max) {
      this.unsupported(
        `execution stopped after ${this.budget.max} instructions in warp ${this.warp}, at line ${ins.loc.line} (an endless loop, or launch values too large for the lifter)`,
        ins.loc,
      );
    }
  }

  /**
   * Run a function from its first instruction with lanes `entry`. Returns the lanes that exited
   * (exit, or ret from the kernel). `stopAt`: for a fork side, the pc where groups stop.
   */
  *runFunction(fr: Frame, entry: number, depth: number, start = 0, stopAt = -1): Generator<Block, number, void> {
    const code = fr.fn.code;
    const executed = this.sim.executedIn(fr.fn);
    const groups: Group[] = [{ pc: start, mask: entry >>> 0, joins: [] }];
    let exited = 0;
    const isKernel = depth === 0;
    while (groups.length > 0) {
      const gi = nextGroup(groups, stopAt);
      const g = groups[gi];
      if (!g) break;
      if (g.pc === stopAt) {
        // a fork side: every group must reach the meeting point
        if (groups.every((x) => x.pc === stopAt)) {
          this.joined = true;
          return exited;
        }
        // the lowest pc is the stop: others are above it (they passed it): not structured
        this.unsupported(`the two sides of a branch on data do not meet again at line ${code[stopAt]?.loc.line ?? '?'}`, code[stopAt]?.loc ?? fr.fn.fn.loc);
      }
      const ins = code[g.pc];
      if (!ins || g.mask === 0) {
        groups.splice(gi, 1);
        continue;
      }
      this.tick(ins);
      executed[g.pc] = 1;
      let m = g.mask;
      if (ins.guard >= 0) {
        const gm = this.guardMask(fr, ins, g.mask);
        if (gm instanceof Unknown) {
          if (ins.op.base === 'bra') {
            // a spin on a flag another CTA sets: taken to end (spin.ts), and reported
            const flag = gm.flag;
            const exit = flag !== undefined ? spinExit(fr.fn, g.pc, flag) : undefined;
            if (flag !== undefined && exit !== undefined) {
              this.launch.spinWait(ins.loc.line, flag);
              g.pc = exit;
              mergeGroups(groups);
              continue;
            }
            yield* this.fork(fr, g, ins, gm, depth);
            mergeGroups(groups);
            continue;
          }
          if (SYNC_BASES.has(ins.op.base) || ins.op.base === 'brx') {
            this.unsupported(`'${ins.op.text}' at line ${ins.loc.line} is guarded by a predicate that depends on ${gm.why}`, ins.loc);
          }
          this.clobber(fr, ins, g.mask);
          g.pc++;
          mergeGroups(groups);
          continue;
        }
        m = gm;
      }
      switch (ins.op.base) {
        case 'bra': {
          const target = ins.args[ins.args.length - 1];
          if (!target || target.k !== 'label' || target.ref.index < 0) this.unsupported(`branch without a known label at line ${ins.loc.line}`, ins.loc);
          if (m === g.mask) g.pc = target.ref.index;
          else if (m === 0) g.pc++;
          else {
            g.mask = (g.mask & ~m) >>> 0;
            groups.push(split(g, target.ref.index, m, this.joinOf(fr, g.pc)));
            g.pc++;
          }
          break;
        }
        case 'brx': {
          if (m === 0) {
            g.pc++;
            break;
          }
          const [idxArg, tableArg] = ins.args;
          if (!idxArg || tableArg?.k !== 'targets') this.unsupported(`indirect branch '${ins.op.text}' at line ${ins.loc.line} without a .branchtargets table`, ins.loc);
          const idx = this.read(fr, idxArg);
          const rest = (g.mask & ~m) >>> 0;
          const targets = tableArg.refs;
          const join = this.joinOf(fr, g.pc);
          for (const lg of this.laneGroups(m, [idx])) {
            const x = lg.xs[0] ?? UNINIT;
            const k = this.known(x, 'the jump-table index', ins);
            const t = targets[k];
            if (!t || t.index < 0) this.unsupported(`'${ins.op.text}' at line ${ins.loc.line} jumps to entry ${k} of a ${targets.length}-entry table`, ins.loc);
            let lanes = 0;
            for (let l = 0; l < WARP; l++) if ((m >>> l) & 1 && laneOf(idx, l) === x) lanes |= 1 << l;
            groups.push(split(g, t.index, lanes >>> 0, join));
          }
          g.mask = rest;
          g.pc++;
          break;
        }
        case 'ret':
        case 'exit': {
          if (ins.op.base === 'exit' || isKernel) {
            exited = (exited | m) >>> 0;
            this.live = (this.live & ~m) >>> 0;
          }
          g.mask = (g.mask & ~m) >>> 0;
          g.pc++;
          break;
        }
        case 'trap':
          if (m !== 0) this.unsupported(`the kernel executes trap at line ${ins.loc.line} with these launch values (it would abort)`, ins.loc);
          g.pc++;
          break;
        case 'call': {
          if (m !== 0) {
            const ex = yield* this.call(fr, ins, m, depth);
            if (ex) {
              exited = (exited | ex) >>> 0;
              g.mask = (g.mask & ~ex) >>> 0;
            }
          }
          g.pc++;
          break;
        }
        default:
          if (m !== 0) {
            this.loads.reads(fr.regs, ins);
            const block = isExecInstr(ins.op) ? execInstr(this, fr, ins, m) : syncInstr(this, fr, ins, m);
            if (block) {
              if (this.forking) throw new ForkBlocked(`line ${ins.loc.line}`);
              // wait here; the instruction runs again when the scheduler resumes the warp (a poll
              // has run: it lets the other warps go first, then goes on to the next instruction)
              yield block;
              if (block.kind !== 'poll') continue;
            }
          }
          g.pc++;
      }
      mergeGroups(groups);
    }
    return exited;
  }

  /** Where lanes split at the branch at `pc` meet again: its immediate post-dominator (-1: only at the exit). */
  private joinOf(fr: Frame, pc: number): number {
    const join = postDominators(fr.fn)[pc] ?? -1;
    return join >= 0 && join < fr.fn.code.length ? join : -1;
  }

  private *call(fr: Frame, ins: FlatInstr, mask: number, depth: number): Generator<Block, number, void> {
    const fi = ins.args.findIndex((a) => a.k === 'func');
    const fa = ins.args[fi];
    if (!fa || fa.k !== 'func') this.unsupported(`indirect call at line ${ins.loc.line}`, ins.loc);
    const callee = this.functions.get(fa.name);
    if (!callee || !callee.fn.body) this.unsupported(`call to ${fa.name} at line ${ins.loc.line}, which has no body in this file`, ins.loc);
    if (depth + 1 > MAX_CALL_DEPTH) this.unsupported(`call depth over ${MAX_CALL_DEPTH} at line ${ins.loc.line}`, ins.loc);
    const before = ins.args[fi - 1];
    const after = ins.args[fi + 1];
    const rets = before?.k === 'list' ? before.items : [];
    const args = after?.k === 'list' ? after.items : [];
    const cf: Frame = { fn: callee, regs: new Array<Val>(callee.nslots).fill(UNINIT), id: this.nextFrame++ };
    callee.fn.params.forEach((p, i) => {
      const a = args[i];
      if (!a) return;
      if (p.space === 'reg') {
        const slot = callee.regParams.get(p.name);
        if (slot !== undefined) cf.regs[slot] = this.read(fr, a);
      } else if (a.k === 'frame') {
        const src = this.mem.get(`f${fr.id}:${a.name}`);
        if (src) this.mem.set(`f${cf.id}:${p.name}`, new Map([...src].map(([k, c]) => [k, { ...c }] as const)));
      } else {
        this.memStore(new SymAddr(`f${cf.id}:${p.name}`, 0n), this.read(fr, a), typeBytes(p.type) || 8, FULL);
      }
    });
    const exited = yield* this.runFunction(cf, mask, depth + 1);
    const back = (mask & ~exited) >>> 0;
    callee.fn.returns.forEach((p, i) => {
      const a = rets[i];
      if (!a) return;
      if (p.space === 'reg') {
        const slot = callee.regParams.get(p.name);
        if (slot !== undefined) this.write(fr, a, cf.regs[slot] ?? UNINIT, back);
      } else if (a.k === 'frame') {
        const src = this.mem.get(`f${cf.id}:${p.name}`);
        if (src) this.mem.set(`f${fr.id}:${a.name}`, new Map([...src].map(([k, c]) => [k, { ...c }] as const)));
      } else {
        this.write(fr, a, this.memLoad(new SymAddr(`f${cf.id}:${p.name}`, 0n), typeBytes(p.type) || 8), back);
      }
    });
    for (const key of [...this.mem.keys()]) if (key.startsWith(`f${cf.id}:`)) this.mem.delete(key);
    return exited;
  }

  // ---- branches on data ----------------------------------------------------------------------

  /**
   * A branch whose condition is unknown: run the taken side and the fall-through side (with the
   * group's lanes) each up to the branch's post-dominator, compare the synchronization they did,
   * and go on from there with one copy of it and the values the sides disagree on unknown.
   */
  private *fork(fr: Frame, g: Group, ins: FlatInstr, why: Unknown, depth: number): Generator<Block, void, void> {
    const target = ins.args[ins.args.length - 1];
    if (!target || target.k !== 'label' || target.ref.index < 0) this.unsupported(`branch without a known label at line ${ins.loc.line}`, ins.loc);
    const join = postDominators(fr.fn)[g.pc] ?? -1;
    const refuse = (detail: string): never =>
      this.unsupported(`branch on data at line ${ins.loc.line} (the condition depends on ${why.why}${why.origin ? `; first unknown: ${why.origin}` : ''}): ${detail}`, ins.loc);
    if (join < 0 || join >= fr.fn.code.length) refuse('one side leaves the function (exit or return) and the other does not come back to the same place');
    // a loop whose exit depends on data forks again on every trip: bound the nesting
    if (this.forkDepth >= MAX_FORK_DEPTH) refuse(`branches on data nest more than ${MAX_FORK_DEPTH} deep (a loop whose trip count depends on data?)`);
    const start = this.snapshot();
    const mark = this.journal.length;
    const side = (from: number): Snapshot & { events: WarpEvent[]; regs: Map<number, Val> } => {
      this.undo(mark);
      this.restore(start);
      const n = this.events.length;
      this.forkDepth++;
      this.joined = false;
      try {
        // a side runs to the join without waiting for anyone: drive its generator here
        const gen = this.runFunction(fr, g.mask, depth, from, join);
        for (let r = gen.next(); !r.done; r = gen.next()) {
          // unreachable: runFunction throws ForkBlocked instead of yielding while forking
        }
      } catch (e) {
        if (e instanceof ForkBlocked) refuse(`a side waits for other warps (${e.message}) before the sides meet again`);
        throw e;
      } finally {
        this.forkDepth--;
      }
      if (!this.joined) refuse('a side does not come back to where the sides meet (it returns or exits)');
      const events = this.events.splice(n);
      this.budget.events -= events.length;
      // the registers of this frame the side wrote, with their values at its end
      const regs = new Map<number, Val>();
      for (let i = mark; i < this.journal.length; i++) {
        const e = this.journal[i];
        if (e && e.regs === fr.regs) regs.set(e.slot, fr.regs[e.slot] ?? UNINIT);
      }
      return { ...this.snapshot(), events, regs };
    };
    const taken = side(target.ref.index);
    const fallthrough = side(g.pc + 1);
    if (taken.live !== fallthrough.live) refuse('lanes exit on one side only');
    if (taken.ampere !== fallthrough.ampere) refuse('its sides leave different Ampere cp.async copies or groups pending');
    // the same synchronization on both sides; the accesses of either (fork-events.ts)
    const joined =
      joinSides(taken.events, fallthrough.events) ??
      this.joinWithoutInvals(taken.events, fallthrough.events) ??
      refuse(`its sides synchronize differently (${describeEvents(taken.events)} / ${describeEvents(fallthrough.events)})`);
    // join: the fall-through side's state (the same synchronization), one copy of its events, and
    // the registers and memory the sides disagree on unknown
    const unknown = new Unknown(`a value that depends on the branch on data at line ${ins.loc.line}`, undefined, why.origin ?? why.why);
    // a register only the fall-through side wrote had, on the taken side, its value from before the branch
    const before = new Map<number, Val>();
    for (let i = mark; i < this.journal.length; i++) {
      const e = this.journal[i];
      if (e && e.regs === fr.regs && !before.has(e.slot)) before.set(e.slot, e.old);
    }
    if (this.forkDepth === 0) this.journal.length = 0;
    for (const slot of new Set([...taken.regs.keys(), ...fallthrough.regs.keys()])) {
      const y = fr.regs[slot] ?? UNINIT;
      const x = taken.regs.get(slot) ?? before.get(slot) ?? y;
      if (sameVal(x, y)) continue;
      // inside a side of an enclosing branch, the join is one more write that side may undo
      if (this.forkDepth > 0) this.journal.push({ regs: fr.regs, slot, old: y });
      fr.regs[slot] = unknown;
    }
    for (const [base, cells] of this.mem) {
      const other = taken.mem.get(base);
      for (const [off, c] of cells) {
        const o = other?.get(off);
        if (!o || o.bytes !== c.bytes || !sameVal(o.v, c.v)) cells.set(off, { v: unknown, bytes: c.bytes });
      }
    }
    const smem = this.sim.cta(this.cta).smem;
    for (const [addr, c] of fallthrough.smem) {
      const o = taken.smem.get(addr);
      if (!o || o.bytes !== c.bytes || !sameVal(o.v, c.v)) smem.store(addr, c.bytes, undefined);
    }
    for (const [addr, c] of taken.smem) if (!fallthrough.smem.has(addr)) smem.store(addr, c.bytes, undefined);
    // the fall-through side ran last: a load is over after the branch only if it is on both sides
    this.loads.join(taken.loads);
    for (const e of joined) this.event(e);
    g.pc = join;
    yield* [];
  }

  /**
   * Sides that differ only in mbarrier.inval: a teardown that the last thread out runs, elected by
   * data (libcu++'s cuda::pipeline: each warp subtracts its threads from a shared count with
   * `atom.add`, and the one that takes it to 0 invalidates the stage barriers). Which warp that
   * is depends on timing, so no side can stand for every run: the invals are left out (an inval
   * never blocks, so no hang or race of the rest is hidden) and the report says so.
   */
  private joinWithoutInvals(taken: readonly WarpEvent[], fallthrough: readonly WarpEvent[]): WarpEvent[] | undefined {
    const invals = [...taken, ...fallthrough].filter((e) => e.k === 'inval');
    if (invals.length === 0) return undefined;
    const joined = joinSides(
      taken.filter((e) => e.k !== 'inval'),
      fallthrough.filter((e) => e.k !== 'inval'),
    );
    if (joined) for (const e of invals) this.sim.droppedInvals.add(e.loc.line);
    return joined;
  }

  /** Everything a side of a branch on data may change but the registers (those are journaled). */
  private snapshot(): Snapshot {
    return { mem: cloneMem(this.mem), smem: this.sim.cta(this.cta).smem.snapshot(), sync: this.sim.snapshot(), live: this.live, loads: this.loads.snapshot(), ampere: this.ampere.key() };
  }

  /** Undo the register writes journaled since `mark`, latest first. */
  private undo(mark: number): void {
    while (this.journal.length > mark) {
      const e = this.journal.pop();
      if (e) e.regs[e.slot] = e.old;
    }
  }

  private restore(s: Snapshot): void {
    this.mem.clear();
    for (const [k, v] of cloneMem(s.mem)) this.mem.set(k, v);
    this.sim.cta(this.cta).smem.restore(s.smem);
    this.sim.restore(s.sync);
    this.live = s.live;
    this.loads.restore(s.loads);
    this.ampere.restore(s.ampere);
  }
}

/** Nested branches on data the lifter follows both ways (each level doubles the work). */
const MAX_FORK_DEPTH = 12;

interface Snapshot {
  readonly mem: Map<string, Map<bigint, MemCell>>;
  readonly smem: Map<number, { bytes: number; v: Val }>;
  readonly sync: string;
  readonly live: number;
  readonly loads: LoadsState;
  /** the Ampere cp.async copies not yet known complete (ampere-copies.ts) */
  readonly ampere: string;
}

function cloneMem(m: ReadonlyMap<string, Map<bigint, MemCell>>): Map<string, Map<bigint, MemCell>> {
  const out = new Map<string, Map<bigint, MemCell>>();
  for (const [k, cells] of m) out.set(k, new Map([...cells].map(([o, c]) => [o, { ...c }] as const)));
  return out;
}

function sameVal(a: Val, b: Val): boolean {
  if (isLanes(a) || isLanes(b)) {
    if (!isLanes(a) || !isLanes(b)) return false;
    for (let l = 0; l < WARP; l++) if (!sameScalar(a[l] ?? UNINIT, b[l] ?? UNINIT)) return false;
    return true;
  }
  return sameScalar(a, b);
}

/** Events compared without their source positions (the same synchronization from two code paths is the same). */
function describeEvents(events: readonly WarpEvent[]): string {
  if (events.length === 0) return 'nothing';
  const kinds = events.map((e) => `${e.k} (line ${e.loc.line})`);
  return kinds.length > 3 ? `${kinds.slice(0, 3).join(', ')}, …` : kinds.join(', ');
}

