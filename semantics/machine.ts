// Compile a Program into a Machine: resources resolved to flat index ranges, role bodies
// flattened into instruction arrays with jumps, expressions turned into closures over the
// role's loop-variable slots. The rules in this folder run on Machines.
import { applyBin, applyUn } from '../src/ir/expr.ts';
import { opToken, type Expr, type Loc, type Op, type Program, type Ref, type Resource, type Stmt } from '../src/ir/program.ts';
import { InputError } from '../src/diag.ts';
import { trackEvents, type EventTable } from './events.ts';

/** A compiled expression: loop variables of the executing role → value. */
export type CExpr = (vars: readonly number[]) => number;

export type SlotSpace = 'aref' | 'barrier' | 'buffer';

/** A resource resolved to a range of global element ids. */
export interface ResolvedResource {
  readonly name: string;
  readonly space: SlotSpace;
  /** first global id in its space (aref slots and buffer slots share the "slot" space, see slotId) */
  readonly base: number;
  readonly size: number;
  readonly decl: Resource;
}

/** A reference `name[index]` with its resource resolved. */
export interface CRef {
  readonly res: ResolvedResource;
  readonly index: CExpr;
}

export type Instr =
  /** `token`: the role's token slot an arrive sets or a wait.token reads. */
  | { readonly kind: 'op'; readonly op: Op; readonly refs: readonly CRef[]; readonly args: readonly CExpr[]; readonly loc: Loc | undefined; readonly token?: number }
  /** var := from; if !(var < to) goto exit */
  | { readonly kind: 'loop-init'; readonly slot: number; readonly from: CExpr; readonly to: CExpr; readonly exit: number }
  /** var += 1; if var < to goto body */
  | { readonly kind: 'loop-next'; readonly slot: number; readonly to: CExpr; readonly body: number }
  /** if !cond goto target */
  | { readonly kind: 'branch'; readonly cond: CExpr; readonly target: number }
  | { readonly kind: 'jump'; readonly target: number };

export interface RoleCode {
  readonly name: string;
  readonly warps: number;
  readonly code: readonly Instr[];
  readonly varNames: readonly string[];
  /** token variables (arrive … -> t), one slot each */
  readonly tokenNames: readonly string[];
}

export interface MachineOptions {
  /** Follow the paper's consumed rule literally (no premise) instead of reporting a protocol error. */
  readonly literal?: boolean;
  /** Parameter overrides (`--param K=16`). */
  readonly params?: ReadonlyMap<string, number>;
  /**
   * A parameter whose value lives in the state instead of the code (`--param K=any`): every role's
   * variable slot 0 holds it, so one machine runs every value (src/every-k/).
   */
  readonly symbolic?: string;
}

export interface Machine {
  readonly program: Program;
  /** Fixed parameter values (the symbolic parameter, if any, is not among them). */
  readonly params: ReadonlyMap<string, number>;
  /** The parameter held in each role's variable slot 0, if the machine was compiled with one. */
  readonly symbolic?: string;
  readonly roles: readonly RoleCode[];
  readonly resources: ReadonlyMap<string, ResolvedResource>;
  /** aref slots first, then buffer slots: the "slot" space where races and values live */
  readonly slotCount: number;
  readonly arefSlotCount: number;
  readonly barrierCount: number;
  /** names for messages: slotNames[slotId], barrierNames[barrierId] */
  readonly slotNames: readonly string[];
  readonly barrierNames: readonly string[];
  readonly barrierInit: readonly (number | undefined)[];
  readonly slotBytes: readonly number[];
  readonly usesNamedBarriers: boolean;
  /** Named barrier ids 0..namedBarriers-1 (the program's declaration, 16 by default). */
  readonly namedBarriers: number;
  /** Per named barrier id: some op may name it (its knowledge holder has words; the others stay empty). */
  readonly namedUsed: readonly boolean[];
  /** Barriers of a resource some op gives transaction bytes (a TMA's barrier, expect_tx): "full" barriers. */
  readonly txBarriers: readonly boolean[];
  readonly literal: boolean;
  /**
   * Per role, the roles whose wgmma groups retire with its own (the program's `warpgroups`; the
   * role alone when it is in none), in role order: the first is the one whose unit acts.
   */
  readonly mmaPartners: readonly (readonly number[])[];
  /** The access events the happens-before state tracks, and their bit ids. */
  readonly events: EventTable;
}

