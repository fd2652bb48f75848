// Concrete execution of one warp of one CTA over flattened PTX.
//
// Lanes: a register holds one Scalar while all live lanes agree and a 32-lane vector only
// where they differ, so uniform code (loop counters, barrier addresses) runs once per warp
// and only %tid-derived values are computed per lane. Divergence: the warp is a set of
// (pc, lane mask) groups; the group with the smallest pc runs next and groups that reach
// the same pc merge again (min-pc reconvergence; exact for the structured code compilers
// emit, and a spin loop of one lane simply runs to its exit before the others go on).
//
// Only synchronization is recorded (events.ts); data values are tracked as far as control
// flow and addresses need them. A branch on an unknown value is refused.
import type { Loc } from '../../ir/program.ts';
import type { ParamDecl } from '../parse/ast.ts';
import {
  bfe, bfi, binary, boolOp, compare, convert, cvta, fit, lop3, mad, notPred, prmt, select, shf, symReason, u, unary,
} from './alu.ts';
import { UnsupportedError } from './errors.ts';
import type { WarpEvent } from './events.ts';
import type { Arg, FlatFunction, FlatInstr } from './flatten.ts';
import { opType, stateSpace, typeBytes, type Opcode } from './opcode.ts';
import {
  canonical, firstLane, isLanes, laneOf, popcount, SHARED_GENERIC_BASE, SHARED_WINDOW, scalarKey, SymAddr, UNINIT, Unknown,
  WARP, type Lanes, type Scalar, type Val,
} from './values.ts';

export interface Launch {
  /** Block dimensions (x, y, z). */
  readonly block: readonly [number, number, number];
  readonly cta: readonly [number, number, number];
}

export interface InterpOptions {
  /** Kernel parameter values by name, or by position as a decimal string ("0", "1", …). */
  readonly params: ReadonlyMap<string, number | bigint>;
  /** Budget of executed instructions for the whole CTA (all warps). */
  readonly maxSteps: number;
}

interface Frame {
  readonly fn: FlatFunction;
  readonly regs: Val[];
  readonly id: number;
}

interface MemCell {
  v: Val;
  readonly bytes: number;
}

const MAX_CALL_DEPTH = 64;
/** Shared memory per CTA on sm_90 is 228 KiB; anything larger is not a shared-memory copy. */
const MAX_SMEM = 1 << 20;
const FULL = 0xffffffff;

/** Instructions whose effect the model needs: refusing them on an unknown guard is safer than skipping. */
const SYNC_BASES = new Set(['mbarrier', 'cp', 'wgmma', 'bar', 'barrier', 'fence', 'st', 'stmatrix', 'atom', 'red', 'call', 'ret', 'exit', 'trap']);

export class CtaBudget {
  steps = 0;
  readonly max: number;
  constructor(max: number) {
    this.max = max;
  }
}

export class WarpInterp {
  readonly events: WarpEvent[] = [];
  private live: number;
  private readonly mem = new Map<string, Map<bigint, MemCell>>();
  private readonly sregs = new Map<string, Val>();
  private nextFrame = 1;

  private readonly warp: number;
  private readonly kernel: FlatFunction;
  private readonly functions: ReadonlyMap<string, FlatFunction>;
  private readonly options: InterpOptions;
  private readonly budget: CtaBudget;

  constructor(warp: number, kernel: FlatFunction, functions: ReadonlyMap<string, FlatFunction>, launch: Launch, options: InterpOptions, budget: CtaBudget) {
    this.warp = warp;
    this.kernel = kernel;
    this.functions = functions;
    this.options = options;
    this.budget = budget;
    const [bx, by, bz] = launch.block;
    const threads = bx * by * bz;
    let live = 0;
    const tx: Scalar[] = [];
    const ty: Scalar[] = [];
    const tz: Scalar[] = [];
    const laneid: Scalar[] = [];
    for (let l = 0; l < WARP; l++) {
      const t = warp * WARP + l;
      if (t < threads) live |= 1 << l;
      tx.push(BigInt(t % bx));
      ty.push(BigInt(Math.floor(t / bx) % by));
      tz.push(BigInt(Math.floor(t / (bx * by)) % Math.max(1, bz)));
      laneid.push(BigInt(l));
    }
    this.live = live >>> 0;
    const lanes = (xs: Scalar[]): Val => canonical(xs, this.live);
    this.sregs.set('%tid.x', lanes(tx));
    this.sregs.set('%tid.y', lanes(ty));
    this.sregs.set('%tid.z', lanes(tz));
    this.sregs.set('%laneid', lanes(laneid));
    this.sregs.set('%ntid.x', BigInt(bx));
    this.sregs.set('%ntid.y', BigInt(by));
    this.sregs.set('%ntid.z', BigInt(bz));
    this.sregs.set('%ctaid.x', BigInt(launch.cta[0]));
    this.sregs.set('%ctaid.y', BigInt(launch.cta[1]));
    this.sregs.set('%ctaid.z', BigInt(launch.cta[2]));
    this.sregs.set('%warpid', BigInt(warp));
    this.sregs.set('%nwarpid', BigInt(Math.ceil(threads / WARP)));
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
    for (const s of ['%cluster_ctarank', '%cluster_ctaid.x', '%cluster_ctaid.y', '%cluster_ctaid.z', '%clusterid.x', '%clusterid.y', '%clusterid.z']) this.sregs.set(s, 0n);
    for (const s of ['%cluster_nctarank', '%cluster_nctaid.x', '%cluster_nctaid.y', '%cluster_nctaid.z']) this.sregs.set(s, 1n);
  }

