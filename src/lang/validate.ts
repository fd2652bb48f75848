// Validation of a parsed Program: names, resource kinds, sizes and operand values.
// Operand values (slot indices, parities, counts) are checked at every point of each role's
// iteration space with the concrete parameter values; spaces too large to enumerate fall back to
// interval arithmetic, which reports only what is certainly wrong (the run-time semantics checks the rest).
import { InputError } from '../diag.ts';
import { applyBin, applyUn, evalExpr } from '../ir/expr.ts';
import type { Expr, Loc, Op, Param, Program, Resource, Role, Stmt } from '../ir/program.ts';
import { resourceSize } from '../ir/program.ts';
import { evalInterval, type Interval } from './intervals.ts';
import { MBARRIER_MAX, NAMED_BARRIERS, opExprs, refRules, valueRules, type ValueRule } from './op-rules.ts';
import { fieldLocOf, locOf } from './positions.ts';
import { printExpr } from './printer.ts';
import { article, IDENT_RE, isSafeInt, MAX_INT, RESERVED, suggest } from './syntax.ts';

/** Most elements one resource may have, and most warps in a CTA (1024 threads). */
export const MAX_ELEMENTS = 4096;
export const MAX_WARPS = 32;
/** Op visits per role that are enumerated before falling back to intervals. */
export const ENUMERATION_BUDGET = 200_000;

/**
 * Check a program and return it with `overrides` applied to its params.
 * Throws one InputError (with file:line:col where known) for the first problem found.
 */
export function validateProgram(p: Program, overrides?: ReadonlyMap<string, number>): Program {
  const program = applyOverrides(p, overrides);
  const fileLoc: Loc = p.source === undefined ? { line: 1, col: 1 } : { file: p.source, line: 1, col: 1 };
  const declared = checkDeclarations(program, fileLoc);
  for (const role of program.roles) checkNames(role, declared);
  const params = new Map(program.params.map((x) => [x.name, x.value]));
  const named = program.namedBarriers ?? NAMED_BARRIERS;
  if (!Number.isInteger(named) || named < 1 || named > NAMED_BARRIERS * 17) {
    throw new InputError(`the number of named barriers must be in 1..${NAMED_BARRIERS * 17} (16 per CTA of a cluster of up to 16, and the cluster barrier), found ${named}`, fileLoc);
  }
  for (const role of program.roles) checkValues(role, params, declared.resources, named);
  return program;
}

function applyOverrides(p: Program, overrides: ReadonlyMap<string, number> | undefined): Program {
  if (!overrides || overrides.size === 0) return p;
  for (const [name, value] of overrides) {
    if (!p.params.some((x) => x.name === name)) {
      const known = p.params.map((x) => x.name);
      const list = known.length === 0 ? 'it has none' : `its parameters are ${known.join(', ')}`;
      throw new InputError(`unknown parameter '${name}': the program does not declare it (${list})${suggest(name, known)}`);
    }
    if (!isSafeInt(value)) throw new InputError(`parameter ${name} = ${value} is not an integer of magnitude at most ${MAX_INT}`);
  }
  const params = p.params.map((x): Param => {
    const v = overrides.get(x.name);
    return v === undefined ? x : { ...x, value: v };
  });
  return { ...p, params };
}

interface Declared {
  readonly params: ReadonlyMap<string, Param>;
  readonly resources: ReadonlyMap<string, Resource>;
  /** Every top-level name (params, resources, roles) with where it is declared. */
  readonly names: ReadonlyMap<string, { readonly what: string; readonly loc: Loc | undefined }>;
}

const where = (loc: Loc | undefined): string => (loc ? ` (declared at ${loc.line}:${loc.col})` : '');

function checkIdentifier(name: string, what: string, loc: Loc | undefined): void {
  if (!IDENT_RE.test(name)) throw new InputError(`${what} '${name}' is not a valid name: use letters, digits and _, not starting with a digit`, loc);
  if (RESERVED.has(name)) throw new InputError(`'${name}' is a keyword and cannot be used as ${what}`, loc);
}

