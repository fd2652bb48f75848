// wgmma.mma_async is one operation of a warpgroup's 4 warps. When those warps lift to different
// roles (warp 0 also issues the TMA copies, as in fast.cu's M2 and M3), each role would retire
// its wgmma groups alone, and warp 0 could pass its wgmma.wait_group before warps 1–3 even issued
// theirs. Such roles form a `warpgroup` of the Program: their groups retire together.
import type { Stmt } from '../../ir/program.ts';
import type { FoldedRole } from './fold.ts';

function issuesWgmma(stmts: readonly Stmt[]): boolean {
  return stmts.some((s) => (s.kind === 'op' ? s.op.kind === 'wgmma.issue' : s.kind === 'for' ? issuesWgmma(s.body) : issuesWgmma(s.then) || issuesWgmma(s.else)));
}

/**
 * The warpgroups to declare: for each warpgroup of a CTA whose wgmma-issuing warps lie in two or
 * more roles, those roles — when none of them also holds warps of another warpgroup (a role
 * folded across warpgroups would tie two warpgroups' operations together: left per role, an
 * over-approximation). `names[i]` is the final name of `folded[i]`.
 */
export function warpgroupsOf(folded: readonly FoldedRole[], names: readonly string[], warpsPerCta: number, ctaOf: (warp: number) => number): string[][] {
  const groupOf = (w: number): string => `${ctaOf(w)}:${Math.floor((w % warpsPerCta) / 4)}`;
  const members = new Map<string, number[]>();
  folded.forEach((f, i) => {
    if (!issuesWgmma(f.role.body)) return;
    for (const g of new Set(f.warps.map(groupOf))) members.set(g, [...(members.get(g) ?? []), i]);
  });
  const out: string[][] = [];
  for (const roles of members.values()) {
    if (roles.length < 2) continue;
    const single = roles.every((i) => new Set((folded[i]?.warps ?? []).map(groupOf)).size === 1);
    if (single) out.push(roles.map((i) => names[i] ?? ''));
  }
  return out;
}
