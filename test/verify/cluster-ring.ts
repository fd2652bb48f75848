// Two-CTA multicast rings for the reduction tests (cluster-reduction.test.ts): each CTA's producer
// multicasts half of B into both CTAs' full barriers and both consumers release both CTAs' empty
// barriers, unrolled to straight-line code, with one-line mutations of the phase arithmetic.
import * as fc from 'fast-check';

export const MUTATIONS = ['none', 'expect-short', 'expect-long', 'drop-copy', 'drop-arrive', 'extra-arrive', 'parity', 'empty-count-1'] as const;
export type Mutation = (typeof MUTATIONS)[number];

export interface ClusterRing {
  readonly stages: number;
  readonly blocks: number;
  readonly mutation: Mutation;
  /** which k-block (mod blocks) and CTA the mutation hits */
  readonly at: number;
  readonly cta: number;
}

const A = 1024;
const HALF = 512;

/** The ring as .aref text, unrolled (one straight line per role). */
export function clusterRingText(r: ClusterRing): string {
  const S = r.stages;
  const hit = (k: number, c: number) => k === r.at % r.blocks && c === r.cta;
  const lines = [
    ...[0, 1].map((c) => `mbarrier full${c}[${S}] count 1`),
    ...[0, 1].map((c) => `mbarrier empty${c}[${S}] count ${r.mutation === 'empty-count-1' && c === r.cta ? 1 : 2}`),
    ...[0, 1].map((c) => `buffer a${c}[${S}] bytes ${A}`),
    ...[0, 1].map((c) => `buffer b${c}[${2 * S}] bytes ${HALF}`),
  ];
  for (const c of [0, 1]) {
    lines.push('', `role producer${c} warps 1:`);
    for (let k = 0; k < r.blocks; k++) {
      const s = k % S;
      const parity = (Math.floor(k / S) + 1) & 1;
      const bytes = A + 2 * HALF + (hit(k, c) && r.mutation === 'expect-short' ? -HALF : hit(k, c) && r.mutation === 'expect-long' ? HALF : 0);
      lines.push(`  wait empty${c}[${s}], ${parity}`, `  arrive.expect_tx full${c}[${s}], ${bytes}`, `  tma.load a${c}[${s}] -> full${c}[${s}], ${A}`);
      // this CTA's half of B, multicast to both CTAs
      for (const d of [0, 1]) if (!(hit(k, c) && r.mutation === 'drop-copy' && d !== c)) lines.push(`  tma.load b${d}[${2 * s + c}] -> full${d}[${s}], ${HALF}`);
    }
    lines.push('', `role consumer${c} warps 4:`);
    for (let k = 0; k < r.blocks; k++) {
      const s = k % S;
      const parity = (Math.floor(k / S) & 1) ^ (hit(k, c) && r.mutation === 'parity' ? 1 : 0);
      lines.push(`  wait full${c}[${s}], ${parity}`, `  wgmma.issue a${c}[${s}]`, `  wgmma.issue b${c}[${2 * s}]`, `  wgmma.issue b${c}[${2 * s + 1}]`, '  wgmma.commit', '  wgmma.wait 0');
      for (const d of [0, 1]) if (!(hit(k, c) && r.mutation === 'drop-arrive' && d !== c)) lines.push(`  arrive empty${d}[${s}]`);
      if (hit(k, c) && r.mutation === 'extra-arrive') lines.push(`  arrive full${1 - c}[${s}]`);
    }
  }
  return lines.join('\n') + '\n';
}

export const arbClusterRing: fc.Arbitrary<ClusterRing> = fc.record({
  stages: fc.integer({ min: 1, max: 2 }),
  blocks: fc.integer({ min: 1, max: 4 }),
  mutation: fc.constantFrom(...MUTATIONS),
  at: fc.nat(3),
  cta: fc.integer({ min: 0, max: 1 }),
});

