// Helpers shared by the persistent and ping-pong gemm tests.
import type { Program, Stmt } from '../../src/ir/program.ts';
import { foldEvents, scanThread } from './scan.ts';

/** The program without its `read` observations (the "no read" kernels). */
export function withoutReads(p: Program): Program {
  const drop = (stmts: readonly Stmt[]): Stmt[] =>
    stmts.flatMap((s): Stmt[] => (s.kind === 'op' ? (s.op.kind === 'read' ? [] : [s]) : s.kind === 'for' ? [{ ...s, body: drop(s.body) }] : [{ ...s, then: drop(s.then), else: drop(s.else) }]));
  return { ...p, roles: p.roles.map((r) => ({ ...r, body: drop(r.body) })) };
}

/** Sync events of one thread of the emitted kernel, by region. */
export function readBack(ptx: string, p: Program, thread: number, ctaid = 0): Map<string, string[]> {
  const params: Record<string, number> = { arg_m: 1024, arg_n: 1024 };
  for (const q of p.params) params[q.name] = q.value;
  const events = foldEvents(scanThread(ptx, { thread, params, bk: 64, ctaid, nctaid: 4 }));
  const out = new Map<string, string[]>();
  for (const e of events) out.set(e.region, [...(out.get(e.region) ?? []), e.text]);
  return out;
}
