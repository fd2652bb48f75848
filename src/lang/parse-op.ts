// Operations: one line each, `keyword operands`. The printer (printer.ts) writes the same shapes.
import { InputError } from '../diag.ts';
import type { Expr, Op, OpKind, Ref } from '../ir/program.ts';
import { parseExpr } from './parse-expr.ts';
import { recordLoc } from './positions.ts';
import { RESERVED } from './syntax.ts';
import type { TokenStream } from './token-stream.ts';

/** Keywords of the text form: every OpKind, plus `mma.issue` (issue + commit) and `mma.wait` (= wgmma.wait). */
export const OP_KEYWORDS: readonly string[] = [
  'put', 'get', 'consumed',
  'init', 'arrive', 'arrive.expect_tx', 'expect_tx', 'complete_tx', 'wait', 'inval',
  'tma.load', 'tma.store', 'bulk.commit', 'bulk.wait',
  'wgmma.issue', 'mma.issue', 'wgmma.commit', 'wgmma.wait', 'mma.wait',
  'bar.sync', 'bar.arrive', 'fence.proxy.async', 'read', 'write', 'atomic',
] satisfies readonly (OpKind | 'mma.issue' | 'mma.wait')[];

export function isOpKeyword(text: string): boolean {
  return OP_KEYWORDS.includes(text);
}

/** Parse the operation whose keyword is the current token (the caller checked isOpKeyword). */
export function parseOp(ts: TokenStream): Op {
  const kw = ts.next();
  const name = kw.text;
  const ref = (): Ref => parseRef(ts, `the resource ${name} acts on, like A[0]`);
  const comma = (what: string): Expr => {
    ts.expect(',', `',' and then ${what} (${name} takes it)`);
    return parseExpr(ts);
  };
  const optional = (word: string): Expr | undefined => (ts.accept(word) ? parseExpr(ts) : undefined);

  let op: Op;
  switch (name) {
    case 'put': {
      const target = ref();
      op = { kind: 'put', target, value: comma('the value to put') };
      break;
    }
    case 'get': {
      const target = ref();
      const expect = optional('expect');
      op = expect === undefined ? { kind: 'get', target } : { kind: 'get', target, expect };
      break;
    }
    case 'consumed':
      op = { kind: 'consumed', target: ref() };
      break;
    case 'init': {
      const target = ref();
      op = { kind: 'init', target, count: comma('the arrival count') };
      break;
    }
    case 'arrive': {
      const target = ref();
      const count = ts.accept(',') ? parseExpr(ts) : ({ kind: 'num', value: 1 } as const);
      const token = tokenDest(ts);
      op = token === undefined ? { kind: 'arrive', target, count } : { kind: 'arrive', target, count, token };
      break;
    }
    case 'arrive.expect_tx': {
      const target = ref();
      const bytes = comma('the byte count');
      const token = tokenDest(ts);
      op = token === undefined ? { kind: name, target, bytes } : { kind: name, target, bytes, token };
      break;
    }
    case 'expect_tx':
    case 'complete_tx': {
      const target = ref();
      op = { kind: name, target, bytes: comma('the byte count') };
      break;
    }
    case 'wait': {
      const target = ref();
      ts.expect(',', "',' and then the phase parity (0 or 1) or 'token NAME'");
      if (ts.accept('token')) op = { kind: 'wait.token', target, token: tokenName(ts) };
      else op = { kind: 'wait', target, parity: parseExpr(ts) };
      break;
    }
    case 'inval':
      op = { kind: 'inval', target: ref() };
      break;
    case 'tma.load': {
      const target = ref();
      ts.expect('->', "'->' and then the mbarrier the copy completes on");
      const barrier = parseRef(ts, 'the mbarrier the copy completes on, like full[0]');
      const bytes = comma('the byte count');
      const slots = optional('slots');
      const value = optional('value');
      op = { kind: 'tma.load', target, barrier, bytes, ...(slots !== undefined ? { slots } : {}), ...(value !== undefined ? { value } : {}) };
      break;
    }
    case 'tma.store':
      op = { kind: 'tma.store', target: ref() };
      break;
    case 'bulk.commit':
    case 'wgmma.commit':
    case 'fence.proxy.async':
      op = { kind: name };
      break;
    case 'bulk.wait':
    case 'wgmma.wait':
    case 'mma.wait': {
      const pending = parseExpr(ts);
      op = { kind: name === 'bulk.wait' ? 'bulk.wait' : 'wgmma.wait', pending };
      break;
    }
    case 'wgmma.issue':
    case 'mma.issue': {
      const target = ref();
      const expect = optional('expect');
      const commit = name === 'mma.issue';
      op = expect === undefined ? { kind: 'wgmma.issue', target, commit } : { kind: 'wgmma.issue', target, expect, commit };
      break;
    }
    case 'bar.sync':
    case 'bar.arrive': {
      const id = parseExpr(ts);
      op = { kind: name, id, threads: comma('the thread count') };
      break;
    }
    case 'read': {
      const target = ref();
      const expect = optional('expect');
      op = expect === undefined ? { kind: 'read', target } : { kind: 'read', target, expect };
      break;
    }
    case 'write': {
      const target = ref();
      const value = ts.accept(',') ? parseExpr(ts) : undefined;
      op = value === undefined ? { kind: 'write', target } : { kind: 'write', target, value };
      break;
    }
    case 'atomic':
      op = { kind: 'atomic', target: ref() };
      break;
    default:
      throw new InputError(`unknown operation '${name}'`, kw.loc);
  }
  recordLoc(op, kw.loc);
  return op;
}

/** `-> NAME` after an arrive: the token variable its state goes to. */
function tokenDest(ts: TokenStream): string | undefined {
  return ts.accept('->') ? tokenName(ts) : undefined;
}

function tokenName(ts: TokenStream): string {
  const t = ts.peek();
  if (t.kind !== 'name' || RESERVED.has(t.text) || t.text.includes('.')) throw ts.error('a token variable name');
  ts.next();
  return t.text;
}

function parseRef(ts: TokenStream, what: string): Ref {
  const t = ts.peek();
  if (t.kind !== 'name' || RESERVED.has(t.text) || t.text.includes('.')) throw ts.error(what);
  ts.next();
  ts.expect('[', `'[' after '${t.text}' (resources are indexed, like ${t.text}[0])`);
  const index = parseExpr(ts);
  ts.expect(']', `']' to close the index of ${t.text}`);
  const ref: Ref = { name: t.text, index };
  recordLoc(ref, t.loc);
  return ref;
}
