// Lowering aref → mbarrier: the standard protocol of DESIGN.md ("Semantics, level 2"), as
// CUTLASS PipelineTmaAsync and Triton nvws-lower-aref implement it
// (reference/ptx-mbarrier.md §5.2, reference/triton-aref.md §1.5 and §6).
//
// Each aref `A[D]` (slot bytes b) becomes three resources:
//   buffer   A_buf[D]   bytes b      the data slots
//   mbarrier A_full[D]  count 1      one arrival per round: the producer's arrive.expect_tx
//   mbarrier A_empty[D] count 1      one arrival per round: the release by the one role that
//                                    got the slot (an aref get borrows a slot for exactly one
//                                    role, so exactly one role releases each round)
//
// With the slot index written `e % D` (e = the iteration, round = e / D):
//
// | aref op                   | mbarrier-level ops                                            |
// |---------------------------|---------------------------------------------------------------|
// | put A[e % D], v           | wait A_empty[e % D], ((e / D) & 1) ^ 1                         |
// |                           | arrive.expect_tx A_full[e % D], b                              |
// |                           | tma.load A_buf[e % D] -> A_full[e % D], b value v              |
// | get A[e % D] expect x     | wait A_full[e % D], (e / D) & 1                                |
// |                           | read A_buf[e % D] expect x        (only when the get expects) |
// | consumed A[s]             | fence.proxy.async                 (when the role's gets read)  |
// |                           | arrive A_empty[s], 1                                           |
// | wgmma.issue A[s] …        | wgmma.issue A_buf[s] …            (same commit, same expect)   |
// | read/write/tma.store A[s] | the same op on A_buf[s]                                        |
//
// The producer's parity starts at 1: a fresh barrier passes a wait on parity 1 at once, so the
// first round finds every slot empty (CUTLASS make_producer_start_state; ptx-mbarrier.md §1.4).
// All other ops are unchanged; every lowered op keeps the `loc` of the op it came from.
import { InputError } from './diag.ts';
import { bin, EvalError, evalExpr, num } from './ir/expr.ts';
import { forEachOp, type Expr, type Loc, type Op, type Program, type Ref, type Resource, type Role, type Stmt } from './ir/program.ts';
import { locOf } from './lang/positions.ts';

/** Bytes per slot when neither the aref nor the caller says (a 128×64 bf16 tile). */
export const DEFAULT_SLOT_BYTES = 16384;

export interface LowerOptions {
  /** Bytes per slot for arefs that do not declare their own. */
  readonly bytes?: number;
}

/** The mbarrier-level names an aref lowers to. */
export interface LoweredAref {
  readonly aref: string;
  readonly depth: number;
  readonly bytes: number;
  readonly buffer: string;
  readonly full: string;
  readonly empty: string;
}

export function loweredNames(aref: string): { buffer: string; full: string; empty: string } {
  return { buffer: `${aref}_buf`, full: `${aref}_full`, empty: `${aref}_empty` };
}

export function lowerProgram(program: Program, opts: LowerOptions = {}): Program {
  const params = new Map(program.params.map((p) => [p.name, p.value]));
  const arefs = new Map<string, LoweredAref>();
  const taken = new Set([...program.resources.map((r) => r.name), ...params.keys()]);
  const resources: Resource[] = [];
  for (const r of program.resources) {
    if (r.kind !== 'aref') {
      resources.push(r);
      continue;
    }
    const bytes = r.bytes ?? opts.bytes ?? DEFAULT_SLOT_BYTES;
    const names = loweredNames(r.name);
    for (const n of [names.buffer, names.full, names.empty]) {
      if (taken.has(n)) throw new InputError(`cannot lower aref ${r.name}: the name ${n} is already used`, r.loc);
    }
    arefs.set(r.name, { aref: r.name, depth: r.depth, bytes, ...names });
    const at = r.loc ? { loc: r.loc } : {};
    resources.push(
      { kind: 'buffer', name: names.buffer, slots: r.depth, bytes, ...at },
      { kind: 'mbarrier', name: names.full, size: r.depth, count: 1, ...at },
      { kind: 'mbarrier', name: names.empty, size: r.depth, count: 1, ...at },
    );
  }
  // per role, the arefs it reads through the generic proxy (a `get` that expects a value lowers to `read`)
  const readsGeneric = new Map<Role, Set<string>>();
  forEachOp(program, (op, role) => {
    if (op.kind === 'get' && op.expect !== undefined) readsGeneric.set(role, (readsGeneric.get(role) ?? new Set()).add(op.target.name));
  });
  const roles: Role[] = program.roles.map((role) => ({ ...role, body: new RoleLowering(arefs, params, readsGeneric.get(role) ?? new Set()).stmts(role.body) }));
  return { ...program, resources, roles };
}

