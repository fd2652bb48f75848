// The .aref text form: expressions, operations, layout, and the printer's canonical shapes.
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evalExpr } from '../../src/ir/expr.ts';
import type { Expr, Op, Program, Stmt } from '../../src/ir/program.ts';
import { parseAref, parseArefFile, printExpr, printProgram, stripLocs } from '../../src/lang/index.ts';

const roleBody = (ops: string): readonly Stmt[] => {
  const p = parseAref(`aref A[4]\nmbarrier b[4]\nbuffer S[4] bytes 4096\nparam K = 3\nrole r warps 1:\n${ops.replace(/^/gm, '  ')}\n`, 't.aref');
  return stripLocs(p).roles[0]?.body ?? [];
};
const op = (text: string): Op => {
  const s = roleBody(text)[0];
  if (s?.kind !== 'op') throw new Error('not an op');
  return s.op;
};
const expr = (text: string): Expr => {
  const o = op(`put A[0], ${text}`);
  if (o.kind !== 'put') throw new Error('not a put');
  return o.value;
};
const n = (value: number): Expr => ({ kind: 'num', value });
const v = (name: string): Expr => ({ kind: 'var', name });

describe('expressions', () => {
  it('follow C precedence and associate to the left', () => {
    expect(expr('1 + 2 * 3')).toEqual({ kind: 'bin', op: '+', left: n(1), right: { kind: 'bin', op: '*', left: n(2), right: n(3) } });
    expect(expr('8 - 4 - 2')).toEqual({ kind: 'bin', op: '-', left: { kind: 'bin', op: '-', left: n(8), right: n(4) }, right: n(2) });
    expect(expr('K / 3 & 1')).toEqual({ kind: 'bin', op: '&', left: { kind: 'bin', op: '/', left: v('K'), right: n(3) }, right: n(1) });
    expect(expr('1 | 2 ^ 3 & 4')).toEqual({ kind: 'bin', op: '|', left: n(1), right: { kind: 'bin', op: '^', left: n(2), right: { kind: 'bin', op: '&', left: n(3), right: n(4) } } });
    expect(expr('K >= 1 && K < 3 || 0')).toEqual({
      kind: 'bin', op: '||',
      left: { kind: 'bin', op: '&&', left: { kind: 'bin', op: '>=', left: v('K'), right: n(1) }, right: { kind: 'bin', op: '<', left: v('K'), right: n(3) } },
      right: n(0),
    });
  });

  it('read hex literals, negative literals and unary operators', () => {
    expect(expr('0x10')).toEqual(n(16));
    expect(expr('-3')).toEqual(n(-3));
    expect(expr('-(3)')).toEqual({ kind: 'un', op: '-', arg: n(3) });
    expect(expr('!K')).toEqual({ kind: 'un', op: '!', arg: v('K') });
    expect(expr('- -K')).toEqual({ kind: 'un', op: '-', arg: { kind: 'un', op: '-', arg: v('K') } });
    expect(expr('-0')).toEqual(n(0));
  });

  it('print with the parentheses precedence needs, plus the C-warning ones', () => {
    const cases: [string, string][] = [
      ['(1 + 2) * 3', '(1 + 2) * 3'],
      ['1 + (2 * 3)', '1 + 2 * 3'],
      ['8 - (4 - 2)', '8 - (4 - 2)'],
      ['(8 - 4) - 2', '8 - 4 - 2'],
      ['((K / 2) & 1) ^ 1', '((K / 2) & 1) ^ 1'],
      ['K / 2 & 1', '(K / 2) & 1'],
      ['1 << 2 + 1', '1 << (2 + 1)'],
      ['K && 1 || 0', '(K && 1) || 0'],
      ['-(3)', '-(3)'],
      ['-(-3)', '-(-3)'],
      ['!-3', '!-3'],
      ['-(K + 1)', '-(K + 1)'],
      ['(K)', 'K'],
    ];
    for (const [input, printed] of cases) expect(printExpr(expr(input))).toBe(printed);
  });

  it('printed expressions read back to the same tree and value', () => {
    const leaf = fc.oneof(fc.integer({ min: -20, max: 20 }).map(n), fc.constant(v('K')));
    const tree = fc.letrec<{ e: Expr }>((tie) => ({
      e: fc.oneof({ depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.tuple(fc.constantFrom('+', '-', '*', '&', '|', '^', '<<', '==', '!=', '<', '<=', '>', '>=', '&&', '||'), tie('e'), tie('e'))
          .map(([op, left, right]): Expr => ({ kind: 'bin', op: op as '+', left, right })),
        fc.tuple(fc.constantFrom('-', '!'), tie('e')).map(([op, arg]): Expr => ({ kind: 'un', op: op as '-', arg }))),
    })).e;
    fc.assert(fc.property(tree, (e) => {
      expect(stripLocs({ params: [], resources: [], roles: [{ name: 'r', warps: 1, body: [{ kind: 'op', op: { kind: 'bulk.wait', pending: expr(printExpr(e)) } }] }] }))
        .toEqual({ params: [], resources: [], roles: [{ name: 'r', warps: 1, body: [{ kind: 'op', op: { kind: 'bulk.wait', pending: e } }] }] });
    }), { numRuns: 300 });
  });

  it('evaluate with C semantics after parsing', () => {
    const env = new Map([['K', 3]]);
    expect(evalExpr(expr('-7 / 2'), env)).toBe(-3);
    expect(evalExpr(expr('-7 % 2'), env)).toBe(-1);
    expect(evalExpr(expr('((K / 2) & 1) ^ 1'), env)).toBe(0);
  });
});

describe('operations', () => {
  it('arrive defaults its count to 1, and prints without it', () => {
    expect(op('arrive b[0]')).toEqual({ kind: 'arrive', target: { name: 'b', index: n(0) }, count: n(1) });
    expect(op('arrive b[0], 2')).toEqual({ kind: 'arrive', target: { name: 'b', index: n(0) }, count: n(2) });
  });

  it('mma.issue is wgmma.issue with commit; mma.wait is wgmma.wait', () => {
    expect(op('mma.issue A[1] expect K')).toEqual({ kind: 'wgmma.issue', target: { name: 'A', index: n(1) }, expect: v('K'), commit: true });
    expect(op('wgmma.issue S[1]')).toEqual({ kind: 'wgmma.issue', target: { name: 'S', index: n(1) }, commit: false });
    expect(op('mma.wait 1')).toEqual(op('wgmma.wait 1'));
  });

  it('read every operand form', () => {
    expect(op('tma.load S[K % 4] -> b[0], 4096 value K')).toEqual({
      kind: 'tma.load', target: { name: 'S', index: { kind: 'bin', op: '%', left: v('K'), right: n(4) } }, barrier: { name: 'b', index: n(0) }, bytes: n(4096), value: v('K'),
    });
    expect(op('tma.load S[0] -> b[0], 16')).not.toHaveProperty('value');
    expect(op('get A[0]')).toEqual({ kind: 'get', target: { name: 'A', index: n(0) } });
    expect(op('write S[0]')).toEqual({ kind: 'write', target: { name: 'S', index: n(0) } });
    expect(op('write S[0], 5')).toEqual({ kind: 'write', target: { name: 'S', index: n(0) }, value: n(5) });
    expect(op('bar.sync 1, 256')).toEqual({ kind: 'bar.sync', id: n(1), threads: n(256) });
    expect(op('fence.proxy.async')).toEqual({ kind: 'fence.proxy.async' });
    expect(op('wait b[K % 4], (K / 4) & 1')).toMatchObject({ kind: 'wait', parity: { kind: 'bin', op: '&' } });
  });
});

describe('layout', () => {
  it('accepts one-line if/else, elif, pass, comments, blank lines and CRLF', () => {
    const text = [
      '# header', '', 'param K = 2', 'aref A[2]', 'role r warps 1:', '  for k in 0..K:   # loop',
      '    if k == 0: put A[0], 0', '    elif k == 1:', '      put A[1], 1', '', '    else: pass', '  pass',
    ].join('\r\n');
    const p = parseArefFile(text, 'layout.aref');
    const body = stripLocs(p).roles[0]?.body;
    expect(body).toEqual([{
      kind: 'for', var: 'k', from: n(0), to: v('K'), body: [{
        kind: 'if', cond: { kind: 'bin', op: '==', left: v('k'), right: n(0) },
        then: [{ kind: 'op', op: { kind: 'put', target: { name: 'A', index: n(0) }, value: n(0) } }],
        else: [{ kind: 'if', cond: { kind: 'bin', op: '==', left: v('k'), right: n(1) }, then: [{ kind: 'op', op: { kind: 'put', target: { name: 'A', index: n(1) }, value: n(1) } }], else: [] }],
      }],
    }]);
  });

  it('skips a byte-order mark without shifting columns', () => {
    const p = parseAref('\uFEFFrole r warps 1:\n  pass\n', 'bom.aref');
    expect(p.roles[0]?.loc).toEqual({ file: 'bom.aref', line: 1, col: 1 });
  });

  it('records file:line:col on roles, statements, params, resources and names', () => {
    const p = parseAref('param K = 1\n\naref A[2]\nrole r warps 1:\n  for k in 0..K:\n      put A[k], K\n', 'pos.aref');
    expect(p.params[0]?.loc).toEqual({ file: 'pos.aref', line: 1, col: 1 });
    expect(p.resources[0]?.loc).toEqual({ file: 'pos.aref', line: 3, col: 1 });
    const role = p.roles[0];
    expect(role?.loc).toEqual({ file: 'pos.aref', line: 4, col: 1 });
    const loop = role?.body[0];
    expect(loop?.loc).toEqual({ file: 'pos.aref', line: 5, col: 3 });
    const put = loop?.kind === 'for' ? loop.body[0] : undefined;
    expect(put?.loc).toEqual({ file: 'pos.aref', line: 6, col: 7 });
    expect(put?.kind === 'op' && put.op.kind === 'put' ? put.op.value : undefined).toEqual({ kind: 'var', name: 'K', loc: { file: 'pos.aref', line: 6, col: 17 } });
  });

  it('prints empty blocks as pass and keeps else branches', () => {
    const p: Program = {
      params: [], resources: [{ kind: 'aref', name: 'A', depth: 1 }],
      roles: [{ name: 'r', warps: 1, body: [{ kind: 'if', cond: n(1), then: [], else: [{ kind: 'op', op: { kind: 'consumed', target: { name: 'A', index: n(0) } } }] }] }, { name: 'q', warps: 2, body: [] }],
    };
    const text = printProgram(p);
    expect(text).toBe('aref A[1]\n\nrole r warps 1:\n  if 1: pass\n  else: consumed A[0]\n\nrole q warps 2:\n  pass\n');
    expect(stripLocs(parseArefFile(text, 'x.aref'))).toEqual(p);
  });
});