  /** Run the kernel for this warp; returns its events. */
  run(): WarpEvent[] {
    if (this.live === 0) return this.events;
    const frame: Frame = { fn: this.kernel, regs: new Array<Val>(this.kernel.nslots).fill(UNINIT), id: 0 };
    this.bindKernelParams(this.kernel.fn.params);
    this.runFunction(frame, this.live, 0);
    return this.events;
  }

  // ---- parameters and frame memory --------------------------------------------------------

  private bindKernelParams(params: readonly ParamDecl[]): void {
    params.forEach((p, i) => {
      const given = this.options.params.get(p.name) ?? this.options.params.get(String(i));
      const bytes = typeBytes(p.type) || 8;
      if (p.elements !== undefined) return; // byte arrays (tensor maps, structs): contents unknown
      let v: Scalar;
      if (given !== undefined) v = u(BigInt(given), bytes * 8);
      else if (bytes >= 8) v = new SymAddr(`ptr:${p.name}`, 0n);
      else v = new Unknown(`param ${p.name}, which was not given (use --param ${p.name}=…)`);
      this.memCells(`f0:${p.name}`).set(0n, { v, bytes });
    });
  }

  private memCells(base: string): Map<bigint, MemCell> {
    let m = this.mem.get(base);
    if (!m) {
      m = new Map();
      this.mem.set(base, m);
    }
    return m;
  }

  private memLoad(a: SymAddr, bytes: number): Val {
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
    const name = a.base.replace(/^f\d+:/, '').replace(/^ptr:/, '');
    return new Unknown(`the contents of ${name}${a.offset ? `+${a.offset}` : ''}`);
  }

  private memStore(a: SymAddr, v: Val, bytes: number, mask: number): void {
    const cells = this.memCells(a.base);
    const old = cells.get(a.offset);
    const prev: Val = old && old.bytes === bytes ? old.v : UNINIT;
    cells.set(a.offset, { v: this.merge(prev, v, mask), bytes });
  }

  // ---- values -----------------------------------------------------------------------------

