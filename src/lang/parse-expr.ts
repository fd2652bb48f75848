// Integer expressions: precedence climbing with C's binding strengths (PRECEDENCE in ir/expr.ts).
import { InputError } from '../diag.ts';
import { PRECEDENCE } from '../ir/expr.ts';
import type { BinOp, Expr, Loc } from '../ir/program.ts';
import { locOf, recordLoc } from './positions.ts';
import { RESERVED } from './syntax.ts';
import type { TokenStream } from './token-stream.ts';

const isBinOp = (text: string): text is BinOp => Object.hasOwn(PRECEDENCE, text);

export function parseExpr(ts: TokenStream, minPrec = 1): Expr {
  let left = parseUnary(ts);
  for (;;) {
    const t = ts.peek();
    if (t.kind !== 'punct' || !isBinOp(t.text)) return left;
    const prec = PRECEDENCE[t.text];
    if (prec < minPrec) return left;
    ts.next();
    const right = parseExpr(ts, prec + 1); // all binary operators associate to the left
    left = at({ kind: 'bin', op: t.text, left, right }, locOf(left) ?? t.loc);
  }
}

function parseUnary(ts: TokenStream): Expr {
  const t = ts.peek();
  if (t.kind === 'punct' && (t.text === '-' || t.text === '!')) {
    ts.next();
    const after = ts.peek();
    if (t.text === '-' && after.kind === 'int') {
      // `-3` is the literal -3, so the printer can write negative numbers without parentheses.
      ts.next();
      return at({ kind: 'num', value: after.value === 0 ? 0 : -after.value }, t.loc);
    }
    return at({ kind: 'un', op: t.text, arg: parseUnary(ts) }, t.loc);
  }
  if (t.kind === 'int') {
    ts.next();
    return at({ kind: 'num', value: t.value }, t.loc);
  }
  if (t.kind === 'name') {
    if (RESERVED.has(t.text)) throw new InputError(`expected an expression, found the keyword '${t.text}'`, t.loc);
    if (t.text.includes('.')) throw new InputError(`expected an expression, found '${t.text}' (names cannot contain '.')`, t.loc);
    ts.next();
    return { kind: 'var', name: t.text, loc: t.loc };
  }
  if (t.kind === 'punct' && t.text === '(') {
    ts.next();
    const inner = parseExpr(ts);
    ts.expect(')', "')' to close the parenthesis");
    return at(inner, t.loc); // a parenthesised operand starts at its '('
  }
  throw ts.error('an expression (a number, a name, -, ! or a parenthesis)');
}

function at(node: Expr, loc: Loc): Expr {
  recordLoc(node, loc);
  return node;
}
