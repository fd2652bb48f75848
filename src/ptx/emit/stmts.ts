// A role's statements → PTX control flow. Loops and ifs depend only on params and loop
// variables, so every branch is uniform across the role's threads (`bra.uni`): the
// warpgroup-aligned instructions (wgmma, bar.sync) inside them stay aligned.
import type { Expr, Loc, Op, Stmt } from '../../ir/program.ts';
import type { PtxBuilder } from './builder.ts';
import { text, type ExprCompiler, type Operand, type Scope } from './expr.ts';

export type OpEmitter = (op: Op, scope: Scope, loc: Loc | undefined) => void;

/** Code around each trip of the `for` loops at the top level of `stmts` (a persistent kernel's loop over tiles). */
export interface LoopHooks {
  /** Start of a trip; `scope` has the loop variable. */
  start(scope: Scope, loopVar: string): void;
  /** End of a trip, after the loop body's ops. */
  end(scope: Scope, loopVar: string): void;
}

export function compileStmts(b: PtxBuilder, ex: ExprCompiler, stmts: readonly Stmt[], scope: Scope, emitOp: OpEmitter, hooks?: LoopHooks): void {
  for (const s of stmts) {
    switch (s.kind) {
      case 'op':
        emitOp(s.op, scope, s.loc);
        break;
      case 'if': {
        const c = ex.condition(s.cond, scope, s.loc);
        if ('always' in c) {
          compileStmts(b, ex, c.always ? s.then : s.else, scope, emitOp);
          break;
        }
        const elseLabel = b.label('else');
        const endLabel = b.label('endif');
        b.ins(`@!${c.pred} bra.uni ${s.else.length > 0 ? elseLabel : endLabel}`);
        compileStmts(b, ex, s.then, scope, emitOp);
        if (s.else.length > 0) {
          b.ins(`bra.uni ${endLabel}`);
          b.place(elseLabel);
          compileStmts(b, ex, s.else, scope, emitOp);
        }
        b.place(endLabel);
        break;
      }
      case 'for': {
        const v = b.reg('r');
        b.comment(`for ${s.var} in ${describe(s.from)}..${describe(s.to)}`);
        b.ins(`mov.s32 ${v}, ${text(ex.value(s.from, scope, s.loc))}`);
        const head = b.label('for');
        const end = b.label('endfor');
        b.place(head);
        const inner = new Map<string, Operand>(scope).set(s.var, { reg: v });
        const to = ex.value(s.to, scope, s.loc);
        const p = b.reg('p');
        b.ins(`setp.ge.s32 ${p}, ${v}, ${'imm' in to ? to.imm : to.reg}`);
        b.ins(`@${p} bra.uni ${end}`);
        hooks?.start(inner, s.var);
        compileStmts(b, ex, s.body, inner, emitOp);
        hooks?.end(inner, s.var);
        b.ins(`add.s32 ${v}, ${v}, 1`);
        b.ins(`bra.uni ${head}`);
        b.place(end);
        break;
      }
    }
  }
}

/** A short rendering of a bound for the loop comment. */
function describe(e: Expr): string {
  switch (e.kind) {
    case 'num': return String(e.value);
    case 'var': return e.name;
    default: return '(expr)';
  }
}
