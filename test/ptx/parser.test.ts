// The PTX parser on its own: what it builds from each construct, and where it reports errors.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/diag.ts';
import type { Block, Instruction, Operand, Statement } from '../../src/ptx/parse/ast.ts';
import { parsePtx } from '../../src/ptx/parse/parser.ts';
import { read, TRITON } from './paths.ts';

const triton = read(TRITON);

function body(src: string): readonly Statement[] {
  const m = parsePtx(src, 't.ptx');
  const f = m.functions[0];
  if (!f?.body) throw new Error('no body');
  return f.body;
}

function instrs(stmts: readonly Statement[]): Instruction[] {
  return stmts.flatMap((s) => (s.kind === 'instr' ? [s] : s.kind === 'block' ? instrs(s.body) : []));
}

function parseError(src: string): InputError {
  try {
    parsePtx(src, 'bad.ptx');
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error('expected an InputError');
}

const wrap = (inner: string): string => `.version 8.4\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n${inner}\n}\n`;

describe('module level', () => {
  it('reads .version, .target and .address_size', () => {
    const m = parsePtx('.version 8.7\n.target sm_90a, debug\n.address_size 64\n', 'm.ptx');
    expect(m.version).toBe('8.7');
    expect(m.target).toBe('sm_90a, debug');
    expect(m.addressSize).toBe(64);
    expect(m.functions).toEqual([]);
  });

  it('reads kernel params, including by-value byte arrays with alignment, and perf directives', () => {
    const m = parsePtx(
      `.visible .entry gemm(\n\t.param .align 64 .b8 tmap[128],\n\t.param .u32 K,\n\t.param .u64 .ptr .global .align 1 out\n)\n.maxntid 384, 1, 1\n.minnctapersm 1\n.maxnreg 168\n{\n\tret;\n}\n`,
      'm.ptx',
    );
    const f = m.functions[0];
    expect(f?.name).toBe('gemm');
    expect(f?.kind).toBe('entry');
    expect(f?.params.map((p) => [p.name, p.type, p.align, p.elements])).toEqual([
      ['tmap', 'b8', 64, 128],
      ['K', 'u32', undefined, undefined],
      ['out', 'u64', 1, undefined],
    ]);
    expect(f?.perf).toEqual({ maxntid: [384, 1, 1], minnctapersm: 1, maxnreg: 168 });
  });

  it('reads .reqntid', () => {
    const m = parsePtx('.entry k()\n.reqntid 128\n{\nret;\n}', 'm.ptx');
    expect(m.functions[0]?.perf.reqntid).toEqual([128]);
  });

  it('reads shared, global and const declarations with alignment, arrays and dynamic shared memory', () => {
    const m = parsePtx(
      `.extern .shared .align 16 .b8 global_smem[];\n.shared .align 8 .b64 full[3];\n.global .align 4 .b32 table[2][4] = {1, 2, 3, 4, 5, 6, 7, 8};\n.const .align 8 .v2 .u32 pair;\n`,
      'm.ptx',
    );
    expect(m.globals.map((g) => [g.space, g.name, g.type, g.align, g.elements, g.extern, g.vector])).toEqual([
      ['shared', 'global_smem', 'b8', 16, 'unsized', true, undefined],
      ['shared', 'full', 'b64', 8, 3, false, undefined],
      ['global', 'table', 'b32', 4, 8, false, undefined],
      ['const', 'pair', 'u32', 8, undefined, false, 2],
    ]);
  });

  it('reads .func with return and parameters, and prototypes', () => {
    const m = parsePtx(
      `.extern .func (.param .b32 r) ext(.param .b32 a);\n.func (.param .b32 ret0) helper(.param .b32 x, .param .b64 y)\n{\n\tret;\n}\n`,
      'm.ptx',
    );
    expect(m.functions.map((f) => [f.name, f.kind, f.returns.map((p) => p.name), f.params.map((p) => p.name), f.body === undefined])).toEqual([
      ['ext', 'func', ['r'], ['a'], true],
      ['helper', 'func', ['ret0'], ['x', 'y'], false],
    ]);
  });

  it('skips DWARF .section blocks and .file lines (the Triton sample)', () => {
    const m = parsePtx(triton, 'triton.ptx');
    expect(m.functions.map((f) => f.name)).toEqual(['matmul_tma']);
    expect(m.functions[0]?.params).toHaveLength(20);
    expect(m.functions[0]?.perf.reqntid).toEqual([128]);
    expect(m.globals.map((g) => g.name)).toEqual(['global_smem']);
    const all = instrs(m.functions[0]?.body ?? []);
    expect(all.filter((i) => i.opcode.startsWith('wgmma.mma_async'))).toHaveLength(8);
    expect(all[all.length - 1]?.opcode).toBe('ret');
  });
});

describe('function bodies', () => {
  it('reads .reg in <N>, list and vector forms', () => {
    const b = body(wrap('\t.reg .pred %p<35>;\n\t.reg .b32 %r<279>, %x;\n\t.reg .v4 .b32 %v;'));
    expect(b.map((s) => (s.kind === 'reg' ? [s.type, s.vector, s.names] : s.kind))).toEqual([
      ['pred', undefined, [{ name: '%p', count: 35 }]],
      ['b32', undefined, [{ name: '%r', count: 279 }, { name: '%x' }]],
      ['b32', 4, [{ name: '%v' }]],
    ]);
  });

  it('reads guards, negated guards, pairs, sinks and vectors', () => {
    const [a, b, c, d] = instrs(body(wrap(
      '\t@%p31 mbarrier.init.shared::cta.b64 [%r5], 1;\n\t@!complete bra.uni waitLoop;\n\telect.sync %r29|%p9, -1;\n\tmbarrier.arrive.expect_tx.shared.b64 _, [%r5], 32768;\n\twaitLoop:',
    )));
    expect(a?.guard).toEqual({ reg: '%p31', negate: false });
    expect(a?.opcode).toBe('mbarrier.init.shared::cta.b64');
    expect(b?.guard).toEqual({ reg: 'complete', negate: true });
    expect(c?.operands[0]).toMatchObject({ kind: 'pair', first: '%r29', second: '%p9' });
    expect(c?.operands[1]).toMatchObject({ kind: 'int', value: -1n });
    expect(d?.operands[0]?.kind).toBe('sink');
  });

  it('reads memory operands: symbol+offset, register+-offset, absolute, and the tensor form', () => {
    const [a, b, c] = instrs(body(wrap(
      '\tld.shared.f32 %f1, [%r12+-512];\n\tmbarrier.init.shared.b64 [full+16], 1;\n\tcp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r8], [%rd1, {%r147, %r57}], [%r5];',
    )));
    expect(a?.operands[1]).toMatchObject({ kind: 'mem', base: '%r12', offset: -512n });
    expect(b?.operands[0]).toMatchObject({ kind: 'mem', base: 'full', offset: 16n });
    const t = c?.operands[1] as Operand & { kind: 'mem' };
    expect(t.base).toBe('%rd1');
    expect(t.coords?.map((x) => (x.kind === 'name' ? x.name : x.kind))).toEqual(['%r147', '%r57']);
    expect(c?.opcode).toBe('cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes');
  });

  it('reads numbers: hex, float bits, negative, U suffix, octal', () => {
    const ops = instrs(body(wrap('\tmov.b32 %r1, 0f3F800000;\n\tmov.b32 %r2, 0x1F;\n\tadd.s32 %r3, %r3, -8;\n\tmov.u32 %r4, 10U;\n\tmov.u32 %r5, 010;')));
    expect(ops.map((i) => i.operands[i.operands.length - 1])).toMatchObject([
      { kind: 'float', bits: 0x3f800000n },
      { kind: 'int', value: 31n },
      { kind: 'int', value: -8n },
      { kind: 'int', value: 10n },
      { kind: 'int', value: 8n },
    ]);
  });

  it('keeps inline-asm scopes with their own registers and labels (nvcc and Triton spin loops)', () => {
    const src = wrap(`\t// begin inline asm\n\t{\n\t.reg .pred P_OUT;\n\tLAB_WAIT:\n\tmbarrier.try_wait.parity.shared::cta.b64 P_OUT, [%r11], %r9;\n\t@!P_OUT bra LAB_WAIT;\n\t}\n\t// end inline asm\n\t{\n\t.reg .pred P_OUT;\n\tLAB_WAIT:\n\t@!P_OUT bra LAB_WAIT;\n\t}`);
    const b = body(src);
    const blocks = b.filter((s): s is Block => s.kind === 'block');
    expect(blocks).toHaveLength(2);
    expect(blocks[0]?.body.map((s) => s.kind)).toEqual(['reg', 'label', 'instr', 'instr']);
    expect(blocks[0]?.loc.line).toBe(7);
  });

  it('drops comments, .loc, .file and .pragma lines but keeps positions right', () => {
    const src = wrap('\t/* a block\n\t comment over lines */ .loc 1 9 0\n\t.pragma "nounroll";\n\tadd.s32 %r1, %r1, 1; // trailing\n\t.loc\t1 12 24 // with a comment');
    const [i] = instrs(body(src));
    expect(i?.opcode).toBe('add.s32');
    expect(i?.loc).toEqual({ file: 't.ptx', line: 9, col: 2 });
  });

  it('records comments with their lines', () => {
    const m = parsePtx('// arefcheck-buffer A slots 2 bytes 64 offset 0\n.version 8.4 /* x */\n', 'c.ptx');
    expect(m.comments).toEqual([{ line: 1, text: 'arefcheck-buffer A slots 2 bytes 64 offset 0' }, { line: 2, text: 'x' }]);
  });

  it('reads call with return and argument lists, inside a scope with .param declarations', () => {
    const b = body(wrap('\t{\n\t.param .b32 param0;\n\tst.param.b32 [param0], %r1;\n\t.param .b32 retval0;\n\tcall.uni (retval0), helper, (param0);\n\tld.param.b32 %r2, [retval0];\n\t}'));
    const blk = b[0] as Block;
    expect(blk.body.map((s) => (s.kind === 'var' ? `var ${s.space} ${s.name}` : s.kind))).toEqual(['var param param0', 'instr', 'var param retval0', 'instr', 'instr']);
    const call = instrs(b).find((i) => i.opcode === 'call.uni');
    expect(call?.operands.map((o) => o.kind)).toEqual(['list', 'name', 'list']);
  });

  it('gives the guarded instruction the position of its guard', () => {
    const [i] = instrs(body(wrap('    @%p1 bra $L__BB0_2;')));
    expect(i?.loc).toMatchObject({ line: 6, col: 5 });
  });
});

describe('errors: one InputError with file:line:col', () => {
  it('a missing semicolon', () => {
    const e = parseError(wrap('\tadd.s32 %r1, %r1, 1\n\tret;'));
    expect(e.format()).toBe("bad.ptx:7:2: error: expected ',' or ';' in 'add.s32', found 'ret'");
  });

  it('an unclosed body', () => {
    expect(parseError('.entry k()\n{\n\tret;\n').format()).toMatch(/^bad\.ptx:2:1: error: unclosed '\{'/);
  });

  it('a stray character', () => {
    expect(parseError('.version 8.4\n#include <x>\n').format()).toBe("bad.ptx:2:1: error: unexpected character '#'");
  });

  it('an unterminated block comment', () => {
    expect(parseError('.version 8.4\n/* never closed\n').format()).toMatch(/^bad\.ptx:2:1: error: unterminated \/\* comment/);
  });

  it('something that is not a directive at module level', () => {
    expect(parseError('.version 8.4\nadd.s32 %r1, %r1, 1;\n').format()).toMatch(/^bad\.ptx:2:1: error: expected a directive at module level/);
  });

  it('a register declaration without a type', () => {
    expect(parseError(wrap('\t.reg %r<4>;')).format()).toMatch(/^bad\.ptx:6:7: error: expected a register type after \.reg/);
  });
});