/**
 * The ring above with two consumers per CTA that take k-blocks in turn (CUTLASS Pingpong on a 1×2
 * cluster): an order barrier per CTA passes the turn. With an odd number of stages a consumer's
 * first wait on a stage is that stage's second round (parity 1), the first round having gone to
 * the other consumer, which released the order barrier only after it.
 */
export function pingpongClusterText(stages: number, blocks: number): string {
  const S = stages;
  const lines = [
    ...[0, 1].map((c) => `mbarrier full${c}[${S}] count 1`),
    ...[0, 1].map((c) => `mbarrier empty${c}[${S}] count 2`),
    ...[0, 1].map((c) => `mbarrier order${c}[2] count 1`),
    ...[0, 1].map((c) => `buffer a${c}[${S}] bytes ${A}`),
    ...[0, 1].map((c) => `buffer b${c}[${2 * S}] bytes ${HALF}`),
  ];
  for (const c of [0, 1]) {
    lines.push('', `role producer${c} warps 1:`);
    for (let k = 0; k < blocks; k++) {
      const s = k % S;
      lines.push(`  wait empty${c}[${s}], ${(Math.floor(k / S) + 1) & 1}`, `  arrive.expect_tx full${c}[${s}], ${A + 2 * HALF}`, `  tma.load a${c}[${s}] -> full${c}[${s}], ${A}`);
      for (const d of [0, 1]) lines.push(`  tma.load b${d}[${2 * s + c}] -> full${d}[${s}], ${HALF}`);
    }
    for (const w of [0, 1]) {
      lines.push('', `role consumer${c}_${w} warps 4:`);
      // consumer w's j-th turn waits for the other's j-th (w = 1) or (j−1)-th (w = 0) handover
      for (let k = w, j = 0; k < blocks; k += 2, j++) {
        const s = k % S;
        lines.push(`  wait order${c}[${w}], ${(j + 1 - w) & 1}`, `  wait full${c}[${s}], ${Math.floor(k / S) & 1}`);
        lines.push(`  wgmma.issue a${c}[${s}]`, `  wgmma.issue b${c}[${2 * s}]`, `  wgmma.issue b${c}[${2 * s + 1}]`, '  wgmma.commit', '  wgmma.wait 0');
        for (const d of [0, 1]) lines.push(`  arrive empty${d}[${s}]`);
        lines.push(`  arrive order${c}[${1 - w}]`);
      }
    }
  }
  return lines.join('\n') + '\n';
}

/** A 2×2 cluster ring (CUTLASS Cooperative on a 2×2 cluster, `.corpus`): CTA c = 2·row + col. */
export interface GridRing extends ClusterRing {
  /** consumer warpgroups per CTA, each reading every stage */
  readonly consumers: number;
}

/**
 * Each CTA's producer multicasts A to its column partner (c ^ 2) and B to its row partner (c ^ 1),
 * so a CTA's full barrier gets four copies — two of its own producer, one of each partner — and its
 * consumers release the empty barriers of the three CTAs that fill it (count 3 × consumers). A CTA
 * has no direct tie to the diagonal one: what one can do depends on the other only through the
 * partners, a round later — which is where bounds that count arrivals but not bytes per phase let
 * a producer run rounds ahead.
 */
