// The canonical .aref text of a Program; parseAref(printProgram(p)) gives p back (locations aside).
import { PRECEDENCE } from '../ir/expr.ts';
import type { BinOp, Expr, Op, Program, Ref, Resource, Role, Stmt } from '../ir/program.ts';

const INDENT = '  ';

type OpGroup = 'arith' | 'shift' | 'cmp' | 'bitwise' | 'and' | 'or';
const GROUP: Record<BinOp, OpGroup> = {
  '+': 'arith', '-': 'arith', '*': 'arith', '/': 'arith', '%': 'arith',
  '<<': 'shift', '>>': 'shift',
  '==': 'cmp', '!=': 'cmp', '<': 'cmp', '<=': 'cmp', '>': 'cmp', '>=': 'cmp',
  '&': 'bitwise', '|': 'bitwise', '^': 'bitwise', '&&': 'and', '||': 'or',
};

/**
 * Parentheses a binary operand needs: those precedence requires, plus the ones C compilers ask
 * for (-Wparentheses) because readers misjudge them: arithmetic, shifts and comparisons inside
 * & | ^, mixed & | ^, arithmetic inside shifts, comparisons inside comparisons, && inside ||.
 */
function operandNeedsParens(child: BinOp, parent: BinOp, side: 'left' | 'right'): boolean {
  const pc = PRECEDENCE[child];
  const pp = PRECEDENCE[parent];
  if (pc < pp || (side === 'right' && pc === pp)) return true;
  const g = GROUP[child];
  switch (GROUP[parent]) {
    case 'bitwise': return g !== 'bitwise' || child !== parent;
    case 'shift': return g === 'arith';
    case 'cmp': return g === 'cmp';
    case 'or': return g === 'and';
    default: return false;
  }
}

export function printExpr(e: Expr): string {
  switch (e.kind) {
    case 'num':
      return String(e.value);
    case 'var':
      return e.name;
    case 'un': {
      // `-3` would read back as the literal -3, so a negated literal keeps its parentheses.
      const wrap = e.arg.kind === 'bin' || (e.op === '-' && e.arg.kind === 'num');
      const arg = printExpr(e.arg);
      return `${e.op}${wrap ? `(${arg})` : arg}`;
    }
    case 'bin': {
      const side = (child: Expr, which: 'left' | 'right'): string => {
        const text = printExpr(child);
        return child.kind === 'bin' && operandNeedsParens(child.op, e.op, which) ? `(${text})` : text;
      };
      return `${side(e.left, 'left')} ${e.op} ${side(e.right, 'right')}`;
    }
  }
}

const ref = (r: Ref): string => `${r.name}[${printExpr(r.index)}]`;
const opt = (word: string, e: Expr | undefined): string => (e === undefined ? '' : ` ${word} ${printExpr(e)}`);

export function printOp(op: Op): string {
  switch (op.kind) {
    case 'put': return `put ${ref(op.target)}, ${printExpr(op.value)}`;
    case 'get': return `get ${ref(op.target)}${opt('expect', op.expect)}`;
    case 'consumed': return `consumed ${ref(op.target)}`;
    case 'init': return `init ${ref(op.target)}, ${printExpr(op.count)}`;
    case 'arrive': {
      const one = op.count.kind === 'num' && op.count.value === 1;
      return `arrive ${ref(op.target)}${one ? '' : `, ${printExpr(op.count)}`}${op.token === undefined ? '' : ` -> ${op.token}`}`;
    }
    case 'arrive.expect_tx':
      return `${op.kind} ${ref(op.target)}, ${printExpr(op.bytes)}${op.token === undefined ? '' : ` -> ${op.token}`}`;
    case 'expect_tx':
    case 'complete_tx':
      return `${op.kind} ${ref(op.target)}, ${printExpr(op.bytes)}`;
    case 'wait': return `wait ${ref(op.target)}, ${printExpr(op.parity)}`;
    case 'wait.token': return `wait ${ref(op.target)}, token ${op.token}`;
    case 'inval': return `inval ${ref(op.target)}`;
    case 'tma.load': return `tma.load ${ref(op.target)} -> ${ref(op.barrier)}, ${printExpr(op.bytes)}${opt('slots', op.slots)}${opt('value', op.value)}`;
    case 'tma.store': return `tma.store ${ref(op.target)}`;
    case 'bulk.commit':
    case 'wgmma.commit':
    case 'fence.proxy.async':
      return op.kind;
    case 'bulk.wait':
    case 'wgmma.wait':
      return `${op.kind} ${printExpr(op.pending)}`;
    case 'wgmma.issue': return `${op.commit ? 'mma.issue' : 'wgmma.issue'} ${ref(op.target)}${opt('expect', op.expect)}`;
    case 'bar.sync':
    case 'bar.arrive':
      return `${op.kind} ${printExpr(op.id)}, ${printExpr(op.threads)}`;
    case 'read': return `read ${ref(op.target)}${opt('expect', op.expect)}`;
    case 'write': return `write ${ref(op.target)}${op.value === undefined ? '' : `, ${printExpr(op.value)}`}`;
    case 'atomic': return `atomic ${ref(op.target)}`;
  }
}