function checkDeclarations(p: Program, fileLoc: Loc): Declared {
  const names = new Map<string, { what: string; loc: Loc | undefined }>();
  const declare = (name: string, what: string, loc: Loc | undefined): void => {
    checkIdentifier(name, `a ${what} name`, loc);
    const first = names.get(name);
    if (first) throw new InputError(`duplicate name '${name}': already used by ${article(first.what)}${where(first.loc)}`, loc);
    names.set(name, { what, loc });
  };
  const intIn = (node: object, field: string, value: number, min: number, max: number, what: string, fallback: Loc | undefined): void => {
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new InputError(`${what} must be an integer in ${min}..${max}, found ${value}`, fieldLocOf(node, field) ?? fallback);
    }
  };

  const params = new Map<string, Param>();
  for (const x of p.params) {
    declare(x.name, 'param', x.loc);
    if (!isSafeInt(x.value)) throw new InputError(`the value of parameter ${x.name} must be an integer of magnitude at most ${MAX_INT}, found ${x.value}`, fieldLocOf(x, 'value') ?? x.loc);
    params.set(x.name, x);
  }
  const resources = new Map<string, Resource>();
  for (const r of p.resources) {
    declare(r.name, r.kind, r.loc);
    const sizeField = r.kind === 'aref' ? 'depth' : r.kind === 'mbarrier' ? 'size' : 'slots';
    const sizeWords = r.kind === 'aref' ? 'depth' : r.kind === 'mbarrier' ? 'number of barriers' : 'number of slots';
    intIn(r, sizeField, resourceSize(r), 1, MAX_ELEMENTS, `the ${sizeWords} of ${r.kind} ${r.name}`, r.loc);
    if (r.kind === 'aref' && r.bytes !== undefined) intIn(r, 'bytes', r.bytes, 1, MBARRIER_MAX, `the bytes per slot of aref ${r.name}`, r.loc);
    if (r.kind === 'buffer') intIn(r, 'bytes', r.bytes, 1, MAX_INT, `the bytes per slot of buffer ${r.name}`, r.loc);
    if (r.kind === 'mbarrier' && r.count !== undefined) intIn(r, 'count', r.count, 1, MBARRIER_MAX, `the arrival count of mbarrier ${r.name}`, r.loc);
    resources.set(r.name, r);
  }
  if (p.roles.length === 0) throw new InputError('a program needs at least one role (role NAME warps N: …)', fileLoc);
  let warps = 0;
  // a lifted cluster of C CTAs declares 16·C + 1 named barriers (ir/program.ts): its roles may hold C CTAs' warps
  const ctas = p.namedBarriers !== undefined && p.namedBarriers > 16 ? Math.max(1, Math.floor((p.namedBarriers - 1) / 16)) : 1;
  const most = MAX_WARPS * ctas;
  const holder = ctas > 1 ? `a cluster of ${ctas} CTAs can hold (${most} warps)` : `a CTA can hold (${MAX_WARPS} warps = 1024 threads)`;
  for (const role of p.roles) {
    declare(role.name, 'role', role.loc);
    intIn(role, 'warps', role.warps, 1, MAX_WARPS, `the warp count of role ${role.name}`, role.loc);
    warps += role.warps;
    if (warps > most) throw new InputError(`the roles have ${warps} warps in all, more than ${holder}`, fieldLocOf(role, 'warps') ?? role.loc);
  }
  checkWarpgroups(p, fileLoc);
  return { params, resources, names };
}

/** `warpgroup R1, R2, …`: at least two distinct roles, each in one warpgroup, 4 warps at most in all. */
function checkWarpgroups(p: Program, fileLoc: Loc): void {
  const roles = new Map(p.roles.map((r) => [r.name, r]));
  const seen = new Set<string>();
  for (const wg of p.warpgroups ?? []) {
    const loc = fieldLocOf(wg, 'roles') ?? fileLoc;
    if (wg.length < 2) throw new InputError(`a warpgroup joins at least two roles, found ${wg.length}`, loc);
    let warps = 0;
    for (const name of wg) {
      const role = roles.get(name);
      if (!role) throw new InputError(`warpgroup: '${name}' is not a role${suggest(name, [...roles.keys()])}`, loc);
      if (seen.has(name)) throw new InputError(`warpgroup: role '${name}' is in more than one warpgroup (or twice in one)`, loc);
      seen.add(name);
      warps += role.warps;
    }
    if (warps > 4) throw new InputError(`warpgroup ${wg.join(', ')}: its roles have ${warps} warps, a warpgroup has 4`, loc);
  }
}

// ---- names and kinds (static) -------------------------------------------------------------

