// Integer expressions of the Program → PTX s32 code. Constant subtrees are folded (with the
// same C semantics as evalExpr); everything else becomes one instruction per operator.
import { InputError } from '../../diag.ts';
import { applyBin, applyUn, EvalError } from '../../ir/expr.ts';
import type { BinOp, Expr, Loc } from '../../ir/program.ts';
import type { PtxBuilder } from './builder.ts';

/** A value in PTX: an immediate or a .b32 register. */
export type Operand = { readonly imm: number } | { readonly reg: string };

/** What a name means while compiling: a loop variable or param register, or a constant. */
export type Scope = ReadonlyMap<string, Operand>;

export const text = (o: Operand): string => ('imm' in o ? String(o.imm) : o.reg);

const S32_MIN = -(2 ** 31);
const S32_MAX = 2 ** 31 - 1;

const ARITH: Partial<Record<BinOp, string>> = {
  '+': 'add.s32', '-': 'sub.s32', '*': 'mul.lo.s32', '/': 'div.s32', '%': 'rem.s32',
  '&': 'and.b32', '|': 'or.b32', '^': 'xor.b32', '<<': 'shl.b32', '>>': 'shr.s32',
};
const COMPARE: Partial<Record<BinOp, string>> = { '==': 'eq', '!=': 'ne', '<': 'lt', '<=': 'le', '>': 'gt', '>=': 'ge' };
/** The comparison with its operands swapped: a < b  ⇔  b > a. */
const SWAPPED: Readonly<Record<string, string>> = { eq: 'eq', ne: 'ne', lt: 'gt', le: 'ge', gt: 'lt', ge: 'le' };
const COMMUTATIVE = new Set<BinOp>(['+', '*', '&', '|', '^']);

export class ExprCompiler {
  private readonly b: PtxBuilder;
  private readonly where: string;

  /** `where` names the place in messages (e.g. "role consumer0"). */
  constructor(b: PtxBuilder, where: string) {
    this.b = b;
    this.where = where;
  }

  value(e: Expr, scope: Scope, loc?: Loc): Operand {
    switch (e.kind) {
      case 'num':
        return { imm: this.fits(e.value, loc) };
      case 'var': {
        const o = scope.get(e.name);
        if (!o) throw new InputError(`${this.where}: unknown name '${e.name}' in an expression`, e.loc ?? loc);
        return o;
      }
      case 'un': {
        const a = this.value(e.arg, scope, loc);
        if ('imm' in a) return { imm: this.fits(applyUn(e.op, a.imm), loc) };
        const d = this.b.reg('r');
        if (e.op === '-') this.b.ins(`neg.s32 ${d}, ${a.reg}`);
        else {
          const p = this.b.reg('p');
          this.b.ins(`setp.eq.s32 ${p}, ${a.reg}, 0`);
          this.b.ins(`selp.s32 ${d}, 1, 0, ${p}`);
        }
        return { reg: d };
      }
      case 'bin':
        return this.binary(e.op, e.left, e.right, scope, loc);
    }
  }

  /** A register holding the value (immediates are moved into one). */
  register(e: Expr, scope: Scope, loc?: Loc): string {
    return this.materialize(this.value(e, scope, loc));
  }

  materialize(o: Operand): string {
    if ('reg' in o) return o.reg;
    const d = this.b.reg('r');
    this.b.ins(`mov.s32 ${d}, ${o.imm}`);
    return d;
  }

  /**
   * A predicate that is true iff `e` is non-zero, or a constant when `e` folds.
   * Comparisons go straight to setp.
   */
  condition(e: Expr, scope: Scope, loc?: Loc): { readonly pred: string } | { readonly always: boolean } {
    if (e.kind === 'bin' && COMPARE[e.op] !== undefined) {
      const a = this.value(e.left, scope, loc);
      const c = this.value(e.right, scope, loc);
      if ('imm' in a && 'imm' in c) return { always: applyBin(e.op, a.imm, c.imm) !== 0 };
      return { pred: this.compare(COMPARE[e.op] ?? 'eq', a, c) };
    }
    const v = this.value(e, scope, loc);
    if ('imm' in v) return { always: v.imm !== 0 };
    const p = this.b.reg('p');
    this.b.ins(`setp.ne.s32 ${p}, ${v.reg}, 0`);
    return { pred: p };
  }

  private compare(cmp: string, a: Operand, c: Operand): string {
    const p = this.b.reg('p');
    if ('imm' in a) this.b.ins(`setp.${SWAPPED[cmp] ?? cmp}.s32 ${p}, ${text(c)}, ${a.imm}`);
    else this.b.ins(`setp.${cmp}.s32 ${p}, ${a.reg}, ${text(c)}`);
    return p;
  }

  private binary(op: BinOp, left: Expr, right: Expr, scope: Scope, loc: Loc | undefined): Operand {
    const a = this.value(left, scope, loc);
    const c = this.value(right, scope, loc);
    if ('imm' in a && 'imm' in c) {
      try {
        return { imm: this.fits(applyBin(op, a.imm, c.imm), loc) };
      } catch (err) {
        if (err instanceof EvalError) throw new InputError(`${this.where}: ${err.message}`, loc);
        throw err;
      }
    }
    const d = this.b.reg('r');
    const cmp = COMPARE[op];
    if (cmp !== undefined) {
      this.b.ins(`selp.s32 ${d}, 1, 0, ${this.compare(cmp, a, c)}`);
      return { reg: d };
    }
    if (op === '&&' || op === '||') {
      const pa = this.b.reg('p');
      const pc = this.b.reg('p');
      this.b.ins(`setp.ne.s32 ${pa}, ${text(a)}, 0`);
      this.b.ins(`setp.ne.${op === '&&' ? 'and' : 'or'}.s32 ${pc}, ${text(c)}, 0, ${pa}`);
      this.b.ins(`selp.s32 ${d}, 1, 0, ${pc}`);
      return { reg: d };
    }
    const ins = ARITH[op];
    if (ins === undefined) throw new InputError(`${this.where}: operator ${op} has no PTX form`, loc);
    if ('imm' in c && (op === '/' || op === '%') && c.imm === 0) {
      throw new InputError(`${this.where}: ${op === '/' ? 'division' : 'remainder'} by zero`, loc);
    }
    // Keep a register first: swap commutative operands, otherwise move the immediate.
    if ('imm' in a && COMMUTATIVE.has(op)) this.b.ins(`${ins} ${d}, ${text(c)}, ${a.imm}`);
    else this.b.ins(`${ins} ${d}, ${this.materialize(a)}, ${text(c)}`);
    return { reg: d };
  }

  private fits(n: number, loc: Loc | undefined): number {
    if (!Number.isSafeInteger(n) || n < S32_MIN || n > S32_MAX) {
      throw new InputError(`${this.where}: the value ${n} does not fit in a 32-bit register`, loc);
    }
    return n;
  }
}
