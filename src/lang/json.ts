// The JSON machine form: exactly the Program IR (src/ir/program.ts) without `loc` and `source`.
// Reading checks the schema and reports the offending node's file:line:col.
import { InputError } from '../diag.ts';
import { BIN_OPS, OP_FAMILY, UN_OPS } from '../ir/program.ts';
import type { BinOp, Expr, Loc, Op, OpKind, Param, Program, Ref, Resource, Role, Stmt, UnOp } from '../ir/program.ts';
import { readJson, type JsonNode } from './json-reader.ts';
import { recordFieldLoc, recordLoc } from './positions.ts';
import { MAX_INT } from './syntax.ts';

type FieldType = 'ref' | 'expr' | 'expr?' | 'bool' | 'name' | 'name?';

/** The operands of each operation kind, in the order the IR and the JSON form list them. */
export const OP_FIELDS = {
  put: { target: 'ref', value: 'expr' },
  get: { target: 'ref', expect: 'expr?' },
  consumed: { target: 'ref' },
  init: { target: 'ref', count: 'expr' },
  arrive: { target: 'ref', count: 'expr', token: 'name?' },
  'arrive.expect_tx': { target: 'ref', bytes: 'expr', token: 'name?' },
  expect_tx: { target: 'ref', bytes: 'expr' },
  complete_tx: { target: 'ref', bytes: 'expr' },
  wait: { target: 'ref', parity: 'expr' },
  'wait.token': { target: 'ref', token: 'name' },
  inval: { target: 'ref' },
  'tma.load': { target: 'ref', barrier: 'ref', bytes: 'expr', slots: 'expr?', value: 'expr?' },
  'tma.store': { target: 'ref' },
  'bulk.commit': {},
  'bulk.wait': { pending: 'expr' },
  'wgmma.issue': { target: 'ref', expect: 'expr?', commit: 'bool' },
  'wgmma.commit': {},
  'wgmma.wait': { pending: 'expr' },
  'bar.sync': { id: 'expr', threads: 'expr' },
  'bar.arrive': { id: 'expr', threads: 'expr' },
  'fence.proxy.async': {},
  read: { target: 'ref', expect: 'expr?' },
  write: { target: 'ref', value: 'expr?' },
  atomic: { target: 'ref' },
} as const satisfies Record<OpKind, Record<string, FieldType>>;

// ---- writing ------------------------------------------------------------------------------

/** The machine form of a program: IR fields only (no `loc`, no `source`), compact where short. */
export function programToJson(p: Program): string {
  return `${format(JSON.parse(JSON.stringify(p, (key, value: unknown) => (key === 'loc' || key === 'source' ? undefined : value))), '')}\n`;
}

const LINE_WIDTH = 100;

function format(value: unknown, indent: string): string {
  const flat = flatJson(value);
  if (indent.length + flat.length <= LINE_WIDTH || value === null || typeof value !== 'object') return flat;
  const inner = `${indent}  `;
  if (Array.isArray(value)) return `[\n${value.map((v: unknown) => inner + format(v, inner)).join(',\n')}\n${indent}]`;
  const fields = Object.entries(value).map(([k, v]) => `${inner}${JSON.stringify(k)}: ${format(v, inner)}`);
  return `{\n${fields.join(',\n')}\n${indent}}`;
}

function flatJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(flatJson).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const fields = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${flatJson(v)}`);
    return fields.length === 0 ? '{}' : `{ ${fields.join(', ')} }`;
  }
  return JSON.stringify(value);
}

// ---- reading ------------------------------------------------------------------------------

const TYPE_NAMES: Record<JsonNode['type'], string> = {
  object: 'an object', array: 'an array', string: 'a string', number: 'a number', boolean: 'a boolean', null: 'null',
};

/** Field access on one JSON object, remembering which fields were used to reject unknown ones. */
class Fields {
  private readonly node: JsonNode & { type: 'object' };
  private readonly what: string;
  private readonly used = new Set<string>(['loc']); // positions in the input are ignored: ours are exact
  constructor(node: JsonNode, what: string) {
    if (node.type !== 'object') throw new InputError(`expected ${what} (an object), found ${TYPE_NAMES[node.type]}`, node.loc);
    this.node = node;
    this.what = what;
  }
  get loc(): Loc {
    return this.node.loc;
  }
  optional(key: string): JsonNode | undefined {
    this.used.add(key);
    return this.node.entries.find((e) => e.key === key)?.value;
  }
  required(key: string): JsonNode {
    const v = this.optional(key);
    if (v === undefined) throw new InputError(`missing field "${key}" in ${this.what}`, this.node.loc);
    return v;
  }
  /** Call after reading: any field not read is a mistake (a typo, or a field of another kind). */
  done(): void {
    const extra = this.node.entries.find((e) => !this.used.has(e.key));
    if (extra) {
      const known = [...this.used].filter((k) => k !== 'loc').map((k) => `"${k}"`).join(', ');
      throw new InputError(`unknown field "${extra.key}" in ${this.what} (expected ${known || 'no fields'})`, extra.keyLoc);
    }
  }
}

function str(node: JsonNode, what: string): string {
  if (node.type !== 'string') throw new InputError(`expected ${what} (a string), found ${TYPE_NAMES[node.type]}`, node.loc);
  return node.value;
}

function int(node: JsonNode, what: string): number {
  if (node.type !== 'number') throw new InputError(`expected ${what} (an integer), found ${TYPE_NAMES[node.type]}`, node.loc);
  if (!Number.isInteger(node.value)) throw new InputError(`expected ${what} (an integer), found ${node.raw}`, node.loc);
  if (Math.abs(node.value) > MAX_INT) throw new InputError(`number ${node.raw} is too large: numbers must be at most ${MAX_INT} (2^31 - 1) in magnitude`, node.loc);
  return node.value;
}

function bool(node: JsonNode, what: string): boolean {
  if (node.type !== 'boolean') throw new InputError(`expected ${what} (true or false), found ${TYPE_NAMES[node.type]}`, node.loc);
  return node.value;
}

function list<T>(node: JsonNode, what: string, item: (n: JsonNode) => T): T[] {
  if (node.type !== 'array') throw new InputError(`expected ${what} (an array), found ${TYPE_NAMES[node.type]}`, node.loc);
  return node.items.map(item);
}

function oneOf<T extends string>(node: JsonNode, what: string, options: readonly T[]): T {
  const s = str(node, what);
  const found = options.find((o) => o === s);
  if (found === undefined) throw new InputError(`unknown ${what} "${s}" (expected one of ${options.join(' ')})`, node.loc);
  return found;
}

function readExpr(node: JsonNode): Expr {
  const f = new Fields(node, 'an expression');
  const kind = oneOf(f.required('kind'), 'expression kind', ['num', 'var', 'un', 'bin'] as const);
  let e: Expr;
  if (kind === 'num') e = { kind, value: int(f.required('value'), 'the value of a number') };
  else if (kind === 'var') e = { kind, name: str(f.required('name'), 'a name'), loc: f.loc };
  else if (kind === 'un') {
    const op: UnOp = oneOf(f.required('op'), 'unary operator', UN_OPS);
    e = { kind, op, arg: readExpr(f.required('arg')) };
  } else {
    const op: BinOp = oneOf(f.required('op'), 'binary operator', BIN_OPS);
    e = { kind, op, left: readExpr(f.required('left')), right: readExpr(f.required('right')) };
  }
  f.done();
  recordLoc(e, f.loc);
  return e;
}

function readRef(node: JsonNode, what: string): Ref {
  const f = new Fields(node, what);
  const nameNode = f.required('name');
  const ref: Ref = { name: str(nameNode, 'a resource name'), index: readExpr(f.required('index')) };
  f.done();
  recordLoc(ref, nameNode.loc);
  return ref;
}

const OP_KINDS = Object.keys(OP_FAMILY) as OpKind[];

function readOp(node: JsonNode): Op {
  const f = new Fields(node, 'an operation');
  const kind = oneOf(f.required('kind'), 'operation kind', OP_KINDS);
  const op: Record<string, unknown> = { kind };
  for (const [field, type] of Object.entries(OP_FIELDS[kind]) as [string, FieldType][]) {
    if (type === 'expr?') {
      const v = f.optional(field);
      if (v !== undefined) op[field] = readExpr(v);
    } else if (type === 'name' || type === 'name?') {
      const v = type === 'name' ? f.required(field) : f.optional(field);
      if (v !== undefined) op[field] = str(v, `the ${field} of ${kind} (a token variable name)`);
    } else {
      const v = f.required(field);
      op[field] = type === 'ref' ? readRef(v, `the ${field} of ${kind} (an object with "name" and "index")`) : type === 'bool' ? bool(v, `"${field}"`) : readExpr(v);
    }
  }
  f.done();
  recordLoc(op, f.loc);
  return op as unknown as Op; // shape fixed by OP_FIELDS, which mirrors the Op union
}

function readStmt(node: JsonNode): Stmt {
  const f = new Fields(node, 'a statement');
  const kind = oneOf(f.required('kind'), 'statement kind', ['for', 'if', 'op'] as const);
  let s: Stmt;
  if (kind === 'for') {
    s = {
      kind, var: str(f.required('var'), 'the loop variable'), from: readExpr(f.required('from')), to: readExpr(f.required('to')),
      body: list(f.required('body'), 'the loop body', readStmt), loc: f.loc,
    };
  } else if (kind === 'if') {
    s = { kind, cond: readExpr(f.required('cond')), then: list(f.required('then'), 'the then branch', readStmt), else: list(f.required('else'), 'the else branch', readStmt), loc: f.loc };
  } else {
    s = { kind, op: readOp(f.required('op')), loc: f.loc };
  }
  f.done();
  return s;
}

function readParam(node: JsonNode): Param {
  const f = new Fields(node, 'a parameter');
  const valueNode = f.required('value');
  const p: Param = { name: str(f.required('name'), 'the parameter name'), value: int(valueNode, 'the parameter value'), loc: f.loc };
  f.done();
  recordFieldLoc(p, 'value', valueNode.loc);
  return p;
}

function readResource(node: JsonNode): Resource {
  const f = new Fields(node, 'a resource');
  const kind = oneOf(f.required('kind'), 'resource kind', ['aref', 'mbarrier', 'buffer'] as const);
  const name = str(f.required('name'), 'the resource name');
  const sizeField = kind === 'aref' ? 'depth' : kind === 'mbarrier' ? 'size' : 'slots';
  const sizeNode = f.required(sizeField);
  const size = int(sizeNode, `the ${sizeField} of ${name}`);
  const loc = f.loc;
  const optionField = kind === 'mbarrier' ? 'count' : 'bytes';
  const optionNode = kind === 'buffer' ? f.required('bytes') : f.optional(optionField);
  const option = optionNode === undefined ? undefined : int(optionNode, `the ${optionField} of ${name}`);
  let r: Resource;
  if (kind === 'aref') r = option === undefined ? { kind, name, depth: size, loc } : { kind, name, depth: size, bytes: option, loc };
  else if (kind === 'mbarrier') r = option === undefined ? { kind, name, size, loc } : { kind, name, size, count: option, loc };
  else r = { kind, name, slots: size, bytes: option ?? 0, loc };
  f.done();
  recordFieldLoc(r, sizeField, sizeNode.loc);
  if (optionNode) recordFieldLoc(r, optionField, optionNode.loc);
  return r;
}

function readRole(node: JsonNode): Role {
  const f = new Fields(node, 'a role');
  const warpsNode = f.required('warps');
  const role: Role = { name: str(f.required('name'), 'the role name'), warps: int(warpsNode, 'the warp count'), body: list(f.required('body'), 'the role body', readStmt), loc: f.loc };
  f.done();
  recordFieldLoc(role, 'warps', warpsNode.loc);
  return role;
}

/** Parse the JSON machine form (syntax and schema only: validate with validateProgram). */
export function programFromJson(text: string, file: string): Program {
  const f = new Fields(readJson(text, file), 'a program');
  const program: Program = {
    params: list(f.required('params'), 'the params', readParam),
    resources: list(f.required('resources'), 'the resources', readResource),
    roles: list(f.required('roles'), 'the roles', readRole),
    source: file,
  };
  const named = f.optional('namedBarriers');
  if (named !== undefined) (program as { namedBarriers?: number }).namedBarriers = int(named, 'the number of named barriers');
  const warpgroups = f.optional('warpgroups');
  if (warpgroups !== undefined) {
    (program as { warpgroups?: readonly (readonly string[])[] }).warpgroups = list(warpgroups, 'the warpgroups', (wg) => {
      const names = list(wg, 'a warpgroup (a list of role names)', (n) => str(n, 'a role name'));
      recordFieldLoc(names, 'roles', wg.loc);
      return names;
    });
  }
  f.optional('source'); // written by JSON.stringify of an IR value; the file name wins
  f.done();
  return program;
}
