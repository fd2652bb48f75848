// Shared helpers of the PTX tests: flattening lifted programs to text, and the checker.
import type { Op, Program, Ref, Stmt } from '../../src/ir/program.ts';
import { verifyProgram } from '../../src/verify.ts';

const ix = (r: Ref): string => `${r.name}[${r.index.kind === 'num' ? r.index.value : '?'}]`;
const n = (e: { kind: string; value?: number }): string => (e.kind === 'num' ? String(e.value) : '?');

/** One short line per op (concrete operands): the vocabulary the tests assert on. */
export function opText(op: Op): string {
  switch (op.kind) {
    case 'wait': return `wait ${ix(op.target)} ${n(op.parity)}`;
    case 'wait.token': return 'wait.token';
    case 'arrive': return `arrive ${ix(op.target)} ${n(op.count)}`;
    case 'arrive.expect_tx':
    case 'expect_tx':
    case 'complete_tx': return `${op.kind} ${ix(op.target)} ${n(op.bytes)}`;
    case 'init': return `init ${ix(op.target)} ${n(op.count)}`;
    case 'inval': return `inval ${ix(op.target)}`;
    case 'tma.load': return `tma.load ${ix(op.target)} ${ix(op.barrier)} ${n(op.bytes)}`;
    case 'tma.store': return `tma.store ${ix(op.target)}`;
    case 'wgmma.issue': return `wgmma.issue ${ix(op.target)}`;
    case 'wgmma.wait':
    case 'bulk.wait': return `${op.kind} ${n(op.pending)}`;
    case 'bar.sync':
    case 'bar.arrive': return `${op.kind} ${n(op.id)} ${n(op.threads)}`;
    case 'read':
    case 'write': return `${op.kind} ${ix(op.target)}`;
    default: return op.kind;
  }
}

export function ops(stmts: readonly Stmt[]): Op[] {
  return stmts.flatMap((s) => (s.kind === 'op' ? [s.op] : s.kind === 'for' ? ops(s.body) : [...ops(s.then), ...ops(s.else)]));
}

export function roleText(p: Program, role: number | string): string[] {
  const r = typeof role === 'number' ? p.roles[role] : p.roles.find((x) => x.name === role);
  if (!r) throw new Error(`no role ${role}`);
  return ops(r.body).map(opText);
}

export interface VerifyResult {
  readonly verdict: 'verified' | 'violation' | 'inconclusive';
  readonly violations: ReadonlyArray<{ readonly kind: string; readonly message: string; readonly loc?: { readonly line: number } }>;
}

/** verifyProgram with a two-minute cap (a lifted kernel must never hang a test run). */
export function verify(p: Program, options: { maxStates?: number; maxMs?: number } = {}): VerifyResult {
  return verifyProgram(p, { maxMs: 120_000, ...options });
}

export function kinds(r: VerifyResult): string[] {
  return [...new Set(r.violations.map((v) => v.kind))].sort();
}
