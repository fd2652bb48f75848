// What one warp did that matters for synchronization, in program order, with concrete
// operands (shared-memory addresses are byte offsets in the CTA's shared window).
import type { Loc } from '../../ir/program.ts';

export type WarpEvent =
  /** `threads`: how many threads of the warp executed the instruction. */
  | { readonly k: 'init'; readonly bar: number; readonly count: number; readonly threads: number; readonly loc: Loc }
  /** `count`: total arrivals (per-thread count × executing threads). */
  | { readonly k: 'arrive'; readonly bar: number; readonly count: number; readonly loc: Loc }
  | { readonly k: 'arrive.expect_tx'; readonly bar: number; readonly bytes: number; readonly threads: number; readonly loc: Loc }
  /** `bytes`: total over the executing threads. */
  | { readonly k: 'expect_tx'; readonly bar: number; readonly bytes: number; readonly loc: Loc }
  | { readonly k: 'complete_tx'; readonly bar: number; readonly bytes: number; readonly loc: Loc }
  /** A try_wait/test_wait spin: one blocking wait per warp, whatever the number of spinning lanes. */
  | { readonly k: 'wait'; readonly bar: number; readonly parity: number; readonly loc: Loc }
  | { readonly k: 'inval'; readonly bar: number; readonly threads: number; readonly loc: Loc }
  /**
   * A TMA copy into shared memory (one per issuing thread: `copies` > 1 when several threads issue it).
   * `bytes` is absent for tensor copies until sized (tma-bytes.ts); `map` identifies the tensor map.
   * `src`: the global source as a symbolic base + byte offset, when known (value tags).
   */
  | {
      readonly k: 'tma.load'; readonly dst: number; readonly bytes?: number; readonly bar: number; readonly map?: string;
      readonly coords?: readonly (number | undefined)[]; readonly src?: { readonly base: string; readonly offset: number };
      readonly lane: number; readonly copies: number; readonly loc: Loc;
    }
  /** A TMA/bulk store or reduction reading shared memory from `src`. */
  | { readonly k: 'tma.store'; readonly src: number; readonly bytes?: number; readonly lane: number; readonly copies: number; readonly loc: Loc }
  | { readonly k: 'bulk.commit'; readonly loc: Loc }
  | { readonly k: 'bulk.wait'; readonly pending: number; readonly loc: Loc }
  /** One wgmma.mma_async: the shared-memory start addresses of its descriptors. */
  | { readonly k: 'mma'; readonly addrs: readonly number[]; readonly loc: Loc }
  | { readonly k: 'wgmma.commit'; readonly loc: Loc }
  | { readonly k: 'wgmma.wait'; readonly pending: number; readonly loc: Loc }
  /** `threads` absent: all threads of the CTA. */
  | { readonly k: 'bar.sync' | 'bar.arrive'; readonly id: number; readonly threads?: number; readonly loc: Loc }
  | { readonly k: 'fence.proxy.async'; readonly loc: Loc }
  /** Generic shared-memory access by the warp: union of its lanes' byte ranges [lo, hi). */
  | { readonly k: 'read' | 'write'; readonly lo: number; readonly hi: number; readonly loc: Loc };

export type WarpEventKind = WarpEvent['k'];