export function compileMachine(program: Program, options: MachineOptions = {}): Machine {
  const params = new Map<string, number>();
  for (const p of program.params) params.set(p.name, p.value);
  const known = (k: string): void => {
    if (!params.has(k)) throw new InputError(`unknown parameter '${k}' (the program declares: ${[...params.keys()].join(', ') || 'none'})`);
  };
  for (const [k, val] of options.params ?? []) {
    known(k);
    params.set(k, val);
  }
  const symbolic = options.symbolic;
  if (symbolic !== undefined) {
    known(symbolic);
    params.delete(symbolic);
  }

  const resources = new Map<string, ResolvedResource>();
  let arefSlots = 0;
  let bufferSlots = 0;
  let barriers = 0;
  for (const r of program.resources) {
    if (resources.has(r.name)) throw new InputError(`duplicate resource '${r.name}'`, r.loc);
    if (r.kind === 'aref') {
      resources.set(r.name, { name: r.name, space: 'aref', base: arefSlots, size: r.depth, decl: r });
      arefSlots += r.depth;
    } else if (r.kind === 'buffer') {
      resources.set(r.name, { name: r.name, space: 'buffer', base: bufferSlots, size: r.slots, decl: r });
      bufferSlots += r.slots;
    } else {
      resources.set(r.name, { name: r.name, space: 'barrier', base: barriers, size: r.size, decl: r });
      barriers += r.size;
    }
  }
  const slotNames: string[] = [];
  const slotBytes: number[] = [];
  const barrierNames: string[] = [];
  const barrierInit: (number | undefined)[] = [];
  for (const r of resources.values()) {
    for (let i = 0; i < r.size; i++) {
      if (r.space === 'aref') {
        slotNames[r.base + i] = `${r.name}[${i}]`;
        slotBytes[r.base + i] = r.decl.kind === 'aref' ? (r.decl.bytes ?? 0) : 0;
      } else if (r.space === 'buffer') {
        slotNames[arefSlots + r.base + i] = `${r.name}[${i}]`;
        slotBytes[arefSlots + r.base + i] = r.decl.kind === 'buffer' ? r.decl.bytes : 0;
      } else {
        barrierNames[r.base + i] = `${r.name}[${i}]`;
        barrierInit[r.base + i] = r.decl.kind === 'mbarrier' ? r.decl.count : undefined;
      }
    }
  }

  let usesNamedBarriers = false;
  const namedBarriers = program.namedBarriers ?? 16;
  const namedUsed = new Array<boolean>(namedBarriers).fill(false);
  const txBarriers = new Array<boolean>(barriers).fill(false);
  // a constant index marks its element only: one lifted array can hold full and empty barriers
  const markTx = (ref: CRef | undefined, index: Expr): void => {
    if (ref?.res.space !== 'barrier') return;
    if (index.kind === 'num' && Number.isInteger(index.value) && index.value >= 0 && index.value < ref.res.size) txBarriers[ref.res.base + index.value] = true;
    else txBarriers.fill(true, ref.res.base, ref.res.base + ref.res.size);
  };
  const roles = program.roles.map((role) => {
    const code: Instr[] = [];
    const varNames: string[] = symbolic === undefined ? [] : [symbolic];
    const tokenNames: string[] = [];
    const tokenSlot = (name: string): number => {
      let i = tokenNames.indexOf(name);
      if (i < 0) i = tokenNames.push(name) - 1;
      return i;
    };
    const compileExpr = (e: Expr, scope: ReadonlyMap<string, number>): CExpr => {
      switch (e.kind) {
        case 'num': {
          const value = e.value;
          return () => value;
        }
        case 'var': {
          const slot = scope.get(e.name);
          if (slot !== undefined) return (vars) => vars[slot] ?? 0;
          const pv = params.get(e.name);
          if (pv === undefined) throw new InputError(`unknown name '${e.name}'`, e.loc);
          return () => pv;
        }
        case 'un': {
          const arg = compileExpr(e.arg, scope);
          const op = e.op;
          return (vars) => applyUn(op, arg(vars));
        }
        case 'bin': {
          const l = compileExpr(e.left, scope);
          const r = compileExpr(e.right, scope);
          const op = e.op;
          return (vars) => applyBin(op, l(vars), r(vars));
        }
      }
    };
    const compileRef = (ref: Ref, scope: ReadonlyMap<string, number>, loc: Loc | undefined): CRef => {
      const res = resources.get(ref.name);
      if (!res) throw new InputError(`unknown resource '${ref.name}'`, loc);
      return { res, index: compileExpr(ref.index, scope) };
    };
    const emitStmts = (stmts: readonly Stmt[], scope: ReadonlyMap<string, number>): void => {
      for (const s of stmts) {
        if (s.kind === 'for') {
          const slot = varNames.length;
          varNames.push(s.var);
          const inner = new Map(scope).set(s.var, slot);
          const init = { kind: 'loop-init' as const, slot, from: compileExpr(s.from, scope), to: compileExpr(s.to, scope), exit: -1 };
          const initAt = code.length;
          code.push(init);
          const bodyAt = code.length;
          emitStmts(s.body, inner);
          code.push({ kind: 'loop-next', slot, to: init.to, body: bodyAt });
          code[initAt] = { ...init, exit: code.length };
        } else if (s.kind === 'if') {
          const branchAt = code.length;
          const cond = compileExpr(s.cond, scope);
          code.push({ kind: 'branch', cond, target: -1 });
          emitStmts(s.then, scope);
          if (s.else.length > 0) {
            const jumpAt = code.length;
            code.push({ kind: 'jump', target: -1 });
            code[branchAt] = { kind: 'branch', cond, target: code.length };
            emitStmts(s.else, scope);
            code[jumpAt] = { kind: 'jump', target: code.length };
          } else {
            code[branchAt] = { kind: 'branch', cond, target: code.length };
          }
        } else {
          const { refs, args } = compileOperands(s.op, scope, s.loc, compileExpr, compileRef);
          if (s.op.kind === 'bar.sync' || s.op.kind === 'bar.arrive') {
            usesNamedBarriers = true;
            const id = s.op.id.kind === 'num' ? s.op.id.value : undefined;
            if (id !== undefined && Number.isInteger(id) && id >= 0 && id < namedBarriers) namedUsed[id] = true;
            else namedUsed.fill(true);
          }
          if (s.op.kind === 'tma.load') markTx(refs[1], s.op.barrier.index);
          if (s.op.kind === 'arrive.expect_tx' || s.op.kind === 'expect_tx' || s.op.kind === 'complete_tx') markTx(refs[0], s.op.target.index);
          const name = opToken(s.op);
          const token = name === undefined ? undefined : tokenSlot(name);
          code.push({ kind: 'op', op: s.op, refs, args, loc: s.loc, ...(token !== undefined ? { token } : {}) });
        }
      }
    };
    emitStmts(role.body, symbolic === undefined ? new Map() : new Map([[symbolic, 0]]));
    return { name: role.name, warps: role.warps, code, varNames, tokenNames };
  });

  return {
    program,
    params,
    ...(symbolic === undefined ? {} : { symbolic }),
    roles,
    resources,
    slotCount: arefSlots + bufferSlots,
    arefSlotCount: arefSlots,
    barrierCount: barriers,
    slotNames,
    barrierNames,
    barrierInit,
    slotBytes,
    usesNamedBarriers,
    namedBarriers,
    namedUsed,
    txBarriers,
    literal: options.literal ?? false,
    mmaPartners: partnersOf(program),
    events: trackEvents(program, resources, arefSlots + bufferSlots, (res, i) => (res.space === 'aref' ? res.base + i : arefSlots + res.base + i)),
  };
}