class RoleLowering {
  private readonly arefs: ReadonlyMap<string, LoweredAref>;
  private readonly params: ReadonlyMap<string, number>;
  /** arefs this role reads with ld.shared: its release needs a proxy fence before the TMA refill */
  private readonly readsGeneric: ReadonlySet<string>;

  constructor(arefs: ReadonlyMap<string, LoweredAref>, params: ReadonlyMap<string, number>, readsGeneric: ReadonlySet<string>) {
    this.arefs = arefs;
    this.params = params;
    this.readsGeneric = readsGeneric;
  }

  stmts(body: readonly Stmt[]): Stmt[] {
    return body.flatMap((s) => this.stmt(s));
  }

  private stmt(s: Stmt): Stmt[] {
    switch (s.kind) {
      case 'for':
        return [{ ...s, body: this.stmts(s.body) }];
      case 'if':
        return [{ ...s, then: this.stmts(s.then), else: this.stmts(s.else) }];
      case 'op': {
        const at = s.loc ? { loc: s.loc } : {};
        return this.op(s.op, s.loc).map((op): Stmt => ({ kind: 'op', op, ...at }));
      }
    }
  }

  private op(op: Op, loc: Loc | undefined): Op[] {
    switch (op.kind) {
      case 'put': {
        const a = this.aref(op.target, loc);
        const { slot, round } = this.slotAndRound(a, op.target, loc);
        const full: Ref = { name: a.full, index: slot };
        return [
          { kind: 'wait', target: { name: a.empty, index: slot }, parity: bin('^', parityOf(round), num(1)) },
          { kind: 'arrive.expect_tx', target: full, bytes: num(a.bytes) },
          { kind: 'tma.load', target: { name: a.buffer, index: slot }, barrier: full, bytes: num(a.bytes), value: op.value },
        ];
      }
      case 'get': {
        const a = this.aref(op.target, loc);
        const { slot, round } = this.slotAndRound(a, op.target, loc);
        const wait: Op = { kind: 'wait', target: { name: a.full, index: slot }, parity: parityOf(round) };
        if (op.expect === undefined) return [wait];
        return [wait, { kind: 'read', target: { name: a.buffer, index: slot }, expect: op.expect }];
      }
      case 'consumed': {
        const a = this.aref(op.target, loc);
        const release: Op = { kind: 'arrive', target: { name: a.empty, index: op.target.index }, count: num(1) };
        // Triton's get.exit: a generic read, then the producer's TMA overwrite, needs the fence first
        return this.readsGeneric.has(op.target.name) ? [{ kind: 'fence.proxy.async' }, release] : [release];
      }
      // Ops that name a data slot: an aref slot's data lives in its buffer.
      case 'wgmma.issue':
      case 'read':
      case 'write':
      case 'atomic':
      case 'tma.store':
        return [{ ...op, target: this.dataSlot(op.target) }];
      case 'tma.load':
        return [{ ...op, target: this.dataSlot(op.target) }];
      case 'init':
      case 'arrive':
      case 'arrive.expect_tx':
      case 'expect_tx':
      case 'complete_tx':
      case 'wait':
      case 'wait.token':
      case 'inval':
      case 'bulk.commit':
      case 'bulk.wait':
      case 'wgmma.commit':
      case 'wgmma.wait':
      case 'bar.sync':
      case 'bar.arrive':
      case 'fence.proxy.async':
        return [op];
    }
  }

  private aref(target: Ref, loc: Loc | undefined): LoweredAref {
    const a = this.arefs.get(target.name);
    if (!a) throw new InputError(`cannot lower: ${target.name} is not an aref`, loc);
    return a;
  }

  private dataSlot(target: Ref): Ref {
    const a = this.arefs.get(target.name);
    return a ? { name: a.buffer, index: target.index } : target;
  }

  /** Splits `e % D` into the slot expression and the round `e / D`; the parity needs the iteration e. */
  private slotAndRound(a: LoweredAref, target: Ref, loc: Loc | undefined): { slot: Expr; round: Expr } {
    const index = target.index;
    const bad = new InputError(
      `cannot lower: slot index of ${a.aref} must be \`e % ${a.depth}\` (the iteration modulo the depth), so that the phase parity (e / ${a.depth}) & 1 can be derived`,
      locOf(index) ?? loc,
    );
    if (index.kind !== 'bin' || index.op !== '%') throw bad;
    let modulus: number;
    try {
      modulus = evalExpr(index.right, this.params);
    } catch (e) {
      if (e instanceof EvalError) throw bad;
      throw e;
    }
    if (modulus !== a.depth) throw bad;
    return { slot: index, round: bin('/', index.left, index.right) };
  }
}

const parityOf = (round: Expr): Expr => bin('&', round, num(1));
