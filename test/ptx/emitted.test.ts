// Round trip through arefcheck's own PTX backend: every kernel it emits over a grid of the
// pipeline family lifts back to the Program it was emitted from (names, resources, each role's
// concrete operations), up to what the emitter adds by convention (/tmp/ptx-conventions.md):
// a role-internal bar.sync before a multi-warp role's arrive when the role reads shared memory,
// and, for the stream kernel, a generic read where the program issues wgmma.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/diag.ts';
import { evalExpr } from '../../src/ir/expr.ts';
import type { Op, Program, Ref, Stmt } from '../../src/ir/program.ts';
import { emitFromPipeline } from '../../src/ptx/emit/index.ts';
import { readHints } from '../../src/ptx/lift/hints.ts';
import { liftPtxFile, parsePtx } from '../../src/ptx/lift/index.ts';
import { unrollRole } from '../../src/unroll.ts';
import { opText, verify } from './helpers.ts';

type Kernel = 'stream' | 'gemm';

function has(stmts: readonly Stmt[], kinds: readonly Op['kind'][]): boolean {
  return stmts.some((s) => (s.kind === 'op' ? kinds.includes(s.op.kind) : s.kind === 'for' ? has(s.body, kinds) : has(s.then, kinds) || has(s.else, kinds)));
}

/** The role's operations as the emitted kernel performs them, concrete. */
function expectedRole(program: Program, index: number, kernel: Kernel): string[] {
  const role = program.roles[index];
  if (!role) throw new Error('no role');
  const reads = has(role.body, ['read', 'write']);
  const out: string[] = [];
  for (const u of unrollRole(program, index)) {
    const ev = (e: Parameters<typeof evalExpr>[0]): number => evalExpr(e, u.env);
    const ref = (r: Ref): Ref => ({ name: r.name, index: { kind: 'num', value: ev(r.index) } });
    const op = u.op;
    switch (op.kind) {
      case 'arrive':
      case 'arrive.expect_tx':
        if (role.warps > 1 && reads) out.push(`bar.sync ${1 + index} ${32 * role.warps}`);
        out.push(opText(op.kind === 'arrive' ? { ...op, target: ref(op.target), count: { kind: 'num', value: ev(op.count) } } : { ...op, target: ref(op.target), bytes: { kind: 'num', value: ev(op.bytes) } }));
        break;
      case 'wgmma.issue':
        if (kernel === 'gemm') out.push(`wgmma.issue ${ref(op.target).name}[${ev(op.target.index)}]`);
        else if (!has(role.body, ['read'])) out.push(`read ${op.target.name}[${ev(op.target.index)}]`);
        if (op.commit) out.push('wgmma.commit');
        break;
      case 'wait':
        out.push(`wait ${op.target.name}[${ev(op.target.index)}] ${ev(op.parity)}`);
        break;
      case 'tma.load':
        out.push(`tma.load ${op.target.name}[${ev(op.target.index)}] ${op.barrier.name}[${ev(op.barrier.index)}] ${ev(op.bytes)}`);
        break;
      case 'read':
      case 'write':
        out.push(`${op.kind} ${op.target.name}[${ev(op.target.index)}]`);
        break;
      case 'wgmma.wait':
        out.push(`wgmma.wait ${ev(op.pending)}`);
        break;
      case 'bar.sync':
      case 'bar.arrive':
        out.push(`${op.kind} ${ev(op.id)} ${ev(op.threads)}`);
        break;
      default:
        out.push(op.kind);
    }
  }
  return out;
}

/** The lifted role's operations inside its `arefcheck role` markers (the kernel epilogue after them is the emitter's own). */
function liftedRole(lifted: Program, ptx: string, name: string): string[] {
  const hint = readHints(parsePtx(ptx, 'e.ptx')).roles.find((r) => r.name === name);
  const role = lifted.roles.find((r) => r.name === name);
  if (!role || !hint) throw new Error(`no role ${name} (lifted: ${lifted.roles.map((r) => r.name).join(', ')})`);
  return role.body.flatMap((s) => (s.kind === 'op' && s.loc && s.loc.line > hint.from && s.loc.line < hint.to ? [opText(s.op)] : []));
}