export function gridClusterText(r: GridRing): string {
  const S = r.stages;
  const CTAS = [0, 1, 2, 3];
  const hit = (k: number, c: number) => k === r.at % r.blocks && c === r.cta;
  const sources = (c: number) => [c, c ^ 1, c ^ 2];
  const lines = [
    ...CTAS.map((c) => `mbarrier full${c}[${S}] count 1`),
    ...CTAS.map((c) => `mbarrier empty${c}[${S}] count ${r.mutation === 'empty-count-1' && c === r.cta ? 1 : 3 * r.consumers}`),
    ...CTAS.map((c) => `buffer a${c}[${2 * S}] bytes ${HALF}`),
    ...CTAS.map((c) => `buffer b${c}[${2 * S}] bytes ${HALF}`),
  ];
  for (const c of CTAS) {
    lines.push('', `role producer${c} warps 1:`);
    for (let k = 0; k < r.blocks; k++) {
      const s = k % S;
      const bytes = 4 * HALF + (hit(k, c) && r.mutation === 'expect-short' ? -HALF : hit(k, c) && r.mutation === 'expect-long' ? HALF : 0);
      lines.push(`  wait empty${c}[${s}], ${(Math.floor(k / S) + 1) & 1}`, `  arrive.expect_tx full${c}[${s}], ${bytes}`);
      // A: this CTA's half, into itself and its column partner; B: into itself and its row partner
      for (const [buf, d] of [['a', c], ['a', c ^ 2], ['b', c], ['b', c ^ 1]] as const) {
        if (hit(k, c) && r.mutation === 'drop-copy' && d !== c && buf === 'b') continue;
        lines.push(`  tma.load ${buf}${d}[${2 * s + (d === c ? 0 : 1)}] -> full${d}[${s}], ${HALF}`);
      }
    }
    for (let w = 0; w < r.consumers; w++) {
      // two warps each when two share a CTA: a program's roles fit one CTA's 32 warps
      lines.push('', `role consumer${c}_${w} warps ${r.consumers > 1 ? 2 : 4}:`);
      for (let k = 0; k < r.blocks; k++) {
        const s = k % S;
        const parity = (Math.floor(k / S) & 1) ^ (hit(k, c) && w === 0 && r.mutation === 'parity' ? 1 : 0);
        lines.push(`  wait full${c}[${s}], ${parity}`, `  wgmma.issue a${c}[${2 * s}]`, `  wgmma.issue a${c}[${2 * s + 1}]`, `  wgmma.issue b${c}[${2 * s}]`, `  wgmma.issue b${c}[${2 * s + 1}]`, '  wgmma.commit', '  wgmma.wait 0');
        for (const d of sources(c)) if (!(hit(k, c) && w === 0 && r.mutation === 'drop-arrive' && d !== c)) lines.push(`  arrive empty${d}[${s}]`);
        if (hit(k, c) && w === 0 && r.mutation === 'extra-arrive') lines.push(`  arrive full${c ^ 3}[${s}]`);
      }
    }
  }
  return lines.join('\n') + '\n';
}

export const arbGridRing: fc.Arbitrary<GridRing> = fc.record({
  stages: fc.integer({ min: 1, max: 2 }),
  blocks: fc.integer({ min: 1, max: 3 }),
  consumers: fc.constant(1),
  mutation: fc.constantFrom(...MUTATIONS),
  at: fc.nat(2),
  cta: fc.integer({ min: 0, max: 3 }),
});

/** The two-CTA ring with each consumer warpgroup lifted as partner roles (CUTLASS example 67). */
export interface SplitRing extends Omit<ClusterRing, 'mutation'> {
  /** the ring mutations, and for a lagged ring one more: partner 0 of CTA `cta` releases each stage it has just issued on, before its group retires */
  readonly mutation: Mutation | 'early-release';
  /** partner roles per consumer warpgroup: 2, or 3 with one that never arrives */
  readonly partners: number;
  /** 1: each partner waits `wgmma.wait 1` and releases the stage before (CUTLASS's mainloop), so a partner runs a batch ahead; 0 or absent: `wgmma.wait 0` and the stage itself */
  readonly lag?: number;
}

/**
 * Partner w < 2 of each CTA's consumer warpgroup releases CTA w's empty barrier alone (so each
 * empty barrier counts one arrival per CTA); a third partner only waits and issues. The partners'
 * wgmma groups retire together, once each has committed: a partner that has not yet issued holds
 * back the others' wgmma.wait, and with them the arrivals the peer CTA's producer waits for.
 */