/** `header:` and its block; `if`/`else` with a single operation stay on one line; `pass` for an empty block. */
function suite(header: string, body: readonly Stmt[], depth: number, out: string[], inline: boolean): void {
  const pad = INDENT.repeat(depth);
  const only = body.length === 1 ? body[0] : undefined;
  if (body.length === 0) out.push(`${pad}${header}: pass`);
  else if (inline && only?.kind === 'op') out.push(`${pad}${header}: ${printOp(only.op)}`);
  else {
    out.push(`${pad}${header}:`);
    printStmts(body, depth + 1, out);
  }
}

function printIf(s: Stmt & { kind: 'if' }, keyword: 'if' | 'elif', depth: number, out: string[]): void {
  suite(`${keyword} ${printExpr(s.cond)}`, s.then, depth, out, true);
  const only = s.else.length === 1 ? s.else[0] : undefined;
  if (only?.kind === 'if') printIf(only, 'elif', depth, out);
  else if (s.else.length > 0) suite('else', s.else, depth, out, true);
}

function printStmts(stmts: readonly Stmt[], depth: number, out: string[]): void {
  for (const s of stmts) {
    if (s.kind === 'op') out.push(`${INDENT.repeat(depth)}${printOp(s.op)}`);
    else if (s.kind === 'for') suite(`for ${s.var} in ${printExpr(s.from)}..${printExpr(s.to)}`, s.body, depth, out, false);
    else printIf(s, 'if', depth, out);
  }
}

function printResource(r: Resource): string {
  switch (r.kind) {
    case 'aref': return `aref ${r.name}[${r.depth}]${r.bytes === undefined ? '' : ` bytes ${r.bytes}`}`;
    case 'mbarrier': return `mbarrier ${r.name}[${r.size}]${r.count === undefined ? '' : ` count ${r.count}`}`;
    case 'buffer': return `buffer ${r.name}[${r.slots}] bytes ${r.bytes}`;
  }
}

function printRole(role: Role, out: string[]): void {
  out.push(`role ${role.name} warps ${role.warps}:`);
  if (role.body.length === 0) out.push(`${INDENT}pass`);
  else printStmts(role.body, 1, out);
}

/** Canonical text: params, resources, then roles, separated by blank lines. */
export function printProgram(p: Program): string {
  const sections: string[][] = [];
  if (p.params.length > 0) sections.push(p.params.map((x) => `param ${x.name} = ${x.value}`));
  if (p.namedBarriers !== undefined) sections.push([`named barriers ${p.namedBarriers}`]);
  if (p.resources.length > 0) sections.push(p.resources.map(printResource));
  if (p.warpgroups !== undefined && p.warpgroups.length > 0) sections.push(p.warpgroups.map((wg) => `warpgroup ${wg.join(', ')}`));
  for (const role of p.roles) {
    const out: string[] = [];
    printRole(role, out);
    sections.push(out);
  }
  return sections.map((lines) => lines.join('\n')).join('\n\n') + '\n';
}
