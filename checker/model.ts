// The Model interface: what can happen, and nothing about how it is explored (Stateright's split).
// The explorer in this folder works on any Model; arefs and mbarriers live in semantics/.

/** An invariant: `check` returns a violation message for a bad state, or undefined. */
export interface Invariant<S> {
  /** Stable property name used in reports (`race`, `fifo`, `protocol`, …). */
  readonly kind: string;
  check(state: S): string | undefined;
}

/** Words `from` up to `to` (exclusive; absent: to the end) of a state's encoding. */
export interface WordBlock {
  readonly from: number;
  readonly to?: number;
}

export interface Model<S, A> {
  /** Deterministic order: trace replay relies on it. */
  initialStates(): S[];
  /** Push the actions enabled in `state` into `out`, in a deterministic order. */
  actions(state: S, out: A[]): void;
  /** The successor of `state` under `action` (must not mutate `state`). */
  nextState(state: S, action: A): S;
  /**
   * Optional, for speed: nextState whose result is valid only until the next call (it may live in
   * the model's scratch storage). The explorer uses it in its hot loop, where it encodes, checks
   * and measures each successor before asking for the next one.
   */
  successor?(state: S, action: A): S;
  /** Invariants checked on every reached state. */
  readonly invariants: readonly Invariant<S>[];
  /**
   * True for a state with no successors that is a proper end (every role finished).
   * A state with no enabled action that is not final is a deadlock.
   */
  isFinal(state: S): boolean;
  /** Explain why a non-final state with no enabled action is stuck (one line per blocked party). */
  explainDeadlock(state: S): string;
  /**
   * Canonical encoding of a state: equal states give equal words, different states different words.
   * The explorer hashes and stores these; it never looks inside S.
   */
  encode(state: S): Int32Array;
  /** `words` may be a view of the explorer's storage: read it, never write to it. */
  decode(words: Int32Array): S;
  /**
   * Optional, for collapse compression (CheckOptions.collapse): ordered, disjoint blocks of the
   * encoding that take few distinct values over a run (only the last may run to the end).
   */
  readonly blocks?: readonly WordBlock[];
  formatAction(action: A): string;
  /**
   * Optional: which party (role, async unit, …) performs `action`, as a small integer in 0..31.
   * Termination is judged under weak fairness per party: a party enabled in every state of a
   * cycle must act in it. Without `actor`, every action counts as one party, so any reachable
   * cycle is a termination violation.
   */
  actor?(action: A): number;
  /** Optional: a party's name for messages (defaults to `party N`). */
  actorName?(actor: number): string;
  /**
   * Optional: a measure that strictly increases along every transition. When given, the explorer
   * checks the increase on each transition instead of recording edges (no cycle ⇒ no infinite run),
   * which saves memory; if the measure ever fails to increase it falls back to recording edges.
   */
  progress?(state: S): number;
  /**
   * Optional, for partial-order reduction: indices into `actions` (as `actions` listed them) of a
   * persistent subset of the enabled actions, or undefined to expand all of them. The explorer
   * expands the rest too when one of the chosen actions leads to a violating state, and uses this
   * only with a progress measure (so the cycle proviso holds: there are no cycles).
   */
  ample?(state: S, actions: readonly A[]): readonly number[] | undefined;
  /**
   * Optional, for a state graph with cycles and no progress measure (a quotient such as the
   * every-K model): true for a transition that may close a cycle. Every cycle must contain one.
   * With termination off, `ample` is then used under the cycle proviso: a state whose ample
   * subset takes such a transition is expanded fully.
   */
  cycleEdge?(from: S, to: S): boolean;
  /**
   * Optional, for symmetry reduction (CheckOptions.symmetry): a state of the same orbit under the
   * model's symmetries (a permutation of interchangeable parties, applied to everything that names
   * them), chosen so that states differing only by such a permutation usually give the same one.
   * It must return a state reachable exactly when `state` is, with the same invariant verdicts and
   * the same deadlock verdict (a violation's message may differ: the explorer makes it again on
   * the trace it reports); the explorer stores and expands only what it returns. Used only on runs
   * that record no edges (the fairness analysis names parties). May return `state` itself.
   */
  canonical?(state: S): S;
  /**
   * Optional, with `canonical` when it may give different members of one orbit different
   * representatives: true when some symmetry turns a into b. Counterexamples use it where no
   * successor has the stored representative.
   */
  sameOrbit?(a: S, b: S): boolean;
}
