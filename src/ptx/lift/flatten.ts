// A function body → one linear instruction array with every name resolved: registers to
// slots (each `{ … }` scope gets its own, so inline-asm blocks may reuse names), labels to
// indices (innermost scope first), variables to addresses. The interpreter then never
// looks a name up.
import { InputError } from '../../diag.ts';
import type { Loc } from '../../ir/program.ts';
import type { Operand, PtxFunction, PtxModule, Statement, VarDecl } from '../parse/ast.ts';
import { parseOpcode, type Opcode } from './opcode.ts';
import type { SmemLayout } from './smem-layout.ts';
import { SymAddr, Unknown, type Scalar } from './values.ts';

export interface LabelRef {
  index: number;
  readonly name: string;
}

export type Arg =
  | { readonly k: 'reg'; readonly slot: number; readonly name: string }
  | { readonly k: 'not'; readonly slot: number; readonly name: string }
  | { readonly k: 'imm'; readonly v: bigint }
  /** A value fixed before execution: a shared-memory address, a global variable's symbolic address, float bits. */
  | { readonly k: 'const'; readonly v: Scalar }
  | { readonly k: 'sreg'; readonly name: string }
  /** The address of a variable living in the current call frame (kernel/function params, `.local`, call-site `.param`). */
  | { readonly k: 'frame'; readonly name: string; readonly offset: bigint }
  | { readonly k: 'label'; readonly ref: LabelRef }
  /** The jump table of `brx.idx`: a `.branchtargets` list. */
  | { readonly k: 'targets'; readonly refs: readonly LabelRef[] }
  | { readonly k: 'func'; readonly name: string }
  | { readonly k: 'vec'; readonly items: readonly Arg[] }
  | { readonly k: 'mem'; readonly base?: Arg; readonly offset: bigint; readonly coords?: readonly Arg[] }
  | { readonly k: 'pair'; readonly first: Arg; readonly second: Arg }
  | { readonly k: 'list'; readonly items: readonly Arg[] }
  | { readonly k: 'sink' }
  | { readonly k: 'unk'; readonly why: Unknown };

export interface FlatInstr {
  readonly op: Opcode;
  /** Register slot of the guard predicate, -1 when unguarded. */
  readonly guard: number;
  readonly guardNeg: boolean;
  readonly args: readonly Arg[];
  readonly loc: Loc;
}

export interface FlatFunction {
  readonly fn: PtxFunction;
  readonly code: readonly FlatInstr[];
  readonly nslots: number;
  readonly slotNames: readonly string[];
  /** Slots of `.reg` parameters and return values (old-style `.func` signatures). */
  readonly regParams: ReadonlyMap<string, number>;
}

const SPECIAL = /^%(tid|ntid|ctaid|nctaid|laneid|warpid|nwarpid|smid|nsmid|gridid|clock|clock64|clock_hi|globaltimer|globaltimer_lo|globaltimer_hi|lanemask_(eq|le|lt|ge|gt)|dynamic_smem_size|total_smem_size|aggr_smem_size|cluster_\w+|clusterid|nclusterid|is_explicit_cluster|envreg\d+|pm\d+(_64)?|reserved_smem_\w+|current_graph_exec)(\.[xyz])?$/;

export function isSpecialRegister(name: string): boolean {
  return SPECIAL.test(name);
}

class Scope {
  readonly regs = new Map<string, number>();
  readonly ranges = new Map<string, { base: number; count: number }>();
  readonly labels = new Map<string, LabelRef>();
  readonly tables = new Map<string, readonly string[]>();
  readonly frameVars = new Set<string>();
  readonly vars = new Map<string, VarDecl>();
  readonly parent: Scope | undefined;
  constructor(parent: Scope | undefined) {
    this.parent = parent;
  }

  reg(name: string): number | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) {
      const exact = s.regs.get(name);
      if (exact !== undefined) return exact;
      if (s.ranges.size > 0) {
        const m = /^(.*?)(\d+)$/.exec(name);
        if (m?.[1] !== undefined && m[2] !== undefined && !(m[2].length > 1 && m[2].startsWith('0'))) {
          const r = s.ranges.get(m[1]);
          const n = Number(m[2]);
          if (r && n < r.count) return r.base + n;
        }
      }
    }
    return undefined;
  }
  table(name: string): readonly string[] | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) {
      const t = s.tables.get(name);
      if (t) return t;
    }
    return undefined;
  }
  label(name: string): LabelRef | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) {
      const l = s.labels.get(name);
      if (l) return l;
    }
    return undefined;
  }
  frameVar(name: string): boolean {
    for (let s: Scope | undefined = this; s; s = s.parent) {
      if (s.frameVars.has(name)) return true;
      if (s.vars.has(name)) return false;
    }
    return false;
  }
  variable(name: string): VarDecl | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) {
      const v = s.vars.get(name);
      if (v) return v;
      if (s.frameVars.has(name)) return undefined;
    }
    return undefined;
  }
}

const BRANCHES = new Set(['bra', 'brx']);
/** Register slots per function: far above what ptxas accepts, low enough to allocate. */
const MAX_REGISTERS = 1 << 20;

