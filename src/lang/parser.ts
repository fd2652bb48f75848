// The .aref parser: declarations and roles with indented blocks (grammar in docs/language.md).
// It checks syntax only; names, kinds and ranges are checked by validate.ts.
import { InputError } from '../diag.ts';
import type { Param, Program, Resource, Role, Stmt } from '../ir/program.ts';
import { lex, type Token } from './lexer.ts';
import { parseExpr } from './parse-expr.ts';
import { isOpKeyword, OP_KEYWORDS, parseOp } from './parse-op.ts';
import { recordFieldLoc } from './positions.ts';
import { RESERVED, suggest } from './syntax.ts';
import { TokenStream } from './token-stream.ts';

const DECLARATIONS = ['param', 'aref', 'mbarrier', 'buffer', 'named', 'warpgroup', 'role'];

/** Parse .aref text into a Program (syntax only: call validateProgram, or use parseArefFile). */
export function parseAref(text: string, file: string): Program {
  const ts = new TokenStream(lex(text, file));
  const params: Param[] = [];
  const resources: Resource[] = [];
  const roles: Role[] = [];
  let namedBarriers: { value: number } | undefined;
  const warpgroups: string[][] = [];
  for (;;) {
    const t = ts.peek();
    if (t.kind === 'eof') break;
    if (t.kind === 'newline') {
      ts.next();
      continue;
    }
    if (t.kind === 'indent') throw new InputError('unexpected indentation: declarations and roles start at column 1', t.loc);
    if (t.kind === 'name' && t.text === 'param') params.push(parseParam(ts));
    else if (t.kind === 'name' && t.text === 'named') namedBarriers = parseNamedBarriers(ts, namedBarriers);
    else if (t.kind === 'name' && t.text === 'warpgroup') warpgroups.push(parseWarpgroup(ts));
    else if (t.kind === 'name' && t.text === 'role') roles.push(parseRole(ts));
    else if (t.kind === 'name' && (t.text === 'aref' || t.text === 'mbarrier' || t.text === 'buffer')) resources.push(parseResource(ts));
    else if (t.kind === 'name' && isOpKeyword(t.text)) throw new InputError(`operation '${t.text}' outside a role: put it in the body of a role`, t.loc);
    else {
      const hint = t.kind === 'name' ? suggest(t.text, DECLARATIONS) : '';
      throw ts.error(`a declaration (param, aref, mbarrier, buffer, named barriers, warpgroup) or a role${hint}`);
    }
  }
  return {
    params,
    resources,
    roles,
    source: file,
    ...(namedBarriers === undefined ? {} : { namedBarriers: namedBarriers.value }),
    ...(warpgroups.length === 0 ? {} : { warpgroups }),
  };
}

/** `warpgroup R1, R2, …`: the wgmma operations of these roles are those of one warpgroup. */
function parseWarpgroup(ts: TokenStream): string[] {
  const kw = ts.next();
  const names = [parseName(ts, 'a role name after warpgroup').text];
  while (ts.isText(',')) {
    ts.next();
    names.push(parseName(ts, 'a role name').text);
  }
  endOfLine(ts, 'the warpgroup');
  recordFieldLoc(names, 'roles', kw.loc);
  return names;
}

/** `named barriers N`: the program's named barrier ids are 0..N-1 (a cluster's CTAs each have 16). */
function parseNamedBarriers(ts: TokenStream, seen: { value: number } | undefined): { value: number } {
  const kw = ts.next();
  if (seen) throw new InputError("'named barriers' is declared twice", kw.loc);
  ts.expect('barriers', "'barriers' after 'named'");
  const n = parseIntLiteral(ts, 'the number of named barriers');
  endOfLine(ts, 'the named barrier count');
  return { value: n.value };
}

function parseName(ts: TokenStream, what: string): Token {
  const t = ts.peek();
  if (t.kind !== 'name' || t.text.includes('.')) throw ts.error(what);
  if (RESERVED.has(t.text)) throw new InputError(`'${t.text}' is a keyword and cannot be used as ${what}`, t.loc);
  return ts.next();
}

function parseIntLiteral(ts: TokenStream, what: string, allowNegative = false): Token & { readonly value: number } {
  const minus = allowNegative && ts.isText('-') ? ts.next() : undefined;
  const t = ts.peek();
  if (t.kind !== 'int') throw ts.error(`an integer literal for ${what}`);
  ts.next();
  return minus ? { ...t, value: t.value === 0 ? 0 : -t.value, loc: minus.loc } : t;
}

function endOfLine(ts: TokenStream, after: string): void {
  ts.expectKind('newline', `end of line after ${after}`);
}

function parseParam(ts: TokenStream): Param {
  const kw = ts.next();
  const name = parseName(ts, 'a parameter name');
  ts.expect('=', `'=' and the value of parameter ${name.text}`);
  const value = parseIntLiteral(ts, `the value of parameter ${name.text}`, true);
  endOfLine(ts, `the parameter ${name.text}`);
  const param: Param = { name: name.text, value: value.value, loc: kw.loc };
  recordFieldLoc(param, 'value', value.loc);
  return param;
}

