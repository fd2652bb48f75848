// Concrete, one-line descriptions of unrolled ops (indices and operands evaluated), for
// comparing op sequences in tests.
import { evalExpr } from '../../src/ir/expr.ts';
import type { Ref } from '../../src/ir/program.ts';
import type { UnrolledOp } from '../../src/unroll.ts';

export function concrete(u: UnrolledOp): string {
  const ev = (e: Parameters<typeof evalExpr>[0]): number => evalExpr(e, u.env);
  const ref = (r: Ref): string => `${r.name}[${ev(r.index)}]`;
  const op = u.op;
  switch (op.kind) {
    case 'put': return `put ${ref(op.target)} ${ev(op.value)}`;
    case 'get': return `get ${ref(op.target)}${op.expect ? ` expect ${ev(op.expect)}` : ''}`;
    case 'consumed': return `consumed ${ref(op.target)}`;
    case 'wait': return `wait ${ref(op.target)} ${ev(op.parity)}`;
    case 'arrive': return `arrive ${ref(op.target)} ${ev(op.count)}`;
    case 'arrive.expect_tx': return `arrive.expect_tx ${ref(op.target)} ${ev(op.bytes)}`;
    case 'tma.load': return `tma.load ${ref(op.target)} -> ${ref(op.barrier)} ${ev(op.bytes)}${op.value ? ` value ${ev(op.value)}` : ''}`;
    case 'read': return `read ${ref(op.target)}${op.expect ? ` expect ${ev(op.expect)}` : ''}`;
    case 'wgmma.issue': return `${op.commit ? 'mma.issue' : 'wgmma.issue'} ${ref(op.target)}`;
    case 'wgmma.wait': return `wgmma.wait ${ev(op.pending)}`;
    default: return op.kind;
  }
}