const grid: Array<{ kernel: Kernel; depth: number; pending: number; consumers: number; iterations: number }> = [];
for (const kernel of ['stream', 'gemm'] as const) {
  for (const depth of [1, 2, 3]) {
    for (const pending of [0, 1]) {
      for (const consumers of [1, 2]) {
        for (const iterations of [0, 1, 2, 5]) grid.push({ kernel, depth, pending, consumers, iterations });
      }
    }
  }
}

function emit(c: (typeof grid)[number]): { program: Program; ptx: string } | undefined {
  try {
    const { kernel, ...family } = c;
    return emitFromPipeline({ ...family, emit: { kernel } });
  } catch (e) {
    if (e instanceof InputError) return undefined; // a family member the emitter does not build
    throw e;
  }
}

function lift(program: Program, ptx: string): { lifted: Program; stuck: boolean } {
  const params = new Map(program.params.map((p) => [p.name, p.value]));
  const [only] = liftPtxFile(ptx, 'e.ptx', { params });
  if (!only) throw new Error('no kernel');
  return { lifted: only.program, stuck: only.facts.stuck !== undefined };
}

describe('emitted kernels lift to the program they were emitted from', () => {
  it.each(grid.map((c) => [`${c.kernel} D=${c.depth} P=${c.pending} C=${c.consumers} K=${c.iterations}`, c] as const))('%s', (_name, c) => {
    const emitted = emit(c);
    if (!emitted) return;
    const { program, ptx } = emitted;
    const { lifted, stuck } = lift(program, ptx);
    // the lifter runs the kernel once: where that run hangs the program is wrong (and the run,
    // let past the hung waits, still records every operation); a verified program never hangs it
    const verdict = verify(program).verdict;
    if (stuck) expect(verdict).toBe('violation');
    if (verdict === 'verified') expect(stuck).toBe(false);
    expect(lifted.params).toEqual(program.params.map((p) => ({ name: p.name, value: p.value })));
    // every resource of the program, with its size, bytes and init count
    for (const r of program.resources) expect(lifted.resources).toContainEqual(r);
    // every role that synchronizes, by name, with its warps and its operations in order (a role
    // with nothing to do in the loop may still show up with the emitter's epilogue, or not at all)
    const names = program.roles.map((r) => r.name);
    for (const r of lifted.roles) expect(names).toContain(r.name);
    program.roles.forEach((role, i) => {
      const want = expectedRole(program, i, c.kernel);
      const got = lifted.roles.find((r) => r.name === role.name);
      if (want.length === 0 && !got) return;
      expect(got?.warps, role.name).toBe(role.warps);
      expect(liftedRole(lifted, ptx, role.name), role.name).toEqual(want);
    });
  });

  it('covers both kernel families over most of the grid', () => {
    const built = grid.filter((c) => emit(c) !== undefined);
    expect(built.filter((c) => c.kernel === 'stream').length).toBeGreaterThan(30);
    expect(built.filter((c) => c.kernel === 'gemm').length).toBeGreaterThan(30);
  });
});

describe('emitted kernels: lifted verdicts agree with the program', () => {
  // every kernel of the grid: the lifted program gets the verdict of the program it came from
  const sample = grid;
  it.each(sample.map((c) => [`${c.kernel} D=${c.depth} P=${c.pending}`, c] as const))('%s', async (_name, c) => {
    const emitted = emit(c);
    if (!emitted) return;
    const original = verify(emitted.program);
    const lifted = verify(lift(emitted.program, emitted.ptx).lifted);
    expect(lifted.verdict).toBe(original.verdict);
  });
});