function checkNames(role: Role, d: Declared): void {
  const checkExpr = (e: Expr, scope: ReadonlyMap<string, Loc | undefined>, at: Loc | undefined): void => {
    const here = locOf(e) ?? at;
    switch (e.kind) {
      case 'num':
        if (!isSafeInt(e.value)) throw new InputError(`number ${e.value} is not an integer of magnitude at most ${MAX_INT}`, here);
        return;
      case 'var': {
        if (d.params.has(e.name) || scope.has(e.name)) return;
        const other = d.names.get(e.name);
        if (other) throw new InputError(`'${e.name}' is ${article(other.what)}, not a number: expressions use parameters and loop variables`, here);
        const candidates = [...d.params.keys(), ...scope.keys()];
        throw new InputError(`unknown name '${e.name}': not a parameter or a loop variable in scope${suggest(e.name, candidates)}`, here);
      }
      case 'un':
        checkExpr(e.arg, scope, at);
        return;
      case 'bin':
        checkExpr(e.left, scope, at);
        checkExpr(e.right, scope, at);
        return;
    }
  };
  const checkOp = (op: Op, scope: ReadonlyMap<string, Loc | undefined>, at: Loc | undefined): void => {
    for (const rule of refRules(op)) {
      const here = locOf(rule.ref) ?? at;
      const r = d.resources.get(rule.ref.name);
      if (!r) {
        const fitting = [...d.resources.values()].filter((x) => rule.kinds.includes(x.kind)).map((x) => x.name);
        throw new InputError(`unknown resource '${rule.ref.name}' for ${rule.role}${suggest(rule.ref.name, fitting)}`, here);
      }
      if (!rule.kinds.includes(r.kind)) {
        throw new InputError(`${rule.role} must be ${rule.kinds.map(article).join(' or ')}, but ${r.name} is ${article(r.kind)}${where(r.loc)}`, here);
      }
    }
    for (const e of opExprs(op)) checkExpr(e, scope, at);
  };
  const walk = (stmts: readonly Stmt[], scope: Map<string, Loc | undefined>): void => {
    for (const s of stmts) {
      if (s.kind === 'op') checkOp(s.op, scope, s.loc);
      else if (s.kind === 'if') {
        checkExpr(s.cond, scope, s.loc);
        walk(s.then, scope);
        walk(s.else, scope);
      } else {
        checkExpr(s.from, scope, s.loc);
        checkExpr(s.to, scope, s.loc);
        checkIdentifier(s.var, 'a loop variable name', s.loc);
        const outer = scope.get(s.var);
        if (scope.has(s.var)) throw new InputError(`loop variable '${s.var}' shadows the variable of an enclosing loop${where(outer)}`, s.loc);
        const other = d.names.get(s.var);
        if (other) throw new InputError(`loop variable '${s.var}' has the name of ${article(other.what)}${where(other.loc)}`, s.loc);
        scope.set(s.var, s.loc);
        walk(s.body, scope);
        scope.delete(s.var);
      }
    }
  };
  walk(role.body, new Map());
  checkTokens(role);
}

/** Token variables: valid names, and every wait.token waits on a token some arrive of the same role sets. */
function checkTokens(role: Role): void {
  const set = new Set<string>();
  const waits: { token: string; loc: Loc | undefined }[] = [];
  const visit = (stmts: readonly Stmt[]): void => {
    for (const s of stmts) {
      if (s.kind === 'op') {
        const op = s.op;
        if ((op.kind === 'arrive' || op.kind === 'arrive.expect_tx') && op.token !== undefined) {
          checkIdentifier(op.token, 'a token variable name', s.loc);
          set.add(op.token);
        } else if (op.kind === 'wait.token') {
          checkIdentifier(op.token, 'a token variable name', s.loc);
          waits.push({ token: op.token, loc: s.loc });
        }
      } else if (s.kind === 'for') visit(s.body);
      else {
        visit(s.then);
        visit(s.else);
      }
    }
  };
  visit(role.body);
  for (const w of waits) {
    if (!set.has(w.token)) throw new InputError(`wait on token ${w.token}, which no arrive of role ${role.name} sets (write 'arrive … -> ${w.token}')`, w.loc);
  }
}

// ---- operand values over the iteration space ----------------------------------------------

class BudgetExceeded extends Error {}

/** `it is` for a literal (the value says it all), `<expr> is` otherwise. */
const subject = (e: Expr): string => (e.kind === 'num' ? 'it is' : `${printExpr(e)} is`);

function checkValues(role: Role, params: ReadonlyMap<string, number>, resources: ReadonlyMap<string, Resource>, named: number): void {
  const lookup = (name: string): Resource => {
    const r = resources.get(name);
    if (!r) throw new Error(`unresolved resource ${name}`); // checkNames ran first
    return r;
  };
  try {
    enumerate(role, params, lookup, named);
  } catch (err) {
    if (!(err instanceof BudgetExceeded)) throw err;
    intervals(role, params, lookup, named);
  }
}