export function splitClusterText(r: SplitRing): string {
  const S = r.stages;
  const lag = r.lag ?? 0;
  const hit = (k: number, c: number) => k === r.at % r.blocks && c === r.cta;
  const names = (c: number) => Array.from({ length: r.partners }, (_, w) => `consumer${c}_${w}`);
  const lines = [
    ...[0, 1].map((c) => `mbarrier full${c}[${S}] count 1`),
    ...[0, 1].map((c) => `mbarrier empty${c}[${S}] count ${r.mutation === 'empty-count-1' && c === r.cta ? 1 : 2}`),
    ...[0, 1].map((c) => `buffer a${c}[${S}] bytes ${A}`),
    ...[0, 1].map((c) => `buffer b${c}[${2 * S}] bytes ${HALF}`),
    ...[0, 1].map((c) => `warpgroup ${names(c).join(', ')}`),
  ];
  for (const c of [0, 1]) {
    lines.push('', `role producer${c} warps 1:`);
    for (let k = 0; k < r.blocks; k++) {
      const s = k % S;
      const bytes = A + 2 * HALF + (hit(k, c) && r.mutation === 'expect-short' ? -HALF : hit(k, c) && r.mutation === 'expect-long' ? HALF : 0);
      lines.push(`  wait empty${c}[${s}], ${(Math.floor(k / S) + 1) & 1}`, `  arrive.expect_tx full${c}[${s}], ${bytes}`, `  tma.load a${c}[${s}] -> full${c}[${s}], ${A}`);
      for (const d of [0, 1]) if (!(hit(k, c) && r.mutation === 'drop-copy' && d !== c)) lines.push(`  tma.load b${d}[${2 * s + c}] -> full${d}[${s}], ${HALF}`);
    }
    names(c).forEach((name, w) => {
      lines.push('', `role ${name} warps 1:`);
      for (let k = 0; k < r.blocks; k++) {
        const s = k % S;
        const parity = (Math.floor(k / S) & 1) ^ (hit(k, c) && w === 0 && r.mutation === 'parity' ? 1 : 0);
        lines.push(`  wait full${c}[${s}], ${parity}`, `  wgmma.issue a${c}[${s}]`, `  wgmma.issue b${c}[${2 * s + w % 2}]`, '  wgmma.commit', `  wgmma.wait ${lag}`);
        // with a lag, block k releases block k − 1's stage: its group has retired
        const early = c === r.cta && w === 0 && r.mutation === 'early-release';
        if ((k >= lag || early) && w < 2 && !(hit(k, c) && r.mutation === 'drop-arrive' && w !== c)) lines.push(`  arrive empty${w}[${(early ? k : k - lag) % S}]`);
        if (hit(k, c) && w === 0 && r.mutation === 'extra-arrive') lines.push(`  arrive full${1 - c}[${s}]`);
      }
      const late = lag > 0 && w < 2 && !(c === r.cta && w === 0 && r.mutation === 'early-release');
      if (lag > 0) lines.push('  wgmma.wait 0', ...(late ? [`  arrive empty${w}[${(r.blocks - 1) % S}]`] : []));
    });
  }
  return lines.join('\n') + '\n';
}

export const arbSplitRing: fc.Arbitrary<SplitRing> = fc.record({
  stages: fc.integer({ min: 1, max: 2 }),
  blocks: fc.integer({ min: 1, max: 4 }),
  partners: fc.integer({ min: 2, max: 3 }),
  mutation: fc.constantFrom(...MUTATIONS),
  at: fc.nat(3),
  cta: fc.integer({ min: 0, max: 1 }),
});

/** Split rings that release a stage a block late (`lag` 1): two or three stages, since one stage and a lag deadlock. */
export const arbLagRing: fc.Arbitrary<SplitRing> = fc.record({
  stages: fc.integer({ min: 2, max: 3 }),
  blocks: fc.integer({ min: 2, max: 4 }),
  partners: fc.integer({ min: 2, max: 3 }),
  mutation: fc.constantFrom(...MUTATIONS, 'early-release' as const),
  at: fc.nat(3),
  cta: fc.integer({ min: 0, max: 1 }),
  lag: fc.constant(1),
});