  private read(fr: Frame, a: Arg): Val {
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

  private address(fr: Frame, a: Arg): Val {
    if (a.k !== 'mem') return this.read(fr, a);
    if (!a.base) return a.offset;
    const b = this.read(fr, a.base);
    if (a.offset === 0n) return b;
    const add = (x: Scalar): Scalar =>
      typeof x === 'bigint' ? x + a.offset : x instanceof SymAddr ? new SymAddr(x.base, x.offset + a.offset) : x;
    return isLanes(b) ? b.map(add) : add(b);
  }

  /** Merge `v` into `old` on the lanes of `mask`. */
  private merge(old: Val, v: Val, mask: number): Val {
    const live = this.live;
    if (((mask & live) >>> 0) === live) return isLanes(v) ? canonical(v, live) : v;
    if (!isLanes(old) && !isLanes(v) && (old === v || (typeof old === 'bigint' && old === v))) return old;
    const out: Scalar[] = new Array<Scalar>(WARP);
    for (let l = 0; l < WARP; l++) out[l] = (mask >>> l) & 1 ? laneOf(v, l) : laneOf(old, l);
    return canonical(out, live);
  }

  private write(fr: Frame, a: Arg | undefined, v: Val, mask: number): void {
    if (!a) return;
    if (a.k === 'reg') fr.regs[a.slot] = this.merge(fr.regs[a.slot] ?? UNINIT, v, mask);
    else if (a.k === 'vec') for (const item of a.items) this.write(fr, item, v, mask);
    else if (a.k === 'pair') this.write(fr, a.first, v, mask);
  }

  /** f on each active lane where an input varies, once otherwise. */
  private map(mask: number, ins: readonly Val[], f: (xs: Scalar[]) => Scalar): Val {
    if (!ins.some(isLanes)) return f(ins as Scalar[]);
    const out: Scalar[] = new Array<Scalar>(WARP).fill(UNINIT);
    for (let l = 0; l < WARP; l++) if ((mask >>> l) & 1) out[l] = f(ins.map((v) => laneOf(v, l)));
    return out;
  }

  private unknownResult(ins: FlatInstr): Unknown {
    return new Unknown(`the result of '${ins.op.text}' at line ${ins.loc.line}`);
  }

  /** Destinations of an instruction the lifter does not model become unknown. */
  private clobber(fr: Frame, ins: FlatInstr, mask: number): void {
    const d = ins.args[0];
    if (d && (d.k === 'reg' || d.k === 'vec' || d.k === 'pair')) {
      const u0 = this.unknownResult(ins);
      this.write(fr, d, u0, mask);
      if (d.k === 'pair') this.write(fr, d.second, u0, mask);
    }
  }

  // ---- errors -----------------------------------------------------------------------------

  private why(x: Scalar): string {
    if (x instanceof Unknown) return x.why;
    if (x instanceof SymAddr) return symReason(x);
    return 'a value';
  }

  private unsupported(msg: string, loc: Loc): never {
    throw new UnsupportedError(msg, loc);
  }

  /** A known integer operand of a sync instruction. */
  private known(x: Scalar, what: string, ins: FlatInstr): number {
    if (typeof x === 'bigint') return Number(x);
    this.unsupported(`${what} of '${ins.op.text}' at line ${ins.loc.line} depends on ${this.why(x)}`, ins.loc);
  }

  /** The byte count of a bulk copy: known, and small enough for shared memory. */
  private bytesOf(x: Scalar, ins: FlatInstr): number {
    const n = this.known(x, 'the byte count', ins);
    if (n <= 0 || n > MAX_SMEM) this.unsupported(`'${ins.op.text}' at line ${ins.loc.line} copies ${n} bytes, which cannot be in shared memory (at most ${MAX_SMEM})`, ins.loc);
    return n;
  }

  /** A shared-window byte offset from an address operand (generic addresses are converted). */
  private smem(x: Scalar, ins: FlatInstr, what: string): number {
    if (typeof x === 'bigint') {
      if (x >= SHARED_GENERIC_BASE && x < SHARED_GENERIC_BASE + SHARED_WINDOW) return Number(x - SHARED_GENERIC_BASE);
      if (x >= 0n && x < SHARED_WINDOW) return Number(x);
    }
    const reason = typeof x === 'bigint' ? `an address outside shared memory (${x})` : this.why(x);
    this.unsupported(`the ${what} address of '${ins.op.text}' at line ${ins.loc.line} depends on ${reason}`, ins.loc);
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

  private runFunction(fr: Frame, entry: number, depth: number): number {
    const code = fr.fn.code;
    const groups: { pc: number; mask: number }[] = [{ pc: 0, mask: entry >>> 0 }];
    let exited = 0;
    const isKernel = depth === 0;
    while (groups.length > 0) {
      let gi = 0;
      for (let i = 1; i < groups.length; i++) if ((groups[i]?.pc ?? 0) < (groups[gi]?.pc ?? 0)) gi = i;
      const g = groups[gi];
      if (!g) break;
      const ins = code[g.pc];
      if (!ins || g.mask === 0) {
        groups.splice(gi, 1);
        continue;
      }
      if (++this.budget.steps > this.budget.max) {
        this.unsupported(
          `execution stopped after ${this.budget.max} instructions in warp ${this.warp}, at line ${ins.loc.line} (an endless loop, or --param values too large for the lifter)`,
          ins.loc,
        );
      }
      let m = g.mask;
      if (ins.guard >= 0) {
        const gm = this.guardMask(fr, ins, g.mask);
        if (gm instanceof Unknown) {
          if (ins.op.base === 'bra' || ins.op.base === 'brx') {
            this.unsupported(`branch on loaded data at line ${ins.loc.line}: the condition depends on ${gm.why}`, ins.loc);
          }
          if (SYNC_BASES.has(ins.op.base)) {
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
            g.pc++;
            groups.push({ pc: target.ref.index, mask: m });
          }
          break;
        }
        case 'brx':
          this.unsupported(`indirect branch '${ins.op.text}' at line ${ins.loc.line}`, ins.loc);
        // falls through: unsupported() never returns
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
          if (m !== 0) this.unsupported(`the kernel executes trap at line ${ins.loc.line} with these parameters (it would abort)`, ins.loc);
          g.pc++;
          break;
        case 'call': {
          if (m !== 0) {
            const ex = this.call(fr, ins, m, depth);
            if (ex) {
              exited = (exited | ex) >>> 0;
              g.mask = (g.mask & ~ex) >>> 0;
            }
          }
          g.pc++;
          break;
        }
        default:
          if (m !== 0) this.exec(fr, ins, m);
          g.pc++;
      }
      mergeGroups(groups);
    }
    return exited;
  }

  private call(fr: Frame, ins: FlatInstr, mask: number, depth: number): number {
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
    const exited = this.runFunction(cf, mask, depth + 1);
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

  // ---- instructions -----------------------------------------------------------------------

  private exec(fr: Frame, ins: FlatInstr, m: number): void {
    const op = ins.op;
    const a = ins.args;
    const line = ins.loc.line;
    const r = (i: number): Val => {
      const x = a[i];
      return x ? this.read(fr, x) : new Unknown('a missing operand');
    };
    switch (op.base) {
      case 'mov':
        return this.mov(fr, ins, m);
      case 'add': case 'sub': case 'and': case 'or': case 'xor': case 'shl': case 'shr':
      case 'min': case 'max': case 'div': case 'rem': case 'mul': case 'mul24': {
        if (opType(op).name === 'pred') {
          this.write(fr, a[0], this.map(m, [r(1), r(2)], ([x = UNINIT, y = UNINIT]) => boolOp(op.base, x, y)), m);
        } else {
          this.write(fr, a[0], this.map(m, [r(1), r(2)], ([x = UNINIT, y = UNINIT]) => binary(op, x, y, line)), m);
        }
        return;
      }
      case 'mad': case 'mad24':
        this.write(fr, a[0], this.map(m, [r(1), r(2), r(3)], ([x = UNINIT, y = UNINIT, z = UNINIT]) => mad(op, x, y, z, line)), m);
        return;
      case 'not': case 'cnot': case 'neg': case 'abs': case 'popc': case 'clz': case 'brev': case 'bfind':
        if (opType(op).name === 'pred' && op.base === 'not') this.write(fr, a[0], this.map(m, [r(1)], ([x = UNINIT]) => notPred(x)), m);
        else this.write(fr, a[0], this.map(m, [r(1)], ([x = UNINIT]) => unary(op, x, line)), m);
        return;
      case 'setp':
        return this.setp(fr, ins, m);
      case 'selp':
        this.write(fr, a[0], this.map(m, [r(1), r(2), r(3)], ([x = UNINIT, y = UNINIT, c = UNINIT]) => fit(select(x, y, c), opType(op))), m);
        return;
      case 'cvt':
        this.write(fr, a[0], this.map(m, [r(1)], ([x = UNINIT]) => convert(op, x, line)), m);
        return;
      case 'cvta':
        this.write(fr, a[0], this.map(m, [r(1)], ([x = UNINIT]) => cvta(op, x)), m);
        return;
      case 'bfe':
        this.write(fr, a[0], this.map(m, [r(1), r(2), r(3)], ([x = UNINIT, y = UNINIT, z = UNINIT]) => bfe(op, x, y, z)), m);
        return;
      case 'bfi':
        this.write(fr, a[0], this.map(m, [r(1), r(2), r(3), r(4)], ([w = UNINIT, x = UNINIT, y = UNINIT, z = UNINIT]) => bfi(op, w, x, y, z)), m);
        return;
      case 'lop3':
        this.write(fr, a[0], this.map(m, [r(1), r(2), r(3), r(4)], ([w = UNINIT, x = UNINIT, y = UNINIT, z = UNINIT]) => lop3(w, x, y, z)), m);
        return;
      case 'prmt':
        this.write(fr, a[0], this.map(m, [r(1), r(2), r(3)], ([x = UNINIT, y = UNINIT, z = UNINIT]) => (op.parts.length > 1 ? this.unknownResult(ins) : prmt(x, y, z))), m);
        return;
      case 'shf':
        this.write(fr, a[0], this.map(m, [r(1), r(2), r(3)], ([x = UNINIT, y = UNINIT, z = UNINIT]) => shf(op, x, y, z)), m);
        return;
      case 'ld': case 'ldu':
        return this.load(fr, ins, m);
      case 'st':
        if (op.mods.has('async')) this.unsupported(`'${op.text}' at line ${line} (remote shared-memory stores with mbarrier completion)`, ins.loc);
        return this.store(fr, ins, m);
      case 'atom': case 'red':
        if (op.mods.has('async')) this.unsupported(`'${op.text}' at line ${line} (remote shared-memory reductions with mbarrier completion)`, ins.loc);
        return this.atomic(fr, ins, m);
      case 'stmatrix':
        this.smemRange(fr, ins, m, a[0], 16, 'write');
        return;
      case 'ldmatrix':
        this.smemRange(fr, ins, m, a[1], 16, 'read');
        this.clobber(fr, ins, m);
        return;
      case 'cp':
        return this.copy(fr, ins, m);
      case 'mbarrier':
        return this.mbarrier(fr, ins, m);
      case 'wgmma':
        return this.wgmma(fr, ins, m);
      case 'bar': case 'barrier':
        return this.barrier(fr, ins, m);
      case 'fence':
        if (op.parts[0] === 'proxy' && op.parts[1] === 'async') this.events.push({ k: 'fence.proxy.async', loc: ins.loc });
        return;
      case 'elect':
        return this.elect(fr, ins, m);
      case 'shfl':
        return this.shfl(fr, ins, m);
      case 'vote':
        return this.vote(fr, ins, m);
      case 'activemask':
        this.write(fr, a[0], BigInt(m >>> 0), m);
        return;
      case 'redux':
        return this.redux(fr, ins, m);
      case 'getctarank':
        this.write(fr, a[0], 0n, m);
        return;
      case 'mapa':
        // one CTA per cluster: rank 0 is this CTA, so its shared::cluster address is the address itself
        this.write(fr, a[0], this.map(m, [r(1), r(2)], ([x = UNINIT, rank = UNINIT]) =>
          rank === 0n ? x : new Unknown(`an address in another CTA of the cluster ('${op.text}' at line ${line})`)), m);
        return;
      case 'tcgen05':
        this.unsupported(`'${op.text}' at line ${line} (Blackwell tcgen05 is not modelled)`, ins.loc);
      // falls through: unsupported() never returns
      case 'membar': case 'setmaxnreg': case 'griddepcontrol': case 'nanosleep': case 'prefetch': case 'prefetchu':
      case 'pmevent': case 'applypriority': case 'discard': case 'tensormap':
        return;
      default:
        this.clobber(fr, ins, m);
    }
  }

  private mov(fr: Frame, ins: FlatInstr, m: number): void {
    const [d, s0] = ins.args;
    if (!d || !s0) return;
    const t = opType(ins.op);
    if (d.k === 'vec' && s0.k !== 'vec') {
      // unpack: mov.b64 {%r1, %r2}, %rd
      const src = this.read(fr, s0);
      const n = d.items.length;
      const eb = t.bits / n;
      d.items.forEach((item, i) => {
        this.write(fr, item, this.map(m, [src], ([x = UNINIT]) => (typeof x === 'bigint' ? u(x >> BigInt(eb * i), eb) : x instanceof Unknown ? x : this.unknownResult(ins))), m);
      });
      return;
    }
    if (s0.k === 'vec' && d.k !== 'vec') {
      const vals = s0.items.map((x) => this.read(fr, x));
      const eb = t.bits / Math.max(1, vals.length);
      this.write(fr, d, this.map(m, vals, (xs) => {
        let out = 0n;
        for (let i = 0; i < xs.length; i++) {
          const x = xs[i] ?? UNINIT;
          if (typeof x !== 'bigint') return x instanceof Unknown ? x : this.unknownResult(ins);
          out |= u(x, eb) << BigInt(eb * i);
        }
        return out;
      }), m);
      return;
    }
    if (s0.k === 'label' || s0.k === 'func') {
      this.write(fr, d, this.unknownResult(ins), m);
      return;
    }
    const v = this.read(fr, s0);
    this.write(fr, d, isLanes(v) ? v.map((x) => fit(x, t)) : fit(v, t), m);
  }

  private setp(fr: Frame, ins: FlatInstr, m: number): void {
    const [d, a0, b0, c0] = ins.args;
    if (!d || !a0 || !b0) return;
    const comb = ins.op.parts[1];
    const combine = comb === 'and' || comb === 'or' || comb === 'xor' ? comb : undefined;
    const x = this.read(fr, a0);
    const y = this.read(fr, b0);
    const c = c0 && combine ? this.read(fr, c0) : undefined;
    const line = ins.loc.line;
    const p = this.map(m, c ? [x, y, c] : [x, y], ([xa = UNINIT, ya = UNINIT, ca]) => {
      const r0 = compare(ins.op, xa, ya, line);
      return ca !== undefined && combine ? boolOp(combine, r0, ca) : r0;
    });
    if (d.k === 'pair') {
      const q = this.map(m, c ? [x, y, c] : [x, y], ([xa = UNINIT, ya = UNINIT, ca]) => {
        const r0 = notPred(compare(ins.op, xa, ya, line));
        return ca !== undefined && combine ? boolOp(combine, r0, ca) : r0;
      });
      this.write(fr, d.first, p, m);
      this.write(fr, d.second, q, m);
    } else {
      this.write(fr, d, p, m);
    }
  }

  /** Per-lane byte addresses of an address operand, all known and in shared memory. */
  private smemLanes(fr: Frame, ins: FlatInstr, m: number, addrArg: Arg | undefined): number[] {
    if (!addrArg) this.unsupported(`missing address in '${ins.op.text}' at line ${ins.loc.line}`, ins.loc);
    const v = this.address(fr, addrArg);
    if (!isLanes(v)) return [this.smem(v, ins, 'shared-memory')];
    const out: number[] = [];
    for (let l = 0; l < WARP; l++) if ((m >>> l) & 1) out.push(this.smem(v[l] ?? UNINIT, ins, 'shared-memory'));
    return out;
  }

  private smemRange(fr: Frame, ins: FlatInstr, m: number, addrArg: Arg | undefined, bytes: number, kind: 'read' | 'write'): void {
    const addrs = this.smemLanes(fr, ins, m, addrArg);
    let lo = Infinity;
    let hi = -Infinity;
    for (const x of addrs) {
      if (x < lo) lo = x;
      if (x + bytes > hi) hi = x + bytes;
    }
    if (lo < hi) this.events.push({ k: kind, lo, hi, loc: ins.loc });
  }

  /** Which memory an address operand points to, per its state space and value. */
  private classify(op: Opcode, v: Val): 'shared' | 'frame' | 'global' {
    const space = stateSpace(op);
    if (space === 'shared') return 'shared';
    if (space === 'global' || space === 'const') return 'global';
    if (space === 'param' || space === 'local') return 'frame';
    const x = isLanes(v) ? (v.find((e) => !(e instanceof Unknown)) ?? UNINIT) : v;
    if (x instanceof SymAddr) return x.base.startsWith('f') ? 'frame' : 'global';
    if (typeof x === 'bigint' && x >= SHARED_GENERIC_BASE && x < SHARED_GENERIC_BASE + SHARED_WINDOW) return 'shared';
    return 'global';
  }

  private load(fr: Frame, ins: FlatInstr, m: number): void {
    const [d, addrArg] = ins.args;
    if (!d || !addrArg) return;
    const eb = typeBytes(opType(ins.op).name) || 4;
    const n = ins.op.vector;
    const addr = this.address(fr, addrArg);
    const where = this.classify(ins.op, addr);
    if (where === 'shared') {
      this.smemRange(fr, ins, m, addrArg, eb * n, 'read');
      this.write(fr, d, new Unknown(`shared-memory data loaded at line ${ins.loc.line}`), m);
      return;
    }
    if (where === 'global') {
      this.write(fr, d, new Unknown(`data loaded at line ${ins.loc.line}`), m);
      return;
    }
    const items = d.k === 'vec' ? d.items : [d];
    items.forEach((item, i) => {
      const v = this.map(m, [addr], ([x = UNINIT]) => {
        if (x instanceof SymAddr) {
          const got = this.memLoad(new SymAddr(x.base, x.offset + BigInt(i * eb)), eb);
          return isLanes(got) ? laneOf(got, 0) : got;
        }
        return new Unknown(`data loaded at line ${ins.loc.line}`);
      });
      // a uniform address may hold a per-lane value (local memory): keep its lanes
      if (!isLanes(addr)) {
        const x = addr;
        if (x instanceof SymAddr) {
          this.write(fr, item, this.memLoad(new SymAddr(x.base, x.offset + BigInt(i * eb)), eb), m);
          return;
        }
      }
      this.write(fr, item, v, m);
    });
  }

  private store(fr: Frame, ins: FlatInstr, m: number): void {
    const [addrArg, src] = ins.args;
    if (!addrArg || !src) return;
    const eb = typeBytes(opType(ins.op).name) || 4;
    const n = ins.op.vector;
    const addr = this.address(fr, addrArg);
    const where = this.classify(ins.op, addr);
    if (where === 'shared') {
      this.smemRange(fr, ins, m, addrArg, eb * n, 'write');
      return;
    }
    if (where === 'global') return;
    const items = src.k === 'vec' ? src.items : [src];
    items.forEach((item, i) => {
      const v = this.read(fr, item);
      if (!isLanes(addr)) {
        if (addr instanceof SymAddr) this.memStore(new SymAddr(addr.base, addr.offset + BigInt(i * eb)), v, eb, m);
        return;
      }
      for (let l = 0; l < WARP; l++) {
        const x = addr[l];
        if ((m >>> l) & 1 && x instanceof SymAddr) this.memStore(new SymAddr(x.base, x.offset + BigInt(i * eb)), laneOf(v, l), eb, 1 << l);
      }
    });
  }

  private atomic(fr: Frame, ins: FlatInstr, m: number): void {
    const hasDest = ins.op.base === 'atom';
    const addrArg = ins.args[hasDest ? 1 : 0];
    const eb = typeBytes(opType(ins.op).name) || 4;
    if (addrArg && this.classify(ins.op, this.address(fr, addrArg)) === 'shared') this.smemRange(fr, ins, m, addrArg, eb, 'write');
    if (hasDest) this.clobber(fr, ins, m);
  }

  // ---- synchronization --------------------------------------------------------------------

  /** Group the active lanes by the values of some operands: one group per distinct tuple, in lane order. */
  private laneGroups(m: number, vals: readonly Val[]): { lane: number; n: number; xs: Scalar[] }[] {
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

  private mbarrier(fr: Frame, ins: FlatInstr, m: number): void {
    const op = ins.op;
    const a = ins.args;
    const action = op.parts[0];
    const r = (i: number): Val => {
      const x = a[i];
      return x ? this.read(fr, x) : new Unknown('a missing operand');
    };
    const addr = (i: number): Val => {
      const x = a[i];
      if (!x) this.unsupported(`missing barrier address in '${op.text}' at line ${ins.loc.line}`, ins.loc);
      return this.address(fr, x);
    };
    const loc = ins.loc;
    switch (action) {
      case 'init':
        for (const g of this.laneGroups(m, [addr(0), r(1)])) {
          const bar = this.smem(g.xs[0] ?? UNINIT, ins, 'barrier');
          this.events.push({ k: 'init', bar, count: this.known(g.xs[1] ?? UNINIT, 'the count', ins), threads: g.n, loc });
        }
        return;
      case 'inval':
        for (const g of this.laneGroups(m, [addr(0)])) this.events.push({ k: 'inval', bar: this.smem(g.xs[0] ?? UNINIT, ins, 'barrier'), threads: g.n, loc });
        return;
      case 'arrive': {
        if (op.mods.has('expect_tx')) {
          for (const g of this.laneGroups(m, [addr(1), r(2)])) {
            const bar = this.smem(g.xs[0] ?? UNINIT, ins, 'barrier');
            this.events.push({ k: 'arrive.expect_tx', bar, bytes: this.known(g.xs[1] ?? UNINIT, 'the byte count', ins), threads: g.n, loc });
          }
        } else {
          const hasCount = a.length >= 3;
          for (const g of this.laneGroups(m, hasCount ? [addr(1), r(2)] : [addr(1)])) {
            const bar = this.smem(g.xs[0] ?? UNINIT, ins, 'barrier');
            const count = hasCount ? this.known(g.xs[1] ?? UNINIT, 'the arrival count', ins) : 1;
            this.events.push({ k: 'arrive', bar, count: count * g.n, loc });
          }
        }
        this.write(fr, a[0], new Unknown(`the mbarrier state token of line ${ins.loc.line}`), m);
        return;
      }
      case 'arrive_drop':
        this.unsupported(`'${op.text}' at line ${ins.loc.line} (arrive_drop changes the expected count; not modelled)`, loc);
      // falls through: unsupported() never returns
      case 'expect_tx':
      case 'complete_tx':
        for (const g of this.laneGroups(m, [addr(0), r(1)])) {
          const bar = this.smem(g.xs[0] ?? UNINIT, ins, 'barrier');
          this.events.push({ k: action, bar, bytes: this.known(g.xs[1] ?? UNINIT, 'the byte count', ins) * g.n, loc });
        }
        return;
      case 'try_wait':
      case 'test_wait': {
        if (!op.mods.has('parity')) {
          this.unsupported(`'${op.text}' at line ${ins.loc.line} waits on a phase token; only the .parity form is modelled`, loc);
        }
        for (const g of this.laneGroups(m, [addr(1), r(2)])) {
          const bar = this.smem(g.xs[0] ?? UNINIT, ins, 'barrier');
          this.events.push({ k: 'wait', bar, parity: this.known(g.xs[1] ?? UNINIT, 'the parity', ins) & 1, loc });
        }
        // the spin loop around it exits: the wait is modelled as blocking until it succeeds
        this.write(fr, a[0], 1n, m);
        return;
      }
      default:
        this.clobber(fr, ins, m);
    }
  }

  private copy(fr: Frame, ins: FlatInstr, m: number): void {
    const op = ins.op;
    const p = op.parts;
    const line = ins.loc.line;
    const reduce = p[0] === 'reduce';
    const rest = reduce ? p.slice(1) : p;
    if (rest[0] !== 'async') return this.clobber(fr, ins, m);
    if (rest[1] !== 'bulk') {
      // Ampere cp.async: a shared-memory write, modelled at issue
      if (rest[1] === 'mbarrier') this.unsupported(`'${op.text}' at line ${line} (cp.async completion on an mbarrier is not modelled)`, ins.loc);
      if (rest[1] === 'ca' || rest[1] === 'cg') {
        const size = this.read(fr, ins.args[2] ?? { k: 'imm', v: 16n });
        this.smemRange(fr, ins, m, ins.args[0], typeof size === 'bigint' ? Number(size) : 16, 'write');
      }
      return;
    }
    const kind = rest[2];
    if (kind === 'commit_group') {
      this.events.push({ k: 'bulk.commit', loc: ins.loc });
      return;
    }
    if (kind === 'wait_group') {
      const n = this.read(fr, ins.args[0] ?? { k: 'imm', v: 0n });
      this.events.push({ k: 'bulk.wait', pending: this.known(isLanes(n) ? laneOf(n, firstLane(m)) : n, 'the group count', ins), loc: ins.loc });
      return;
    }
    if (kind === 'prefetch') return;
    const tensor = kind === 'tensor';
    const spaces = rest.filter((x) => /^(shared|global)/.test(x)).map((x) => x.split('::')[0]);
    const dst = spaces[0];
    const src = spaces[1];
    if (dst === 'shared' && src === 'shared') {
      this.unsupported(`'${op.text}' at line ${line} (shared-to-cluster bulk copies are not modelled)`, ins.loc);
    }
    const a = ins.args;
    if (dst === 'shared') {
      const dstV = this.address(fr, a[0] ?? { k: 'sink' });
      const srcArg = a[1];
      const srcV = srcArg?.k === 'mem' && srcArg.base ? this.read(fr, srcArg.base) : this.address(fr, srcArg ?? { k: 'sink' });
      const srcAddr = srcArg?.k === 'mem' && !tensor ? this.address(fr, srcArg) : srcV;
      const barV = this.address(fr, a[tensor ? 2 : 3] ?? { k: 'sink' });
      const sizeV = tensor ? 0n : this.read(fr, a[2] ?? { k: 'sink' });
      const coordArgs = srcArg?.k === 'mem' ? (srcArg.coords ?? []) : [];
      const coordVals = coordArgs.map((c) => this.read(fr, c));
      for (const g of this.laneGroups(m, [dstV, barV, sizeV, srcAddr, ...coordVals])) {
        const [d0 = UNINIT, b0 = UNINIT, s0 = UNINIT, src0 = UNINIT, ...cs] = g.xs;
        const dstAddr = this.smem(d0, ins, 'destination');
        const bar = this.smem(b0, ins, 'barrier');
        const bytes = tensor ? undefined : this.bytesOf(s0, ins);
        const map = tensor ? mapKey(src0) : undefined;
        const srcRef = !tensor && src0 instanceof SymAddr ? { base: src0.base, offset: Number(src0.offset) } : undefined;
        this.events.push({
          k: 'tma.load', dst: dstAddr, ...(bytes !== undefined ? { bytes } : {}), bar,
          ...(map !== undefined ? { map } : {}),
          ...(tensor ? { coords: cs.map((c) => (typeof c === 'bigint' ? Number(BigInt.asIntN(32, c)) : undefined)) } : {}),
          ...(srcRef ? { src: srcRef } : {}),
          lane: g.lane, copies: g.n, loc: ins.loc,
        });
      }
      return;
    }
    if (dst === 'global') {
      // TMA store / reduction: reads shared memory asynchronously
      const srcV = this.address(fr, a[1] ?? { k: 'sink' });
      const sizeV = tensor ? 0n : this.read(fr, a[2] ?? { k: 'sink' });
      for (const g of this.laneGroups(m, [srcV, sizeV])) {
        const [s0 = UNINIT, z0 = UNINIT] = g.xs;
        const srcAddr = this.smem(s0, ins, 'source');
        const bytes = tensor ? undefined : this.bytesOf(z0, ins);
        this.events.push({ k: 'tma.store', src: srcAddr, ...(bytes !== undefined ? { bytes } : {}), lane: g.lane, copies: g.n, loc: ins.loc });
      }
      return;
    }
    this.clobber(fr, ins, m);
  }

  private wgmma(fr: Frame, ins: FlatInstr, m: number): void {
    const kind = ins.op.parts[0];
    const lane = firstLane(m);
    if (kind === 'commit_group') {
      this.events.push({ k: 'wgmma.commit', loc: ins.loc });
    } else if (kind === 'wait_group') {
      const n = this.read(fr, ins.args[0] ?? { k: 'imm', v: 0n });
      this.events.push({ k: 'wgmma.wait', pending: this.known(laneOf(n, lane), 'the group count', ins), loc: ins.loc });
    } else if (kind === 'mma_async') {
      const addrs: number[] = [];
      for (const i of [1, 2]) {
        const arg = ins.args[i];
        if (!arg || arg.k === 'vec') continue; // A from registers
        const d = laneOf(this.read(fr, arg), lane);
        if (typeof d !== 'bigint') this.unsupported(`the shared-memory descriptor of '${ins.op.text}' at line ${ins.loc.line} depends on ${this.why(d)}`, ins.loc);
        addrs.push(Number((d & 0x3fffn) << 4n));
      }
      this.events.push({ k: 'mma', addrs, loc: ins.loc });
      this.clobber(fr, ins, m);
    }
  }

  private barrier(fr: Frame, ins: FlatInstr, m: number): void {
    const p = ins.op.parts;
    if (p.includes('warp') || p[0] === 'cluster') return;
    const red = p.includes('red');
    const arrive = p.includes('arrive');
    const a = ins.args;
    const idArg = a[red ? 1 : 0];
    const countArg = red ? (a.length >= 4 ? a[2] : undefined) : a[1];
    const lane = firstLane(m);
    const id = this.known(laneOf(this.read(fr, idArg ?? { k: 'imm', v: 0n }), lane), 'the barrier id', ins);
    const threads = countArg ? this.known(laneOf(this.read(fr, countArg), lane), 'the thread count', ins) : undefined;
    this.events.push({ k: arrive ? 'bar.arrive' : 'bar.sync', id, ...(threads !== undefined ? { threads } : {}), loc: ins.loc });
    if (red) this.clobber(fr, ins, m);
  }

  private elect(fr: Frame, ins: FlatInstr, m: number): void {
    const [d, maskArg] = ins.args;
    const mv = maskArg ? this.read(fr, maskArg) : BigInt(FULL);
    const member = typeof mv === 'bigint' ? Number(u(mv, 32)) : FULL;
    const leader = firstLane((m & member) >>> 0);
    const pred: Scalar[] = [];
    for (let l = 0; l < WARP; l++) pred.push(l === leader ? 1n : 0n);
    const pv = canonical(pred, this.live);
    if (d?.k === 'pair') {
      this.write(fr, d.first, BigInt(Math.max(0, leader)), m);
      this.write(fr, d.second, pv, m);
    } else {
      this.write(fr, d, pv, m);
    }
  }

  private shfl(fr: Frame, ins: FlatInstr, m: number): void {
    const [d, a0, b0, c0] = ins.args;
    const mode = ins.op.parts[1] === 'sync' ? ins.op.parts[2] : ins.op.parts[1];
    const av = a0 ? this.read(fr, a0) : UNINIT;
    const bv = b0 ? this.read(fr, b0) : UNINIT;
    const cv = c0 ? this.read(fr, c0) : UNINIT;
    const out: Scalar[] = new Array<Scalar>(WARP).fill(UNINIT);
    const inb: Scalar[] = new Array<Scalar>(WARP).fill(0n);
    for (let l = 0; l < WARP; l++) {
      if (((m >>> l) & 1) === 0) continue;
      const b = laneOf(bv, l);
      const c = laneOf(cv, l);
      if (typeof b !== 'bigint' || typeof c !== 'bigint') {
        out[l] = this.unknownResult(ins);
        continue;
      }
      const bval = Number(b & 31n);
      const cval = Number(c & 31n);
      const seg = Number((c >> 8n) & 31n);
      const maxLane = (l & seg) | (cval & ~seg);
      const minLane = l & seg;
      let j: number;
      let ok: boolean;
      if (mode === 'up') { j = l - bval; ok = j >= maxLane; }
      else if (mode === 'down') { j = l + bval; ok = j <= maxLane; }
      else if (mode === 'bfly') { j = l ^ bval; ok = j <= maxLane; }
      else { j = minLane | (bval & ~seg); ok = j <= maxLane; }
      if (!ok) j = l;
      out[l] = ((m >>> j) & 1) ? laneOf(av, j) : this.unknownResult(ins);
      inb[l] = ok ? 1n : 0n;
    }
    if (d?.k === 'pair') {
      this.write(fr, d.first, canonical(out, this.live), m);
      this.write(fr, d.second, canonical(inb, this.live), m);
    } else {
      this.write(fr, d, canonical(out, this.live), m);
    }
  }

  private vote(fr: Frame, ins: FlatInstr, m: number): void {
    const [d, a0] = ins.args;
    const mode = ins.op.parts[1] === 'sync' ? ins.op.parts[2] : ins.op.parts[1];
    const av = a0 ? this.read(fr, a0) : UNINIT;
    let all = true;
    let any = false;
    let ballot = 0n;
    for (let l = 0; l < WARP; l++) {
      if (((m >>> l) & 1) === 0) continue;
      const x = laneOf(av, l);
      if (typeof x !== 'bigint') {
        this.write(fr, d, x instanceof Unknown ? x : this.unknownResult(ins), m);
        return;
      }
      if (x !== 0n) { any = true; ballot |= 1n << BigInt(l); }
      else all = false;
    }
    const v = mode === 'all' ? (all ? 1n : 0n) : mode === 'any' ? (any ? 1n : 0n) : mode === 'uni' ? (all || !any ? 1n : 0n) : ballot;
    this.write(fr, d, v, m);
  }

  private redux(fr: Frame, ins: FlatInstr, m: number): void {
    const [d, a0] = ins.args;
    const kind = ins.op.parts[1];
    const t = opType(ins.op);
    const av = a0 ? this.read(fr, a0) : UNINIT;
    let acc: bigint | undefined;
    for (let l = 0; l < WARP; l++) {
      if (((m >>> l) & 1) === 0) continue;
      const x0 = laneOf(av, l);
      if (typeof x0 !== 'bigint') {
        this.write(fr, d, x0 instanceof Unknown ? x0 : this.unknownResult(ins), m);
        return;
      }
      const x = t.signed ? BigInt.asIntN(t.bits, x0) : x0;
      if (acc === undefined) acc = x;
      else if (kind === 'add') acc += x;
      else if (kind === 'min') acc = x < acc ? x : acc;
      else if (kind === 'max') acc = x > acc ? x : acc;
      else if (kind === 'and') acc &= x;
      else if (kind === 'or') acc |= x;
      else if (kind === 'xor') acc ^= x;
    }
    this.write(fr, d, acc === undefined ? this.unknownResult(ins) : u(acc, t.bits), m);
  }
}

/** Identity of a tensor map operand (the address of the CUtensorMap). */
function mapKey(x: Scalar): string | undefined {
  if (x instanceof SymAddr) return `${x.base.replace(/^f\d+:/, '')}+${x.offset}`;
  if (typeof x === 'bigint') return x.toString();
  return undefined;
}

function mergeGroups(groups: { pc: number; mask: number }[]): void {
  for (let i = 0; i < groups.length; i++) {
    const gi = groups[i];
    if (!gi) continue;
    for (let j = groups.length - 1; j > i; j--) {
      const gj = groups[j];
      if (gj && gj.pc === gi.pc) {
        gi.mask = (gi.mask | gj.mask) >>> 0;
        groups.splice(j, 1);
      }
    }
  }
}

export type { Lanes };
