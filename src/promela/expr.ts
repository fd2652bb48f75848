// Program expressions in Promela: parameters folded in as constants, loop variables as the
// proctype's locals. Promela evaluates in C, whose integer operators are the IR's (/ and %
// truncate, >> is arithmetic); comparisons and logic become 0/1 explicitly so they can be
// used in arithmetic. A division, remainder or shift whose right operand is not a constant is
// refused: the checker reports such an evaluation error as a protocol violation, pan would crash.
import { InputError } from '../diag.ts';
import { applyBin, applyUn, EvalError } from '../ir/expr.ts';
import type { Expr, Loc } from '../ir/program.ts';

const BOOLEAN = new Set(['==', '!=', '<', '<=', '>', '>=', '&&', '||']);
const NEEDS_CONSTANT = new Set(['/', '%', '<<', '>>']);

/** Substitute parameter values and fold constant subexpressions. */
export function foldExpr(e: Expr, params: ReadonlyMap<string, number>): Expr {
  switch (e.kind) {
    case 'num':
      return e;
    case 'var': {
      const value = params.get(e.name);
      return value === undefined ? e : { kind: 'num', value };
    }
    case 'un': {
      const arg = foldExpr(e.arg, params);
      return arg.kind === 'num' ? { kind: 'num', value: applyUn(e.op, arg.value) } : { ...e, arg };
    }
    case 'bin': {
      const left = foldExpr(e.left, params);
      const right = foldExpr(e.right, params);
      if (left.kind === 'num' && right.kind === 'num') {
        try {
          return { kind: 'num', value: applyBin(e.op, left.value, right.value) };
        } catch (err) {
          if (!(err instanceof EvalError)) throw err;
        }
      }
      return { ...e, left, right };
    }
  }
}

/** A Promela integer expression for `e` (already folded); `local` names each loop variable's local. */
export function promelaExpr(e: Expr, local: (name: string) => string | undefined, loc?: Loc): string {
  switch (e.kind) {
    case 'num':
      return e.value < 0 ? `(${e.value})` : String(e.value);
    case 'var': {
      const name = local(e.name);
      if (name === undefined) throw new InputError(`unknown name '${e.name}'`, e.loc ?? loc);
      return name;
    }
    case 'un':
      return e.op === '-' ? `(-${promelaExpr(e.arg, local, loc)})` : `(${promelaExpr(e.arg, local, loc)} == 0 -> 1 : 0)`;
    case 'bin': {
      if (NEEDS_CONSTANT.has(e.op)) {
        const ok = e.right.kind === 'num' && (e.op === '/' || e.op === '%' ? e.right.value !== 0 : e.right.value >= 0 && e.right.value <= 31);
        if (!ok) throw new InputError(`cannot export '${e.op}' with a right operand that is not a constant ${e.op === '/' || e.op === '%' ? 'other than 0' : 'in 0..31'} to Promela (pan would fail where the checker reports an evaluation error)`, loc);
      }
      const l = promelaExpr(e.left, local, loc);
      const r = promelaExpr(e.right, local, loc);
      if (e.op === '&&' || e.op === '||') return `((${l} != 0) ${e.op} (${r} != 0) -> 1 : 0)`;
      if (BOOLEAN.has(e.op)) return `(${l} ${e.op} ${r} -> 1 : 0)`;
      return `(${l} ${e.op} ${r})`;
    }
  }
}
