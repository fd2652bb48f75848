// The refinement monitor of src/verify/refinement.ts in Promela: for an aref program exported at
// the mbarrier level, ghost σ(A[s]) = ⟨buf, F, E⟩ per aref slot, and the observable events the
// lowering defines checked against the aref rules. A premise that fails is a `refinement`
// violation; at the end σ must be empty everywhere (protocol), after the program's own end checks.
//
// | mbarrier-level event                      | aref event  | premise |
// | a TMA copy lands in A_buf[s] with value v | put(A[s],v) | E = 1   |
// | a role passes `wait A_full[s]`            | get(A[s])   | F = 1   |
// | a role executes `arrive A_empty[s]`       | consumed    | F = E = 0 |
import type { Machine } from '../../semantics/index.ts';
import type { Program } from '../ir/program.ts';
import { watchedArefs, type WatchedAref } from '../verify/refinement.ts';
import { VIOLATION_CODES } from './prelude.ts';

/** `s_m` := the monitored slot of element `e` in the ranges `first(w)`, or −1. */
function lookup(ws: readonly WatchedAref[], first: (w: WatchedAref) => number, e: string): string {
  const arms = ws.map((w) => `:: ${e} >= ${first(w)} && ${e} < ${first(w) + w.depth} -> s_m = ${w.monBase} + ${e} - ${first(w)}`);
  return `s_m = -1;\n  if\n  ${arms.join('\n  ')}\n  :: else -> skip\n  fi`;
}

/** Declarations and inlines of the monitor. */
export function refinementMonitor(arefProgram: Program, lowered: Machine): string {
  const ws = watchedArefs(arefProgram, lowered);
  const slots = Math.max(1, ws.reduce((n, w) => n + w.depth, 0));
  return `/* ---- refinement monitor (src/verify/refinement.ts): ghost σ of every aref slot ---- */
#define REFINEMENT ${VIOLATION_CODES.refinement}
#define MON ${slots}
int monBuf[MON] = NOV;
bit monF[MON];
bit monE[MON] = 1;
inline refinePut(sl, val) {
  ${lookup(ws, (w) => w.bufBase, 'sl')};
  if :: s_m >= 0 -> if :: monE[s_m] != 1 -> viol = REFINEMENT :: else -> monBuf[s_m] = val; monF[s_m] = 1; monE[s_m] = 0 fi :: else -> skip fi
}
inline refineGet(b) {
  ${lookup(ws, (w) => w.fullBase, 'b')};
  if :: s_m >= 0 -> if :: monF[s_m] != 1 -> viol = REFINEMENT :: else -> monF[s_m] = 0; monE[s_m] = 0 fi :: else -> skip fi
}
inline refineConsumed(b) {
  ${lookup(ws, (w) => w.emptyBase, 'b')};
  if :: s_m >= 0 -> if :: monF[s_m] != 0 || monE[s_m] != 0 -> viol = REFINEMENT :: else -> monE[s_m] = 1 fi :: else -> skip fi
}
/* at the end σ is empty everywhere, as the aref level demands */
inline refineEnd() {
  s_m = 0;
  do :: s_m < MON -> if :: monF[s_m] == 1 || monE[s_m] == 0 -> viol = PROTOCOL :: else -> skip fi; s_m++ :: else -> break od
}
`;
}
