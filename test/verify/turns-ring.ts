// A ring read by two warpgroups that take turns through named barriers, as FlashAttention-3's
// consumer warpgroups do: group A syncs on barrier 1 and then lets B go (bar.arrive 2), B syncs on 2
// and lets A go (bar.arrive 1), 128 threads each time. Each group is two one-warp roles (an elected
// warp that releases the stage, and its partner). Before the loop, A syncs on barrier 1 alone, with
// 64 threads (FA3 syncs a warpgroup on its turn barrier with the warpgroup's own count); B waits for
// that on `go` before its first bar.arrive 1. So one barrier id is used with two thread counts.
// Straight-line, as lifted PTX is.

export interface TurnsRing {
  readonly blocks: number;
  /** 'early-turn': A's last bar.sync 1 names 64 threads (a protocol error once B's arrival is in); 'no-release': B's elected warp never releases stage 0 of its first block (the producer deadlocks) */
  readonly mutation?: 'none' | 'early-turn' | 'no-release';
}

export function turnsRingText({ blocks, mutation = 'none' }: TurnsRing): string {
  const lines = ['mbarrier full[2] count 1', 'mbarrier empty[2] count 2', 'mbarrier go[1] count 1', 'buffer KV[2] bytes 1024', 'warpgroup a0, a1', 'warpgroup b0, b1', ''];
  lines.push('role prod warps 1:');
  for (let j = 0; j < blocks; j++) {
    if (j >= 2) lines.push(`  wait empty[${j % 2}], ${((j >> 1) - 1) & 1}`);
    lines.push(`  arrive.expect_tx full[${j % 2}], 1024`, `  tma.load KV[${j % 2}] -> full[${j % 2}], 1024`);
  }
  for (const group of ['a', 'b'] as const) {
    for (const elected of [true, false]) {
      lines.push('', `role ${group}${elected ? 0 : 1} warps 1:`);
      if (group === 'a') lines.push('  bar.sync 1, 64', ...(elected ? ['  arrive go[0]'] : []));
      else lines.push('  wait go[0], 0', '  bar.arrive 1, 128');
      for (let j = 0; j < blocks; j++) {
        const threads = mutation === 'early-turn' && group === 'a' && j === blocks - 1 ? 64 : 128;
        lines.push(`  wait full[${j % 2}], ${(j >> 1) & 1}`, `  bar.sync ${group === 'a' ? 1 : 2}, ${threads}`, `  wgmma.issue KV[${j % 2}]`, '  wgmma.commit');
        if (group === 'a') lines.push('  bar.arrive 2, 128');
        else if (j < blocks - 1) lines.push('  bar.arrive 1, 128');
        lines.push('  wgmma.wait 0');
        if (elected && !(mutation === 'no-release' && group === 'b' && j === 0)) lines.push(`  arrive empty[${j % 2}]`);
      }
    }
  }
  return lines.join('\n') + '\n';
}
