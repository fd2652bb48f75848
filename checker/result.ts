// The explorer's public types: options in, verdict + stats + shortest counterexamples out.

/** One step of a counterexample: the first step is an initial state, every later one an action. */
export interface TraceStep<S, A> {
  /** The action that led here (absent on the first step). */
  readonly action?: A;
  /** Position of `action` in `model.actions(previous state)` output (absent on the first step). */
  readonly actionIndex?: number;
  /** On the first step only: position of this state in `model.initialStates()`. */
  readonly initialIndex?: number;
  readonly state: S;
  /** Number of actions taken from the initial state. */
  readonly depth: number;
}

export interface Violation<S, A> {
  /** `deadlock`, `termination`, or an invariant's kind. */
  readonly kind: string;
  readonly message: string;
  readonly trace: readonly TraceStep<S, A>[];
  /**
   * For a lasso (termination): index in `trace` where the cycle starts; the last step's state
   * equals the state at this index, so the steps after it repeat forever.
   */
  readonly loopStart?: number;
}

/** Why a run stopped before covering everything: a limit, or the user (`interrupted`: Ctrl-C). */
export type LimitReason = 'states' | 'time' | 'memory' | 'interrupted';

export interface ProgressInfo {
  readonly states: number;
  readonly transitions: number;
  /** States stored but not yet expanded. */
  readonly queue: number;
  /** BFS depth currently being expanded. */
  readonly depth: number;
  readonly ms: number;
  readonly statesPerSecond: number;
}

export interface CheckOptions {
  /** Stop (inconclusive) rather than store more than this many states. */
  readonly maxStates?: number;
  /** Stop (inconclusive) after this much wall time, in milliseconds. */
  readonly maxMs?: number;
  /** Stop (inconclusive) when the explorer's typed arrays would exceed this many bytes. */
  readonly maxBytes?: number;
  /** Stop at the first violation of any kind (default: record the first of each kind and go on). */
  readonly stopAtFirst?: boolean;
  /** Called about once per second during exploration. */
  readonly onProgress?: (info: ProgressInfo) => void;
  /** Polled every few milliseconds: true stops the run (inconclusive, reason `interrupted`) with the figures reached. */
  readonly interrupted?: () => boolean;
  /** Check termination under weak fairness (default true). */
  readonly termination?: boolean;
  /**
   * Partial-order reduction through the model's `ample` sets (default true). Used only on models
   * with a progress measure (an acyclic state graph); `false` explores every interleaving.
   */
  readonly reduction?: boolean;
  /**
   * Collapse compression (default false): blocks of the encoding the model names (`Model.blocks`)
   * are stored once each and states point to them. Less memory per state, some more time.
   */
  readonly collapse?: boolean;
  /**
   * Symmetry reduction through the model's `canonical` (default false): only one state of each
   * orbit is stored. Counterexamples are turned back into runs of the model (trace.ts).
   */
  readonly symmetry?: boolean;
}

export interface CheckStats {
  readonly states: number;
  readonly transitions: number;
  readonly ms: number;
  readonly statesPerSecond: number;
  /** Bytes of typed arrays allocated by the explorer, divided by the number of states. */
  readonly bytesPerState: number;
  readonly maxDepth: number;
}

export type Verdict = 'verified' | 'violation' | 'inconclusive';

export interface CheckResult<S, A> {
  readonly verdict: Verdict;
  readonly violations: readonly Violation<S, A>[];
  readonly stats: CheckStats;
  readonly limit?: { readonly reason: LimitReason; readonly message: string };
  /** Facts worth telling the user that are not violations (e.g. a progress measure that failed). */
  readonly notes?: readonly string[];
}
