// Concrete unrolling of one role: the straight-line sequence of operations it executes, each with
// the values of the params and loop variables at that point. Control flow in the IR depends only
// on params and loop variables, so a role's op sequence is fixed before it runs; only the
// interleaving between roles is left to the semantics. Used by tests and by readers of programs.
import { InputError } from './diag.ts';
import { EvalError, evalExpr, type Env } from './ir/expr.ts';
import type { Loc, Op, Program, Stmt } from './ir/program.ts';

export interface UnrolledOp {
  readonly op: Op;
  /** Params and the enclosing loop variables, as they are when the op runs. */
  readonly env: Env;
  readonly loc?: Loc;
}

/** Default bound on the ops one role may unroll to, so a huge K cannot exhaust memory silently. */
export const DEFAULT_UNROLL_LIMIT = 1_000_000;

export function paramEnv(program: Program): Map<string, number> {
  return new Map(program.params.map((p) => [p.name, p.value]));
}

export function unrollRole(program: Program, roleIndex: number, limit = DEFAULT_UNROLL_LIMIT): UnrolledOp[] {
  const role = program.roles[roleIndex];
  if (!role) throw new RangeError(`no role ${roleIndex} (the program has ${program.roles.length})`);
  const out: UnrolledOp[] = [];
  const evalAt = (e: Parameters<typeof evalExpr>[0], env: Env, loc: Loc | undefined): number => {
    try {
      return evalExpr(e, env);
    } catch (err) {
      if (err instanceof EvalError) throw new InputError(`in role ${role.name}: ${err.message}`, loc);
      throw err;
    }
  };
  const walk = (stmts: readonly Stmt[], env: Env): void => {
    for (const s of stmts) {
      switch (s.kind) {
        case 'op':
          if (out.length >= limit) throw new InputError(`role ${role.name} unrolls to more than ${limit} operations`, s.loc);
          out.push(s.loc ? { op: s.op, env, loc: s.loc } : { op: s.op, env });
          break;
        case 'if':
          walk(evalAt(s.cond, env, s.loc) !== 0 ? s.then : s.else, env);
          break;
        case 'for': {
          const from = evalAt(s.from, env, s.loc);
          const to = evalAt(s.to, env, s.loc);
          for (let i = from; i < to; i++) walk(s.body, new Map(env).set(s.var, i));
          break;
        }
      }
    }
  };
  walk(role.body, paramEnv(program));
  return out;
}
