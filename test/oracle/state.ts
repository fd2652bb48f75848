// The oracle's state: plain objects, vector clocks for happens-before, statement continuations
// for control. Deliberately simple and separate from semantics/: it shares no code with the
// checker's rules (only the Program IR and the expression evaluator), so a rule bug in one shows
// up as a disagreement in the differential test.

/** A vector clock: agent → number of its events known. Agents: `r<i>` roles, `tma:<slot>`, `mma:<i>`, `store:<i>`, `bar:<b>:<incarnation>` (completions). */
export type Clock = Record<string, number>;

export function join(into: Clock, from: Clock): void {
  for (const k in from) {
    const v = from[k]!;
    if ((into[k] ?? 0) < v) into[k] = v;
  }
}

/** An event: agent and its clock value at the event. */
export interface Epoch {
  readonly agent: string;
  readonly at: number;
}

export const knows = (c: Clock, e: Epoch): boolean => (c[e.agent] ?? 0) >= e.at;

/** Where a role is in its body: a stack of frames, each a statement list, a position and the loop it belongs to. */
export interface Frame {
  /** Path of the statement list from the role body: indices of nested statements and branch choices, as text. */
  readonly block: string;
  pos: number;
  /** For a loop body: the loop variable and its bound. */
  readonly loop?: { readonly name: string; readonly to: number };
}

export interface OGroup {
  slots: number[];
  retired: boolean;
  /** the read events' clock once retired (what a covering wait learns) */
  clock: Clock;
}

export interface ORole {
  frames: Frame[];
  env: Record<string, number>;
  done: boolean;
  /** bar.sync: arrived and waiting, or released and about to leave */
  bar: 'free' | 'waiting' | 'released';
  clock: Clock;
  mmaOpen: number[];
  mma: OGroup[];
  storeOpen: number[];
  store: OGroup[];
}

export interface OSlot {
  value: number | undefined;
  /** aref flags (aref slots only) */
  full: boolean;
  empty: boolean;
  /** last write: its event, whether generic (st.shared) or async (TMA, put) */
  write: Epoch | undefined;
  generic: boolean;
  /** reads since the last write, by reader class and role (the latest of each) */
  reads: Record<string, Epoch>;
  /** proxy fences since the last write: the first of each role */
  fences: Record<string, Epoch>;
  /** per generic reader, the proxy fences that knew its latest read: the first of each fencing role */
  readFences: Record<string, Record<string, Epoch>>;
  /** aref slot as a sync object */
  clock: Clock;
}

export interface OBarrier {
  valid: boolean;
  incarnation: number;
  phase: number;
  pending: number;
  expected: number;
  tx: number;
  observed: boolean;
  /** releases of the current phase, and of every completed phase */
  pendingClock: Clock;
  doneClock: Clock;
}

export interface OFlight {
  /** first slot; the copy fills `span` consecutive slots */
  slot: number;
  span: number;
  barrier: number;
  bytes: number;
  value: number | undefined;
  role: number;
}

export interface ONamed {
  count: number;
  threads: number;
  clock: Clock;
}

export interface OState {
  roles: ORole[];
  slots: OSlot[];
  barriers: OBarrier[];
  named: ONamed[];
  tma: OFlight[];
  /** counters of the async agents (per slot TMA writes, per role group retirements) */
  agents: Record<string, number>;
  violation?: string;
}

export const clone = (s: OState): OState => structuredClone(s);
