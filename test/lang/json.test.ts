// The JSON machine form: a position-keeping reader and the schema of the Program IR.
import { describe, expect, it } from 'vitest';
import type { InputError } from '../../src/diag.ts';
import { errorOf } from './input-error.ts';
import { programFromJson, programToJson, stripLocs } from '../../src/lang/index.ts';
import { readJson } from '../../src/lang/json-reader.ts';

const at = (e: InputError): string => `${e.loc?.line}:${e.loc?.col} ${e.message}`;

describe('readJson', () => {
  it('keeps the position of every value', () => {
    const node = readJson('{\n  "a": [1, "x\\n\\u0041"],\n\t"b": { "c": true }\n}', 'p.json');
    expect(node.type).toBe('object');
    if (node.type !== 'object') return;
    const [a, b] = node.entries;
    expect(a?.keyLoc).toEqual({ file: 'p.json', line: 2, col: 3 });
    expect(a?.value.loc).toEqual({ file: 'p.json', line: 2, col: 8 });
    if (a?.value.type !== 'array') throw new Error('array expected');
    expect(a.value.items.map((i) => i.loc.col)).toEqual([9, 12]);
    expect(a.value.items[1]).toMatchObject({ type: 'string', value: 'x\nA' });
    expect(b?.value.loc).toEqual({ file: 'p.json', line: 3, col: 7 });
  });

  it('reports malformed JSON at the offending character', () => {
    expect(at(errorOf(() => readJson('{"a": 1} x', 'e.json')))).toBe('1:10 expected end of file after the JSON value, found "x"');
    expect(at(errorOf(() => readJson('{"a": "open\n}', 'e.json')))).toBe('1:7 unterminated string: expected a closing \'"\'');
    expect(at(errorOf(() => readJson('{"a": 1, "a": 2}', 'e.json')))).toBe('1:10 duplicate field "a"');
    expect(at(errorOf(() => readJson('[1,\n 2,\n ]', 'e.json')))).toBe("3:2 trailing comma: expected another value after ',' (JSON allows no comma before ']')");
    expect(at(errorOf(() => readJson('{"a" 1}', 'e.json')))).toBe('1:6 expected \':\' after the field name "a", found "1"');
    expect(at(errorOf(() => readJson('', 'e.json')))).toBe('1:1 expected a JSON value (object, array, string, number, true, false or null), found end of file');
    expect(at(errorOf(() => readJson('{"a": "\\x"}', 'e.json')))).toContain('1:8 invalid escape');
  });
});

describe('programFromJson', () => {
  const wrap = (roles: string): string => `{ "params": [{ "name": "K", "value": 2 }], "resources": [{ "kind": "buffer", "name": "S", "slots": 2, "bytes": 64 }], "roles": ${roles} }`;

  it('checks field types and values at their position', () => {
    const text = wrap('[{ "name": "r", "warps": 1.5, "body": [] }]');
    const e = errorOf(() => programFromJson(text, 'f.json'));
    expect(e.message).toBe('expected the warp count (an integer), found 1.5');
    expect(e.loc?.col).toBe(text.indexOf('1.5') + 1);
    const commit = wrap('[{ "name": "r", "warps": 1, "body": [{ "kind": "op", "op": { "kind": "wgmma.issue", "target": { "name": "S", "index": { "kind": "num", "value": 0 } }, "commit": 1 } }] }]');
    expect(errorOf(() => programFromJson(commit, 'f.json')).message).toBe('expected "commit" (true or false), found a number');
    const badOp = wrap('[{ "name": "r", "warps": 1, "body": [{ "kind": "op", "op": { "kind": "bulk.wait", "pending": { "kind": "bin", "op": "**", "left": 1, "right": 2 } } }] }]');
    expect(errorOf(() => programFromJson(badOp, 'f.json')).message).toContain('unknown binary operator "**"');
  });

  it('ignores loc and source fields, so a JSON dump of the IR reads back', () => {
    const text = wrap('[{ "name": "r", "warps": 1, "loc": { "line": 9, "col": 9 }, "body": [] }]').replace('{ "params"', '{ "source": "old.aref", "params"');
    const p = programFromJson(text, 'dump.json');
    expect(p.source).toBe('dump.json');
    expect(p.roles[0]?.loc).toEqual({ file: 'dump.json', line: 1, col: text.indexOf('{ "name": "r"') + 1 });
    expect(stripLocs(programFromJson(programToJson(p), 'again.json'))).toEqual(stripLocs(p));
  });

  it('requires exactly the IR fields', () => {
    expect(errorOf(() => programFromJson('{ "params": [], "resources": [] }', 'f.json')).message).toBe('missing field "roles" in a program');
    expect(errorOf(() => programFromJson('[]', 'f.json')).message).toBe('expected a program (an object), found an array');
    const noElse = wrap('[{ "name": "r", "warps": 1, "body": [{ "kind": "if", "cond": { "kind": "num", "value": 1 }, "then": [] }] }]');
    expect(errorOf(() => programFromJson(noElse, 'f.json')).message).toBe('missing field "else" in a statement');
  });
});

describe('programToJson', () => {
  it('writes the IR without positions, short objects on one line', () => {
    const p = programFromJson(wrapMinimal(), 'm.json');
    const json = programToJson(p);
    expect(json).not.toContain('"loc"');
    expect(json).not.toContain('"source"');
    expect(json).toContain('{ "name": "K", "value": 2 }');
    expect(JSON.parse(json)).toEqual(stripLocs(p));
  });
});

function wrapMinimal(): string {
  return '{ "params": [{ "name": "K", "value": 2 }], "resources": [], "roles": [{ "name": "r", "warps": 1, "body": [] }] }';
}
