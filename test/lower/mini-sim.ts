// A deliberately tiny simulator for the tests of lowering and the pipeline generator: an oracle
// written independently of semantics/. Roles run their unrolled op sequences under a seeded
// random scheduler; TMA copies land at once (complete_tx at issue) and wgmma reads are
// synchronous, so it decides only liveness and the values read, not races.
import { evalExpr } from '../../src/ir/expr.ts';
import type { Program, Ref } from '../../src/ir/program.ts';
import { unrollRole, type UnrolledOp } from '../../src/unroll.ts';

export type SimOutcome =
  | { kind: 'finished' }
  | { kind: 'stuck'; at: string[] }
  | { kind: 'error'; message: string };

interface Barrier {
  phase: number;
  pending: number;
  expected: number;
  tx: number;
}

export function simulate(program: Program, seed: number): SimOutcome {
  const sizes = new Map(program.resources.map((r) => [r.name, r]));
  const slots = new Map<string, { buf: number | undefined; F: number; E: number }>();
  const bars = new Map<string, Barrier>();
  const bufs = new Map<string, number | undefined>();
  for (const r of program.resources) {
    const n = r.kind === 'aref' ? r.depth : r.kind === 'mbarrier' ? r.size : r.slots;
    for (let i = 0; i < n; i++) {
      const key = `${r.name}[${i}]`;
      if (r.kind === 'aref') slots.set(key, { buf: undefined, F: 0, E: 1 });
      else if (r.kind === 'mbarrier') bars.set(key, { phase: 0, pending: r.count ?? 1, expected: r.count ?? 1, tx: 0 });
      else bufs.set(key, undefined);
    }
  }
  const seqs = program.roles.map((_, i) => unrollRole(program, i));
  const pcs = seqs.map(() => 0);
  let rng = seed >>> 0 || 1;
  const next = (): number => {
    rng ^= rng << 13;
    rng ^= rng >>> 17;
    rng ^= rng << 5;
    return (rng >>> 0) / 2 ** 32;
  };
  const key = (ref: Ref, u: UnrolledOp): string => {
    const i = evalExpr(ref.index, u.env);
    const r = sizes.get(ref.name);
    const n = r === undefined ? 0 : r.kind === 'aref' ? r.depth : r.kind === 'mbarrier' ? r.size : r.slots;
    if (i < 0 || i >= n) throw new Error(`${ref.name}[${i}] out of range`);
    return `${ref.name}[${i}]`;
  };
  const complete = (b: Barrier): void => {
    if (b.pending === 0 && b.tx === 0) {
      b.phase += 1;
      b.pending = b.expected;
    }
  };
  /** Runs the op if it can; returns false when it blocks; throws on a protocol error. */
  const step = (u: UnrolledOp): boolean => {
    const op = u.op;
    const ev = (e: Parameters<typeof evalExpr>[0]): number => evalExpr(e, u.env);
    switch (op.kind) {
      case 'put': {
        const s = slots.get(key(op.target, u))!;
        if (s.E !== 1) return false;
        Object.assign(s, { buf: ev(op.value), F: 1, E: 0 });
        return true;
      }
      case 'get': {
        const s = slots.get(key(op.target, u))!;
        if (s.F !== 1) return false;
        if (op.expect !== undefined && s.buf !== ev(op.expect)) throw new Error(`get read ${s.buf}, expected ${ev(op.expect)}`);
        Object.assign(s, { F: 0, E: 0 });
        return true;
      }
      case 'consumed': {
        const s = slots.get(key(op.target, u))!;
        if (s.F !== 0 || s.E !== 0) throw new Error(`consumed on ${key(op.target, u)}, which is not borrowed`);
        Object.assign(s, { F: 0, E: 1 });
        return true;
      }
      case 'wait': {
        const b = bars.get(key(op.target, u))!;
        return (b.phase & 1) !== ev(op.parity);
      }
      case 'arrive': {
        const b = bars.get(key(op.target, u))!;
        b.pending -= ev(op.count);
        if (b.pending < 0) throw new Error(`arrive past the expected count on ${key(op.target, u)}`);
        complete(b);
        return true;
      }
      case 'arrive.expect_tx': {
        const b = bars.get(key(op.target, u))!;
        b.tx += ev(op.bytes);
        b.pending -= 1;
        complete(b);
        return true;
      }
      case 'tma.load': {
        bufs.set(key(op.target, u), op.value === undefined ? undefined : ev(op.value));
        const b = bars.get(key(op.barrier, u))!;
        b.tx -= ev(op.bytes);
        complete(b);
        return true;
      }
      case 'read': {
        const got = bufs.get(key(op.target, u));
        if (op.expect !== undefined && got !== ev(op.expect)) throw new Error(`read ${got}, expected ${ev(op.expect)}`);
        return true;
      }
      default:
        return true; // wgmma and the rest: synchronous and invisible here
    }
  };
  for (;;) {
    const ready: number[] = [];
    for (let r = 0; r < seqs.length; r++) {
      const u = seqs[r]![pcs[r]!];
      if (u !== undefined) ready.push(r);
    }
    if (ready.length === 0) return { kind: 'finished' };
    // Try the unfinished roles in a random order; stuck when none can move.
    const order = ready.map((r) => ({ r, w: next() })).sort((a, b) => a.w - b.w);
    let moved = false;
    for (const { r } of order) {
      try {
        if (step(seqs[r]![pcs[r]!]!)) {
          pcs[r] = pcs[r]! + 1;
          moved = true;
          break;
        }
      } catch (e) {
        return { kind: 'error', message: (e as Error).message };
      }
    }
    if (!moved) return { kind: 'stuck', at: order.map(({ r }) => `${program.roles[r]!.name}@${pcs[r]}`) };
  }
}
