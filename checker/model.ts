// The Model interface: what can happen, and nothing about how it is explored (Stateright's split).
// The explorer in this folder works on any Model; arefs and mbarriers live in semantics/.

/** An invariant: `check` returns a violation message for a bad state, or undefined. */
export interface Invariant<S> {
  /** Stable property name used in reports (`race`, `fifo`, `protocol`, …). */
  readonly kind: string;
  check(state: S): string | undefined;
}

export interface Model<S, A> {
  /** Deterministic order: trace replay relies on it. */
  initialStates(): S[];
  /** Push the actions enabled in `state` into `out`, in a deterministic order. */
  actions(state: S, out: A[]): void;
  /** The successor of `state` under `action` (must not mutate `state`). */
  nextState(state: S, action: A): S;
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
  decode(words: Int32Array): S;
  formatAction(action: A): string;
}