function parseResource(ts: TokenStream): Resource {
  const kw = ts.next();
  const kind = kw.text;
  const name = parseName(ts, `the name of the ${kind}`);
  ts.expect('[', `'[' and the number of elements of ${name.text}, like ${name.text}[2]`);
  const size = parseIntLiteral(ts, `the number of elements of ${name.text} (sizes are literals, not expressions)`);
  ts.expect(']', `']' after the size of ${name.text}`);
  const loc = kw.loc;
  let resource: Resource;
  let option: Token | undefined;
  if (kind === 'mbarrier') {
    option = ts.accept('count') ? parseIntLiteral(ts, `the arrival count of ${name.text}`) : undefined;
    resource = option ? { kind: 'mbarrier', name: name.text, size: size.value, count: option.value, loc } : { kind: 'mbarrier', name: name.text, size: size.value, loc };
    if (option) recordFieldLoc(resource, 'count', option.loc);
    recordFieldLoc(resource, 'size', size.loc);
  } else if (kind === 'aref') {
    option = ts.accept('bytes') ? parseIntLiteral(ts, `the bytes per slot of ${name.text}`) : undefined;
    resource = option ? { kind: 'aref', name: name.text, depth: size.value, bytes: option.value, loc } : { kind: 'aref', name: name.text, depth: size.value, loc };
    if (option) recordFieldLoc(resource, 'bytes', option.loc);
    recordFieldLoc(resource, 'depth', size.loc);
  } else {
    option = ts.accept('bytes') ? parseIntLiteral(ts, `the bytes per slot of ${name.text}`) : undefined;
    resource = { kind: 'buffer', name: name.text, slots: size.value, bytes: option?.value ?? DEFAULT_BUFFER_BYTES, loc };
    if (option) recordFieldLoc(resource, 'bytes', option.loc);
    recordFieldLoc(resource, 'slots', size.loc);
  }
  const optionWord = kind === 'mbarrier' ? "'count'" : "'bytes'";
  endOfLine(ts, option ? `the ${kind} ${name.text}` : `the ${kind} ${name.text} (or ${optionWord})`);
  return resource;
}

/** Bytes per buffer slot when `bytes` is left out (the aref default of program.ts). */
export const DEFAULT_BUFFER_BYTES = 16384;

function parseRole(ts: TokenStream): Role {
  const kw = ts.next();
  const name = parseName(ts, 'a role name');
  ts.expect('warps', `'warps' and the number of warps of role ${name.text}`);
  const warps = parseIntLiteral(ts, `the number of warps of role ${name.text}`);
  ts.expect(':', `':' at the end of the role header`);
  const role: Role = { name: name.text, warps: warps.value, body: parseSuite(ts, `role ${name.text}`), loc: kw.loc };
  recordFieldLoc(role, 'warps', warps.loc);
  return role;
}

/** After a ':' — either an op on the same line or a NEWLINE and an indented block. */
function parseSuite(ts: TokenStream, owner: string): Stmt[] {
  if (ts.peek().kind !== 'newline') {
    const t = ts.peek();
    if (t.kind === 'name' && (t.text === 'for' || t.text === 'if')) {
      throw new InputError(`'${t.text}' cannot follow ':' on the same line; start it on its own indented line`, t.loc);
    }
    const keyword = ts.peek().text;
    const stmts = parseSimple(ts);
    endOfLine(ts, `the ${keyword} operation`);
    return stmts;
  }
  ts.next();
  if (ts.peek().kind !== 'indent') throw ts.error(`an indented block for ${owner}`);
  ts.next();
  const body: Stmt[] = [];
  while (ts.peek().kind !== 'dedent' && ts.peek().kind !== 'eof') body.push(...parseStmt(ts));
  ts.next();
  return body;
}

function parseStmt(ts: TokenStream): Stmt[] {
  const t = ts.peek();
  if (t.kind === 'indent') throw new InputError('unexpected indentation: only a line ending in \':\' opens a block', t.loc);
  if (t.kind === 'name' && t.text === 'for') return [parseFor(ts)];
  if (t.kind === 'name' && t.text === 'if') return [parseIf(ts)];
  if (t.kind === 'name' && (t.text === 'else' || t.text === 'elif')) throw new InputError(`'${t.text}' without a matching 'if' at the same indentation`, t.loc);
  const stmts = parseSimple(ts);
  endOfLine(ts, `the ${t.text} operation`);
  return stmts;
}

/** `pass` (nothing) or one operation. */
function parseSimple(ts: TokenStream): Stmt[] {
  const t = ts.peek();
  if (t.kind === 'name' && t.text === 'pass') {
    ts.next();
    return [];
  }
  if (t.kind === 'name' && isOpKeyword(t.text)) return [{ kind: 'op', op: parseOp(ts), loc: t.loc }];
  if (t.kind === 'name' && DECLARATIONS.includes(t.text)) throw new InputError(`'${t.text}' declarations must be at the top level, not inside a role`, t.loc);
  if (t.kind === 'name') throw new InputError(`unknown operation '${t.text}'${suggest(t.text, OP_KEYWORDS)}`, t.loc);
  throw ts.error('an operation, for, if or pass');
}

function parseFor(ts: TokenStream): Stmt {
  const kw = ts.next();
  const v = parseName(ts, 'a loop variable name');
  ts.expect('in', `'in' after the loop variable ${v.text}`);
  const from = parseExpr(ts);
  ts.expect('..', "'..' between the loop bounds (for k in 0..K runs k = 0 … K-1)");
  const to = parseExpr(ts);
  ts.expect(':', "':' at the end of the for header");
  const body = parseSuite(ts, `the for loop over ${v.text}`);
  return { kind: 'for', var: v.text, from, to, body, loc: kw.loc };
}

function parseIf(ts: TokenStream): Stmt {
  const kw = ts.next();
  const cond = parseExpr(ts);
  ts.expect(':', "':' after the if condition");
  const then = parseSuite(ts, 'the if');
  let otherwise: Stmt[] = [];
  if (ts.isText('elif')) {
    otherwise = [parseIf(ts)];
  } else if (ts.isText('else')) {
    ts.next();
    ts.expect(':', "':' after 'else'");
    otherwise = parseSuite(ts, 'the else');
  }
  return { kind: 'if', cond, then, else: otherwise, loc: kw.loc };
}