function enumerate(role: Role, params: ReadonlyMap<string, number>, lookup: (name: string) => Resource, named: number): void {
  const env = new Map(params);
  const loopVars: string[] = [];
  let visits = 0;
  const when = (): string => (loopVars.length === 0 ? '' : ` when ${loopVars.map((v) => `${v} = ${env.get(v)}`).join(', ')}`);
  const value = (e: Expr, at: Loc | undefined): number => evalChecked(e, env, (message, node) => {
    throw new InputError(`${message}${when()}`, locOf(node) ?? locOf(e) ?? at);
  });
  const check = (rule: ValueRule, at: Loc | undefined): void => {
    const v = value(rule.expr, at);
    const ok = v >= rule.min && v <= rule.max && (rule.multipleOf === undefined || v % rule.multipleOf === 0);
    if (!ok) throw new InputError(`${rule.what} must be ${rule.allowed}, but ${subject(rule.expr)} ${v}${when()}`, locOf(rule.expr) ?? at);
  };
  const walk = (stmts: readonly Stmt[]): void => {
    for (const s of stmts) {
      if (++visits > ENUMERATION_BUDGET) throw new BudgetExceeded();
      if (s.kind === 'op') {
        for (const rule of valueRules(s.op, lookup, named)) check(rule, s.loc);
        for (const e of opExprs(s.op)) value(e, s.loc);
      } else if (s.kind === 'if') {
        walk(value(s.cond, s.loc) !== 0 ? s.then : s.else);
      } else {
        const from = value(s.from, s.loc);
        const to = value(s.to, s.loc);
        loopVars.push(s.var);
        for (let k = from; k < to; k++) {
          if (++visits > ENUMERATION_BUDGET) throw new BudgetExceeded();
          env.set(s.var, k);
          walk(s.body);
        }
        loopVars.pop();
        env.delete(s.var);
      }
    }
  };
  walk(role.body);
}

/**
 * Evaluate like evalExpr, but stop at what C leaves undefined for 32-bit integers: division by
 * zero, shift counts outside 0..31, and results that do not fit 32 bits.
 */
function evalChecked(e: Expr, env: ReadonlyMap<string, number>, fail: (message: string, node: Expr) => never): number {
  switch (e.kind) {
    case 'num':
    case 'var':
      return evalExpr(e, env);
    case 'un':
      return applyUn(e.op, evalChecked(e.arg, env, fail));
    case 'bin': {
      const a = evalChecked(e.left, env, fail);
      const b = evalChecked(e.right, env, fail);
      if ((e.op === '/' || e.op === '%') && b === 0) fail(`${e.op === '/' ? 'division' : 'remainder'} by zero in ${printExpr(e)}`, e.right);
      if ((e.op === '<<' || e.op === '>>') && (b < 0 || b > 31)) fail(`shift count must be in 0..31, but ${printExpr(e.right)} is ${b}`, e.right);
      const r = applyBin(e.op, a, b);
      if (!isSafeInt(r)) fail(`${printExpr(e)} is ${r}, which does not fit a 32-bit integer`, e);
      return r;
    }
  }
}

/** Report only values that are outside the allowed range at every point, at an op that certainly runs. */
function intervals(role: Role, params: ReadonlyMap<string, number>, lookup: (name: string) => Resource, named: number): void {
  const env = new Map<string, Interval>([...params].map(([k, v]) => [k, { lo: v, hi: v }]));
  const show = (iv: Interval): string => (iv.lo === iv.hi ? `is ${iv.lo}` : `takes values in ${iv.lo}..${iv.hi}`);
  const walk = (stmts: readonly Stmt[], certain: boolean): void => {
    for (const s of stmts) {
      if (s.kind === 'op') {
        if (!certain) continue;
        for (const rule of valueRules(s.op, lookup, named)) {
          const iv = evalInterval(rule.expr, env);
          const outside = iv.hi < rule.min || iv.lo > rule.max || (rule.multipleOf !== undefined && iv.lo === iv.hi && iv.lo % rule.multipleOf !== 0);
          if (outside) throw new InputError(`${rule.what} must be ${rule.allowed}, but ${rule.expr.kind === 'num' ? 'it' : printExpr(rule.expr)} ${show(iv)}`, locOf(rule.expr) ?? s.loc);
        }
      } else if (s.kind === 'if') {
        const c = evalInterval(s.cond, env);
        if (c.lo > 0 || c.hi < 0) walk(s.then, certain);
        else if (c.lo === 0 && c.hi === 0) walk(s.else, certain);
        else {
          walk(s.then, false);
          walk(s.else, false);
        }
      } else {
        const from = evalInterval(s.from, env);
        const to = evalInterval(s.to, env);
        if (to.hi - 1 < from.lo) continue; // the loop never runs
        env.set(s.var, { lo: from.lo, hi: to.hi - 1 });
        walk(s.body, certain && to.lo > from.hi);
        env.delete(s.var);
      }
    }
  };
  walk(role.body, true);
}
