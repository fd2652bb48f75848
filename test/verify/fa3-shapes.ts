// Two shapes of FlashAttention-3's consumer warpgroups, as programs for fa3-shapes.test.ts.

/** A and B each write n slots, meet at named barrier 1, then read what the other wrote; `early`: B reads one before the barrier (a race). */
export function namedHandoff(n: number, early = false): string {
  const lines = [`buffer s[${n}] bytes 64`, `buffer t[${n}] bytes 64`];
  for (const [me, mine, theirs] of [['A', 's', 't'], ['B', 't', 's']] as const) {
    lines.push('', `role ${me} warps 1:`);
    for (let i = 0; i < n; i++) lines.push(`  write ${mine}[${i}]`);
    if (early && me === 'B') lines.push(`  read ${theirs}[${n - 1}]`);
    lines.push('  bar.sync 1, 96');
    for (let i = 0; i < n; i++) lines.push(`  read ${theirs}[${i}]`);
  }
  // a third party that only arrives (a producer announcing a free buffer): the barrier counts 96 threads
  lines.push('', 'role C warps 1:', '  bar.arrive 1, 96');
  return lines.join('\n') + '\n';
}

/** One warpgroup as two roles (3 warps and 1) issuing n wgmma each on n copied tiles; `uncommitted`: W1 never commits (W0's wait never returns). */
export function splitWarpgroup(n: number, uncommitted = false): string {
  const lines = ['mbarrier full[1] count 1', `buffer t[${n}] bytes 1024`, '', 'warpgroup W0, W1', '', 'role P warps 1:', `  arrive.expect_tx full[0], ${1024 * n}`];
  for (let i = 0; i < n; i++) lines.push(`  tma.load t[${i}] -> full[0], 1024`);
  for (const [w, warps] of [['W0', 3], ['W1', 1]] as const) {
    lines.push('', `role ${w} warps ${warps}:`, '  wait full[0], 0');
    for (let i = 0; i < n; i++) lines.push(`  wgmma.issue t[${i}]`);
    if (!(uncommitted && w === 'W1')) lines.push('  wgmma.commit');
    lines.push('  wgmma.wait 0');
  }
  return lines.join('\n') + '\n';
}

/** A and B, outside any set that holds X, meet at a named barrier; A then reads what X writes unordered (a race): their meeting must be seen as possible. */
export const OUTSIDE_MEETING = ['buffer s[1] bytes 64', '', 'role X warps 1:', '  write s[0]', '', 'role A warps 1:', '  bar.sync 1, 64', '  read s[0]', '', 'role B warps 1:', '  bar.sync 1, 64', ''].join('\n');

/**
 * Five roles meet at named barrier 1 (all five needed) `meetings` times, each writing a slot of its
 * own before every meeting and reading the next role's after the last; `early`: the last role reads
 * the first one's slot before its last meeting (a race). FA3's five consumer roles meet like this
 * at the end of every tile.
 */
export function namedMeeting(meetings: number, early = false): string {
  const names = ['A', 'B', 'C', 'D', 'E'] as const;
  const lines = names.map((r) => `buffer ${r.toLowerCase()}[1] bytes 64`);
  names.forEach((me, i) => {
    const next = names[(i + 1) % names.length]!.toLowerCase();
    lines.push('', `role ${me} warps 1:`);
    for (let k = 0; k < meetings; k++) {
      lines.push(`  write ${me.toLowerCase()}[0]`);
      if (early && me === 'E' && k === meetings - 1) lines.push('  read a[0]');
      lines.push('  bar.sync 1, 160');
    }
    lines.push(`  read ${next}[0]`);
  });
  return lines.join('\n') + '\n';
}

/**
 * P announces two buffers with bar.arrive, C takes them with bar.sync: if P arrives twice before C,
 * its own two arrivals complete the first generation and C waits for good (a deadlock, PTX's
 * "care must be taken" about arriving again before the barrier resets). C's arrival commutes with
 * P's only where P cannot arrive past the generation.
 */
export const TWO_GENERATIONS = ['buffer s[2] bytes 64', '', 'role P warps 1:', '  write s[0]', '  bar.arrive 1, 64', '  write s[1]', '  bar.arrive 1, 64', '', 'role C warps 1:', '  bar.sync 1, 64', '  read s[0]', '  bar.sync 1, 64', '  read s[1]', ''].join('\n');

/**
 * One warpgroup as two roles (3 warps and 1) that each write a buffer of their own, then issue,
 * commit and wait for one wgmma per round, n rounds; `uncommitted`: W1 skips its last commit (W0's
 * last wait never returns).
 */
export function warpgroupRounds(n: number, uncommitted = false): string {
  const lines = ['mbarrier full[1] count 1', `buffer t[${n}] bytes 1024`, 'buffer a[1] bytes 64', 'buffer b[1] bytes 64', '', 'warpgroup W0, W1', '', 'role P warps 1:', `  arrive.expect_tx full[0], ${1024 * n}`];
  for (let i = 0; i < n; i++) lines.push(`  tma.load t[${i}] -> full[0], 1024`);
  for (const [w, warps, buf] of [['W0', 3, 'a'], ['W1', 1, 'b']] as const) {
    lines.push('', `role ${w} warps ${warps}:`, '  wait full[0], 0');
    for (let i = 0; i < n; i++) {
      lines.push(`  write ${buf}[0]`, `  wgmma.issue t[${i}]`);
      if (!(uncommitted && w === 'W1' && i === n - 1)) lines.push('  wgmma.commit');
      lines.push('  wgmma.wait 1');
    }
    lines.push('  wgmma.wait 0');
  }
  return lines.join('\n') + '\n';
}
