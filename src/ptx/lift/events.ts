// What one warp did that matters for synchronization, in program order, with concrete
// operands. Shared-memory addresses are byte offsets in a CTA's shared window, with the CTA's
// rank in the cluster (`cta`): another CTA's for a remote arrive, several for a multicast copy.
import type { Loc } from '../../ir/program.ts';

export type WarpEvent =
  /** `threads`: how many threads of the warp executed the instruction. */
  | { readonly k: 'init'; readonly cta: number; readonly bar: number; readonly count: number; readonly threads: number; readonly loc: Loc }
  /** `count`: total arrivals (per-thread count × executing threads). `token`: the arrive returned a state token (its site). */
  | { readonly k: 'arrive'; readonly cta: number; readonly bar: number; readonly count: number; readonly token?: number; readonly loc: Loc }
  /** `txFrom`: the byte count derives from a launch value the user did not give (launch-slice.ts). */
  | { readonly k: 'arrive.expect_tx'; readonly cta: number; readonly bar: number; readonly bytes: number; readonly threads: number; readonly token?: number; readonly txFrom?: string; readonly loc: Loc }
  /** `bytes`: total over the executing threads. */
  | { readonly k: 'expect_tx'; readonly cta: number; readonly bar: number; readonly bytes: number; readonly txFrom?: string; readonly loc: Loc }
  | { readonly k: 'complete_tx'; readonly cta: number; readonly bar: number; readonly bytes: number; readonly loc: Loc }
  /**
   * A try_wait/test_wait spin: one blocking wait per warp, whatever the number of spinning lanes.
   * `token`: the wait names the phase of the arrive at that site (a token wait).
   */
  | { readonly k: 'wait'; readonly cta: number; readonly bar: number; readonly parity: number; readonly token?: number; readonly loc: Loc }
  | { readonly k: 'inval'; readonly cta: number; readonly bar: number; readonly threads: number; readonly loc: Loc }
  /**
   * A TMA copy into shared memory (one per issuing thread: `copies` > 1 when several threads issue it).
   * `bytes` is absent for tensor copies until sized (tma-bytes.ts); `map` identifies the tensor map.
   * `ctas`: a multicast copy lands at the same offsets in each of these CTAs and signals each one's barrier.
   * `src`: the global source as a symbolic base + byte offset, when known (value tags).
   */
  | {
      readonly k: 'tma.load'; readonly cta: number; readonly dst: number; readonly bytes?: number; readonly bar: number;
      readonly ctas?: readonly number[]; readonly map?: string;
      readonly coords?: readonly (number | undefined)[]; readonly src?: { readonly base: string; readonly offset: number };
      /** a warp's st.async: the byte runs its lanes store (`dst` the first); a TMA copy has none */
      readonly parts?: readonly (readonly [number, number])[];
      readonly lane: number; readonly copies: number; readonly loc: Loc;
    }
  /** A TMA/bulk store or reduction reading shared memory from `src`. */
  | { readonly k: 'tma.store'; readonly cta: number; readonly src: number; readonly bytes?: number; readonly map?: string; readonly lane: number; readonly copies: number; readonly loc: Loc }
  | { readonly k: 'bulk.commit'; readonly loc: Loc }
  | { readonly k: 'bulk.wait'; readonly pending: number; readonly loc: Loc }
  /**
   * One wgmma.mma_async: the shared-memory start addresses of its descriptors, the descriptors
   * themselves (for its footprint, wgmma-footprint.ts), its shape (`m64n128k16`) and types.
   */
  | {
      readonly k: 'mma'; readonly cta: number; readonly addrs: readonly number[];
      readonly descs?: readonly { readonly desc: bigint; readonly operand: 'a' | 'b' }[];
      readonly shape?: string; readonly types?: readonly string[];
      /** the operand is MN-major (the instruction's transpose flag; f16/bf16 only) */
      readonly mnMajor?: { readonly a: boolean; readonly b: boolean };
      readonly loc: Loc;
    }
  /** `settled`: every generic shared-memory load of the warp before it is over (its value was read: load-waits.ts). */
  | { readonly k: 'wgmma.commit'; readonly settled?: boolean; readonly loc: Loc }
  | { readonly k: 'wgmma.wait'; readonly pending: number; readonly loc: Loc }
  /** `threads` absent: all threads of the CTA. */
  | { readonly k: 'bar.sync' | 'bar.arrive'; readonly id: number; readonly threads?: number; readonly loc: Loc }
  /** barrier.cluster.arrive + wait, at the wait: every thread of the cluster (modelled as one barrier). */
  | { readonly k: 'cluster.sync'; readonly loc: Loc }
  | { readonly k: 'fence.proxy.async'; readonly loc: Loc }
  /**
   * Generic shared-memory access by the warp in CTA `cta`: its lanes' bytes span [lo, hi); `parts`,
   * when present, are the disjoint runs they actually cover (absent: all of [lo, hi)); `data`, for
   * a store whose addresses and values are all known, lists them (equal data: a replicated store).
   */
  /** `atomic`: a write by atom/red, which races with no other atomic (semantics/access.ts) */
  | { readonly k: 'read' | 'write'; readonly cta: number; readonly lo: number; readonly hi: number; readonly parts?: readonly (readonly [number, number])[]; readonly data?: string; readonly atomic?: true; readonly loc: Loc };

export type WarpEventKind = WarpEvent['k'];