/** Each role's warpgroup partners (itself included, in role order). */
function partnersOf(program: Program): number[][] {
  const index = new Map(program.roles.map((r, i) => [r.name, i]));
  const out = program.roles.map((_, i) => [i]);
  for (const wg of program.warpgroups ?? []) {
    const members = wg.map((n) => index.get(n)).filter((i): i is number => i !== undefined).sort((a, b) => a - b);
    for (const r of members) out[r] = members;
  }
  return out;
}

/** Operands of an op: refs in a fixed order per kind, then expression arguments. */
function compileOperands(
  op: Op,
  scope: ReadonlyMap<string, number>,
  loc: Loc | undefined,
  ce: (e: Expr, scope: ReadonlyMap<string, number>) => CExpr,
  cr: (r: Ref, scope: ReadonlyMap<string, number>, loc: Loc | undefined) => CRef,
): { refs: CRef[]; args: CExpr[] } {
  const opt = (e: Expr | undefined): CExpr => (e ? ce(e, scope) : ABSENT);
  switch (op.kind) {
    case 'put': return { refs: [cr(op.target, scope, loc)], args: [ce(op.value, scope)] };
    case 'get': return { refs: [cr(op.target, scope, loc)], args: [opt(op.expect)] };
    case 'consumed': return { refs: [cr(op.target, scope, loc)], args: [] };
    case 'init': return { refs: [cr(op.target, scope, loc)], args: [ce(op.count, scope)] };
    case 'arrive': return { refs: [cr(op.target, scope, loc)], args: [ce(op.count, scope)] };
    case 'arrive.expect_tx':
    case 'expect_tx':
    case 'complete_tx': return { refs: [cr(op.target, scope, loc)], args: [ce(op.bytes, scope)] };
    case 'wait': return { refs: [cr(op.target, scope, loc)], args: [ce(op.parity, scope)] };
    case 'wait.token': return { refs: [cr(op.target, scope, loc)], args: [] };
    case 'inval': return { refs: [cr(op.target, scope, loc)], args: [] };
    case 'tma.load': return { refs: [cr(op.target, scope, loc), cr(op.barrier, scope, loc)], args: [ce(op.bytes, scope), opt(op.value), opt(op.slots)] };
    case 'tma.store': return { refs: [cr(op.target, scope, loc)], args: [] };
    case 'bulk.commit':
    case 'wgmma.commit':
    case 'fence.proxy.async': return { refs: [], args: [] };
    case 'bulk.wait':
    case 'wgmma.wait': return { refs: [], args: [ce(op.pending, scope)] };
    case 'wgmma.issue': return { refs: [cr(op.target, scope, loc)], args: [opt(op.expect)] };
    case 'bar.sync':
    case 'bar.arrive': return { refs: [], args: [ce(op.id, scope), ce(op.threads, scope)] };
    case 'read': return { refs: [cr(op.target, scope, loc)], args: [opt(op.expect)] };
    case 'write': return { refs: [cr(op.target, scope, loc)], args: [opt(op.value)] };
    case 'atomic': return { refs: [cr(op.target, scope, loc)], args: [] };
  }
}

/** "No value" tag: a slot never written, or an op without a value/expect. */
export const NO_VALUE = -0x80000000;

/** The operand of an optional value or expectation that the op does not have. */
export const ABSENT: CExpr = () => NO_VALUE;

/** Values the packed state holds exactly (Int32 words; −2^31 is NO_VALUE). */
export const MAX_VALUE = 0x7fffffff;

/** Global slot id (aref slots, then buffer slots) of a resolved resource element. */
export function slotId(m: Machine, res: ResolvedResource, index: number): number {
  return res.space === 'aref' ? res.base + index : m.arefSlotCount + res.base + index;
}
