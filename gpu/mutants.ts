// The bug classes of DESIGN.md applied to a pipeline Program, for the hardware runs: each
// mutant is built with --force semantics (emitted although the checker reports a violation)
// and run on the GPU with the watchdog. Rewrites are structural, on the Program IR.
import { bin, num, v } from '../src/ir/expr.ts';
import type { Op, Program, Role, Stmt } from '../src/ir/program.ts';

export const MUTANTS = {
  M1: "producer's first empty-wait uses parity 0 instead of 1",
  M4: 'arrive.expect_tx bytes larger (+16) than the TMA delivers',
  M6: 'consumer releases the slot (arrive on empty) before wgmma.wait retires its reads',
  M7: 'buffer depth too small for the MMA pipeline (D <= P)',
  M8: 'the release (arrive on empty) inside the consumer loop is missing',
} as const;
export type MutantId = keyof typeof MUTANTS;

function mapOps(stmts: readonly Stmt[], f: (op: Op) => Op[]): Stmt[] {
  return stmts.flatMap((s): Stmt[] => {
    if (s.kind === 'op') return f(s.op).map((op) => ({ ...s, op }));
    if (s.kind === 'for') return [{ ...s, body: mapOps(s.body, f) }];
    return [{ ...s, then: mapOps(s.then, f), else: mapOps(s.else, f) }];
  });
}

function mapRoles(p: Program, pick: (r: Role) => boolean, f: (r: Role) => Role): Program {
  return { ...p, roles: p.roles.map((r) => (pick(r) ? f(r) : r)) };
}

const isProducer = (r: Role): boolean => r.name === 'producer';

/** The mutated Program (M7 is a pipeline with D <= P: the caller builds it with those values). */
export function mutate(p: Program, id: MutantId): Program {
  switch (id) {
    case 'M1':
      // wait A_empty[k % D], ((k / D) & 1) ^ 1   →   wait A_empty[k % D], (k / D) & 1
      return mapRoles(p, isProducer, (r) => ({
        ...r,
        body: mapOps(r.body, (op) => (op.kind === 'wait' ? [{ ...op, parity: bin('&', bin('/', v('k'), v('D')), num(1)) }] : [op])),
      }));
    case 'M4':
      return mapRoles(p, isProducer, (r) => ({
        ...r,
        body: mapOps(r.body, (op) => (op.kind === 'arrive.expect_tx' ? [{ ...op, bytes: bin('+', op.bytes, num(16)) }] : [op])),
      }));
    case 'M6':
      // in each consumer loop body, move the release (the if / arrive after wgmma.wait) before the wait
      return mapRoles(p, (r) => !isProducer(r), (r) => ({ ...r, body: r.body.map((s) => (s.kind === 'for' ? { ...s, body: releaseBeforeWait(s.body) } : s)) }));
    case 'M7':
      return p;
    case 'M8':
      // drop the release inside the consumer's main loop (the first for); the tail releases stay
      return mapRoles(p, (r) => !isProducer(r), (r) => {
        let done = false;
        return {
          ...r,
          body: r.body.map((s) => {
            if (s.kind !== 'for' || done) return s;
            done = true;
            return { ...s, body: mapOps(s.body, (op) => (op.kind === 'arrive' ? [] : [op])) };
          }),
        };
      });
  }
}

function releaseBeforeWait(body: readonly Stmt[]): Stmt[] {
  const waitAt = body.findIndex((s) => s.kind === 'op' && s.op.kind === 'wgmma.wait');
  const releaseAt = body.findIndex((s, i) => i > waitAt && (s.kind === 'if' || (s.kind === 'op' && s.op.kind === 'arrive')));
  if (waitAt < 0 || releaseAt < 0) return [...body];
  const out = [...body];
  const [release] = out.splice(releaseAt, 1);
  if (release) out.splice(waitAt, 0, release);
  return out;
}
