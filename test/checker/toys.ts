// Toy models for the explorer's tests and benchmark. None of them knows anything about arefs.

import type { Invariant, Model } from '../../checker/model.ts';

// ---------------------------------------------------------------------------------------------
// Counters: n counters in [0, k); action i increments counter i. Without wrap-around the graph is
// acyclic with k^n states, n(k−1)k^(n−1) transitions, depth n(k−1), and one final state (all k−1).
// With wrap-around (k−1 → 0) every state lies on a cycle.

export interface CountersOptions {
  /** Increment k−1 back to 0 (cycles) instead of stopping at k−1. */
  readonly wrap?: boolean;
  /** Give the explorer the sum of the counters as a progress measure. */
  readonly progress?: boolean;
  readonly invariants?: readonly Invariant<Int32Array>[];
}

export function countersModel(n: number, k: number, options: CountersOptions = {}): Model<Int32Array, number> {
  const wrap = options.wrap ?? false;
  const model: Model<Int32Array, number> = {
    initialStates: () => [new Int32Array(n)],
    actions(state, out) {
      for (let i = 0; i < n; i++) if (wrap || state[i]! < k - 1) out.push(i);
    },
    nextState(state, i) {
      const next = state.slice();
      next[i] = (next[i]! + 1) % k;
      return next;
    },
    invariants: options.invariants ?? [],
    isFinal: (state) => state.every((c) => c === k - 1),
    explainDeadlock: () => 'counters cannot be stuck before the end',
    encode: (state) => state,
    decode: (words) => words,
    formatAction: (i) => `inc ${i}`,
    actor: (i) => i % 32,
    actorName: (i) => `counter ${i}`,
  };
  if (options.progress) model.progress = sum;
  return model;
}

export function sum(state: Int32Array): number {
  let total = 0;
  for (let i = 0; i < state.length; i++) total += state[i]!;
  return total;
}

// ---------------------------------------------------------------------------------------------
// Two processes and two locks A, B, for `rounds` rounds each: take the first lock, take the
// second, release the second, release the first. Process 1 takes them in the order B, A in the
// rounds listed in `reversedRounds` — the seeded deadlock (each holds one lock, wants the other).

export interface LockState {
  readonly pc: readonly [number, number]; // 0 take first, 1 take second, 2 release second, 3 release first
  readonly round: readonly [number, number];
  readonly owner: readonly [number, number]; // owner of lock A, B: −1 free, else the process
}
export interface LockAction {
  readonly process: 0 | 1;
}

export function lockModel(rounds: number, reversedRounds: readonly number[]): Model<LockState, LockAction> {
  const order = (p: number, round: number): [number, number] =>
    p === 1 && reversedRounds.includes(round) ? [1, 0] : [0, 1];
  const lockName = ['A', 'B'];
  const enabled = (s: LockState, p: 0 | 1): boolean => {
    if (s.round[p] >= rounds) return false;
    const [first, second] = order(p, s.round[p]);
    if (s.pc[p] === 0) return s.owner[first] === -1;
    if (s.pc[p] === 1) return s.owner[second] === -1;
    return true;
  };
  return {
    initialStates: () => [{ pc: [0, 0], round: [0, 0], owner: [-1, -1] }],
    actions(state, out) {
      for (const process of [0, 1] as const) if (enabled(state, process)) out.push({ process });
    },
    nextState(s, { process: p }) {
      const pc: [number, number] = [s.pc[0], s.pc[1]];
      const round: [number, number] = [s.round[0], s.round[1]];
      const owner: [number, number] = [s.owner[0], s.owner[1]];
      const [first, second] = order(p, round[p]);
      if (pc[p] === 0) owner[first] = p;
      else if (pc[p] === 1) owner[second] = p;
      else if (pc[p] === 2) owner[second] = -1;
      else owner[first] = -1;
      pc[p] = (pc[p] + 1) % 4;
      if (pc[p] === 0) round[p]++;
      return { pc, round, owner };
    },
    invariants: [],
    isFinal: (s) => s.round[0] >= rounds && s.round[1] >= rounds,
    explainDeadlock(s) {
      const lines: string[] = [];
      for (const p of [0, 1] as const) {
        if (s.round[p] >= rounds) continue;
        const [first, second] = order(p, s.round[p]);
        const wanted = s.pc[p] === 0 ? first : second;
        lines.push(`process ${p} waits for lock ${lockName[wanted]} held by process ${s.owner[wanted]}`);
      }
      return lines.join('\n');
    },
    encode: (s) => Int32Array.of(s.pc[0], s.pc[1], s.round[0], s.round[1], s.owner[0], s.owner[1]),
    decode: (w) => ({ pc: [w[0]!, w[1]!], round: [w[2]!, w[3]!], owner: [w[4]!, w[5]!] }),
    formatAction: ({ process }) => `process ${process}`,
    actor: ({ process }) => process,
  };
}