export function flattenFunction(fn: PtxFunction, module: PtxModule, layout: SmemLayout): FlatFunction {
  const code: FlatInstr[] = [];
  const slotNames: string[] = [];
  const functions = new Set(module.functions.map((f) => f.name));
  const globals = new Map(module.globals.map((g) => [g.name, g] as const));
  const regParams = new Map<string, number>();
  const root = new Scope(undefined);

  const newSlots = (name: string, n: number, loc?: Loc): number => {
    const base = slotNames.length;
    if (base + n > MAX_REGISTERS) throw new InputError(`more than ${MAX_REGISTERS} registers in ${fn.name}`, loc ?? fn.loc);
    for (let i = 0; i < n; i++) slotNames.push(n === 1 ? name : `${name}${i}`);
    return base;
  };
  for (const p of [...fn.params, ...fn.returns]) {
    if (p.space === 'reg') {
      const slot = newSlots(p.name, 1);
      root.regs.set(p.name, slot);
      regParams.set(p.name, slot);
    } else {
      root.frameVars.add(p.name);
    }
  }

  const resolveName = (name: string, offset: bigint, scope: Scope, loc: Loc, branch: boolean): Arg => {
    const slot = scope.reg(name);
    if (slot !== undefined) return { k: 'reg', slot, name };
    const label = scope.label(name);
    if (label) return { k: 'label', ref: label };
    const table = scope.table(name);
    if (table) {
      return {
        k: 'targets',
        refs: table.map((l) => {
          const ref = scope.label(l);
          if (!ref) throw new InputError(`unknown label '${l}' in the .branchtargets list ${name}`, loc);
          return ref;
        }),
      };
    }
    if (branch) throw new InputError(`unknown label '${name}'`, loc);
    if (scope.frameVar(name)) return { k: 'frame', name, offset };
    const v = scope.variable(name) ?? globals.get(name);
    if (v) {
      if (v.space === 'shared') {
        const addr = layout.addressOf(v);
        if (addr !== undefined) return { k: 'const', v: BigInt(addr) + offset };
      }
      if (v.space === 'local' || v.space === 'param') return { k: 'frame', name, offset };
      return { k: 'const', v: new SymAddr(`global:${name}`, offset) };
    }
    if (isSpecialRegister(name)) return { k: 'sreg', name };
    // PTX's one predefined constant (ISA, "Predefined identifiers"): nvcc writes warpSize as it
    if (name === 'WARP_SZ') return { k: 'imm', v: 32n };
    if (functions.has(name)) return { k: 'func', name };
    if (name.startsWith('%')) throw new InputError(`undeclared register '${name}'`, loc);
    return { k: 'unk', why: new Unknown(`the unknown name '${name}'`) };
  };

  const resolve = (o: Operand, scope: Scope, branch: boolean): Arg => {
    switch (o.kind) {
      case 'name':
        return resolveName(o.name, o.offset, scope, o.loc, branch);
      case 'not': {
        const slot = scope.reg(o.name);
        if (slot === undefined) throw new InputError(`undeclared predicate '${o.name}'`, o.loc);
        return { k: 'not', slot, name: o.name };
      }
      case 'int':
        return { k: 'imm', v: o.value };
      case 'float':
        return o.bits !== undefined ? { k: 'const', v: o.bits } : { k: 'unk', why: new Unknown(`the float literal ${o.text}`) };
      case 'vec':
        return { k: 'vec', items: o.items.map((x) => resolve(x, scope, false)) };
      case 'list':
        return { k: 'list', items: o.items.map((x) => resolve(x, scope, false)) };
      case 'pair':
        return { k: 'pair', first: resolveName(o.first, 0n, scope, o.loc, false), second: resolveName(o.second, 0n, scope, o.loc, false) };
      case 'sink':
        return { k: 'sink' };
      case 'mem': {
        const base = o.base !== undefined ? resolveName(o.base, 0n, scope, o.loc, false) : undefined;
        const coords = o.coords?.map((x) => resolve(x, scope, false));
        return { k: 'mem', ...(base ? { base } : {}), offset: o.offset, ...(coords ? { coords } : {}) };
      }
    }
  };

  const walk = (stmts: readonly Statement[], parent: Scope | undefined): void => {
    const scope = parent ? new Scope(parent) : root;
    // declarations and labels are visible in their whole block
    for (const s of stmts) {
      if (s.kind === 'label') {
        if (scope.labels.has(s.name)) throw new InputError(`duplicate label '${s.name}'`, s.loc);
        scope.labels.set(s.name, { index: -1, name: s.name });
      } else if (s.kind === 'reg') {
        for (const n of s.names) {
          if (n.count !== undefined) scope.ranges.set(n.name, { base: newSlots(n.name, n.count, s.loc), count: n.count });
          else scope.regs.set(n.name, newSlots(n.name, 1, s.loc));
        }
      } else if (s.kind === 'var') {
        if (s.space === 'param' || s.space === 'local') scope.frameVars.add(s.name);
        else scope.vars.set(s.name, s);
      } else if (s.kind === 'targets') {
        scope.tables.set(s.name, s.labels);
      }
    }
    for (const s of stmts) {
      if (s.kind === 'label') {
        const ref = scope.labels.get(s.name);
        if (ref) ref.index = code.length;
      } else if (s.kind === 'block') {
        walk(s.body, scope);
      } else if (s.kind === 'instr') {
        const op = parseOpcode(s.opcode);
        let guard = -1;
        if (s.guard) {
          const g = scope.reg(s.guard.reg);
          if (g === undefined) throw new InputError(`undeclared predicate '${s.guard.reg}'`, s.loc);
          guard = g;
        }
        const branch = BRANCHES.has(op.base);
        const args = s.operands.map((o, i) => resolve(o, scope, branch && i === s.operands.length - 1 && o.kind === 'name'));
        code.push({ op, guard, guardNeg: s.guard?.negate ?? false, args, loc: s.loc });
      }
    }
  };
  if (fn.body) walk(fn.body, undefined);
  return { fn, code, nslots: slotNames.length, slotNames, regParams };
}
