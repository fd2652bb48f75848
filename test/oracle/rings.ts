// Generated mbarrier rings for the differential test: a producer filling D slots with TMA copies,
// C consumers reading each slot (wgmma or plain loads), releases, an optional TMA-store epilogue
// with a proxy fence and a named barrier; then one mutation from the bug classes (or none). Small
// enough for the oracle, deep enough to reach the interesting interleavings.
import * as fc from 'fast-check';

export const MUTATIONS = [
  'none', 'producer-parity', 'consumer-parity', 'bytes-small', 'bytes-large', 'count-high', 'count-low',
  'release-early', 'release-missing', 'release-doubled', 'slot-off-by-one', 'no-phase-flip', 'trip-count',
  'no-fence', 'store-wait-early', 'no-bar-sync', 'init-in-role',
] as const;
export type Mutation = (typeof MUTATIONS)[number];

export interface RingSpec {
  readonly depth: number;
  readonly iterations: number;
  readonly consumers: number;
  readonly pending: number;
  readonly wgmma: boolean;
  readonly epilogue: boolean;
  readonly mutation: Mutation;
}

export const arbRing: fc.Arbitrary<RingSpec> = fc.record({
  depth: fc.integer({ min: 1, max: 2 }),
  iterations: fc.integer({ min: 1, max: 3 }),
  consumers: fc.integer({ min: 1, max: 2 }),
  pending: fc.integer({ min: 0, max: 1 }),
  wgmma: fc.boolean(),
  epilogue: fc.boolean(),
  mutation: fc.constantFrom(...MUTATIONS),
});

/** The ring as .aref text (it parses and validates). */
export function ringText(r: RingSpec): string {
  const m = r.mutation;
  const D = r.depth;
  const P = r.wgmma ? r.pending : 0;
  const bytes = m === 'bytes-small' ? 128 : m === 'bytes-large' ? 512 : 256;
  const emptyCount = r.consumers + (m === 'count-high' ? 1 : m === 'count-low' && r.consumers > 1 ? -1 : 0);
  const prodParity = m === 'producer-parity' ? '(k / D) & 1' : '((k / D) & 1) ^ 1';
  const consParity = m === 'consumer-parity' ? '((k / D) & 1) ^ 1' : m === 'no-phase-flip' ? '0' : '(k / D) & 1';
  const slot = m === 'slot-off-by-one' ? '(k + 1) % D' : 'k % D';
  const lines: string[] = [
    `param K = ${r.iterations}`,
    `param D = ${D}`,
    `buffer S[${D}] bytes 256`,
    m === 'init-in-role' ? `mbarrier full[${D}]` : `mbarrier full[${D}] count 1`,
    `mbarrier empty[${D}] count ${Math.max(1, emptyCount)}`,
  ];
  if (r.epilogue) {
    lines.push(`buffer OUT[${r.consumers}] bytes 256`);
    lines.push(`mbarrier done[1] count 1`);
  }
  lines.push('role producer warps 1:');
  if (m === 'init-in-role') lines.push('  for s in 0..D:', '    init full[s], 1');
  lines.push(
    '  for k in 0..K:',
    `    wait empty[k % D], ${prodParity}`,
    `    arrive.expect_tx full[k % D], ${bytes}`,
    `    tma.load S[k % D] -> full[k % D], 256 value k`,
  );
  for (let c = 0; c < r.consumers; c++) {
    const trips = m === 'trip-count' && c === 0 ? 'K - 1' : 'K';
    lines.push(`role consumer${c} warps 4:`, `  for k in 0..${trips}:`, `    wait full[k % D], ${consParity}`);
    if (r.wgmma) {
      lines.push(`    mma.issue S[${slot}] expect k`);
      if (m === 'release-early') lines.push(`    arrive empty[k % D]`);
      lines.push(`    wgmma.wait ${P}`);
      if (m !== 'release-early' && m !== 'release-missing') {
        lines.push(P === 0 ? `    arrive empty[k % D]` : `    if k >= ${P}: arrive empty[(k - ${P}) % D]`);
        if (m === 'release-doubled') lines.push(P === 0 ? `    arrive empty[k % D]` : `    if k >= ${P}: arrive empty[(k - ${P}) % D]`);
      }
    } else {
      lines.push(`    read S[${slot}] expect k`);
      // the generic read is ordered before the producer's next TMA write by a proxy fence
      if (m !== 'no-fence') lines.push('    fence.proxy.async');
      if (m !== 'release-missing') lines.push(`    arrive empty[k % D]`);
      if (m === 'release-doubled') lines.push(`    arrive empty[k % D]`);
    }
    if (r.wgmma) {
      lines.push('  wgmma.wait 0');
      if (P > 0 && m !== 'release-early' && m !== 'release-missing') lines.push(`  if ${trips} >= ${P}: arrive empty[(${trips} - ${P}) % D]`);
    }
    if (r.epilogue) {
      // each consumer stages its own output tile, then one TMA store reads it
      lines.push(`  write OUT[${c}], ${c}`);
      if (m !== 'no-fence') lines.push('  fence.proxy.async');
      lines.push(`  tma.store OUT[${c}]`, '  bulk.commit');
      if (m === 'store-wait-early') lines.push(`  write OUT[${c}], ${c + 10}`, '  bulk.wait 0');
      else lines.push('  bulk.wait 0');
      // the consumers meet before the last one signals the epilogue is done
      if (r.consumers > 1 && m !== 'no-bar-sync') lines.push(`  bar.sync 1, ${128 * r.consumers}`);
      if (c === r.consumers - 1) lines.push('  arrive done[0]');
    }
  }
  if (r.epilogue) lines.push('role waiter warps 1:', '  wait done[0], 0');
  return `${lines.join('\n')}\n`;
}
