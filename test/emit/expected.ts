// What the structural test expects to read back from a kernel: the Program's ops of one role,
// unrolled for concrete params, each mapped to the instructions docs/emit.md's op table gives it.
import { evalExpr } from '../../src/ir/expr.ts';
import type { Op, Program, Ref, Stmt } from '../../src/ir/program.ts';
import { unrollRole } from '../../src/unroll.ts';

const SINGLE_ISSUER = new Set<Op['kind']>(['arrive', 'arrive.expect_tx', 'expect_tx', 'complete_tx', 'tma.load', 'init', 'inval', 'bulk.commit', 'bulk.wait']);

function has(stmts: readonly Stmt[], kinds: readonly Op['kind'][]): boolean {
  return stmts.some((s) => (s.kind === 'op' ? kinds.includes(s.op.kind) : s.kind === 'for' ? has(s.body, kinds) : has(s.then, kinds) || has(s.else, kinds)));
}

export function expectedRole(program: Program, roleIndex: number, kernel: 'stream' | 'gemm', elected: boolean): string[] {
  const role = program.roles[roleIndex];
  if (!role) throw new Error('no role');
  const generic = has(role.body, ['read', 'write']);
  const syncBeforeArrive = role.warps > 1 && generic;
  const out: string[] = [];
  for (const u of unrollRole(program, roleIndex)) {
    const ev = (e: Parameters<typeof evalExpr>[0]): number => evalExpr(e, u.env);
    const ref = (r: Ref): string => `${r.name}[${ev(r.index)}]`;
    const op = u.op;
    if (!elected && SINGLE_ISSUER.has(op.kind)) {
      if (syncBeforeArrive && (op.kind === 'arrive' || op.kind === 'arrive.expect_tx')) out.push(`bar.sync ${1 + roleIndex} ${32 * role.warps}`);
      continue;
    }
    switch (op.kind) {
      case 'wait': out.push(`wait ${ref(op.target)} ${ev(op.parity)}`); break;
      case 'arrive':
        if (syncBeforeArrive) out.push(`bar.sync ${1 + roleIndex} ${32 * role.warps}`);
        out.push(`arrive ${ref(op.target)} ${ev(op.count)}`);
        break;
      case 'arrive.expect_tx':
        if (syncBeforeArrive) out.push(`bar.sync ${1 + roleIndex} ${32 * role.warps}`);
        out.push(`arrive.expect_tx ${ref(op.target)} ${ev(op.bytes)}`);
        break;
      case 'tma.load':
        out.push(kernel === 'stream'
          ? `tma.load ${ref(op.target)} -> ${ref(op.barrier)} bytes ${ev(op.bytes)} value ${op.value ? ev(op.value) : '?'}`
          : `tma.load ${ref(op.target)} -> ${ref(op.barrier)} value ${op.value ? ev(op.value) : '?'}`);
        break;
      case 'read':
        out.push(kernel === 'stream' ? `read ${ref(op.target)} expect ${op.expect ? ev(op.expect) : '?'}` : `read ${ref(op.target)}`);
        break;
      case 'wgmma.issue':
        if (kernel === 'gemm') out.push(`wgmma.issue ${ref(op.target)}`);
        else if (!has(role.body, ['read'])) out.push(`read ${ref(op.target)} expect ${op.expect ? ev(op.expect) : '?'}`);
        if (op.commit) out.push('wgmma.commit');
        break;
      case 'wgmma.commit': out.push('wgmma.commit'); break;
      case 'wgmma.wait': out.push(`wgmma.wait ${ev(op.pending)}`); break;
      case 'bar.sync': out.push(`bar.sync ${ev(op.id)} ${ev(op.threads)}`); break;
      case 'bar.arrive': out.push(`bar.arrive ${ev(op.id)} ${ev(op.threads)}`); break;
      case 'fence.proxy.async': out.push('fence.proxy.async.shared::cta'); break;
      case 'write': out.push(`write ${ref(op.target)}`); break;
      case 'expect_tx':
      case 'complete_tx': out.push(`${op.kind} ${ref(op.target)} ${ev(op.bytes)}`); break;
      case 'init': out.push(`init ${ref(op.target)} ${ev(op.count)}`); break;
      case 'inval': out.push(`inval ${ref(op.target)}`); break;
      default: throw new Error(`expected: no mapping for ${op.kind}`);
    }
  }
  return out;
}

/** Thread 0's prologue: the inits of every initialised barrier, the fence, the CTA-wide bar.sync. */
export function expectedPrologue(program: Program, thread0: boolean): string[] {
  const out: string[] = [];
  if (thread0) {
    for (const r of program.resources) {
      if (r.kind === 'mbarrier' && r.count !== undefined) for (let i = 0; i < r.size; i++) out.push(`init ${r.name}[${i}] ${r.count}`);
    }
    if (out.length > 0) out.push('fence.mbarrier_init.release.cluster');
  }
  out.push('bar.sync 0 all');
  return out;
}