// ---------------------------------------------------------------------------------------------
// A broken mutex: each process reads the flag (pc 0 → 1 when it is clear), then sets it
// (pc 1 → 2), is in its critical section at pc 2, clears it (pc 2 → 3 → 0, next round).
// The read and the set are separate steps, so both processes can enter: invariant `mutex`.

export function brokenMutexModel(rounds: number): Model<Int32Array, number> {
  // words: pc0, pc1, round0, round1, flag
  const mutex: Invariant<Int32Array> = {
    kind: 'mutex',
    check: (s) => (s[0] === 2 && s[1] === 2 ? 'both processes are in the critical section' : undefined),
  };
  return {
    initialStates: () => [new Int32Array(5)],
    actions(s, out) {
      for (let p = 0; p < 2; p++) {
        if (s[2 + p]! >= rounds) continue;
        if (s[p] !== 0 || s[4] === 0) out.push(p);
      }
    },
    nextState(s, p) {
      const next = s.slice();
      const pc = next[p]!;
      if (pc === 1) next[4] = 1;
      if (pc === 2) next[4] = 0;
      next[p] = (pc + 1) % 4;
      if (next[p] === 0) next[2 + p]!++;
      return next;
    },
    invariants: [mutex],
    isFinal: (s) => s[2]! >= rounds && s[3]! >= rounds,
    explainDeadlock: () => 'both processes wait for the flag',
    encode: (s) => s,
    decode: (w) => w,
    formatAction: (p) => `process ${p}`,
    actor: (p) => p,
  };
}

// ---------------------------------------------------------------------------------------------
// An explicit graph: nodes 0..n−1, each with outgoing edges (target, actor). A node with no edge
// is final or a deadlock as `final` says. Used for the fairness toys and the random-graph property.

export interface GraphEdge {
  readonly to: number;
  readonly actor: number;
}
export interface GraphSpec {
  readonly initial: readonly number[];
  readonly edges: readonly (readonly GraphEdge[])[];
  readonly final: readonly boolean[];
}

export function graphModel(spec: GraphSpec, options: { useActors?: boolean } = {}): Model<number, GraphEdge> {
  const model: Model<number, GraphEdge> = {
    initialStates: () => [...spec.initial],
    actions(node, out) {
      for (const edge of spec.edges[node] ?? []) out.push(edge);
    },
    nextState: (_node, edge) => edge.to,
    invariants: [],
    isFinal: (node) => spec.final[node] ?? false,
    explainDeadlock: (node) => `node ${node} has no edge and is not final`,
    encode: (node) => Int32Array.of(node),
    decode: (words) => words[0]!,
    formatAction: (edge) => `→${edge.to} by ${edge.actor}`,
    actorName: (actor) => `actor ${actor}`,
  };
  if (options.useActors ?? true) model.actor = (edge) => edge.actor;
  return model;
}
