// The small-step relation: which actions are enabled in a state, and what each one does.
// Roles move one operation at a time (control flow in between is internal and deterministic);
// the async units move on their own: a TMA copy lands, a wgmma or TMA-store group retires.
import type { OpKind } from '../src/ir/program.ts';
import { arefRules } from './aref.ts';
import { asyncRules, canRetire, hasOutstanding, landTma, retireGroup } from './async.ts';
import type { OpCtx, OpInstr, OpRules } from './context.ts';
import type { Instr, Machine } from './machine.ts';
import { mbarrierRules } from './mbarrier.ts';
import { namedRules, staysAtBarrier } from './named.ts';
import { plainRules } from './plain.ts';
import { isPresent } from './hb.ts';
import { allRolesDone, READER_KINDS, readEvent, roleDone, writeEvent, type MachineState } from './state.ts';

export const RULES: Readonly<Record<OpKind, OpRules>> = { ...arefRules, ...mbarrierRules, ...asyncRules, ...namedRules, ...plainRules };

export type Action =
  | { readonly kind: 'role'; readonly role: number }
  /** the TMA copy at position `index` of the in-flight list lands */
  | { readonly kind: 'land'; readonly index: number }
  | { readonly kind: 'retire'; readonly role: number; readonly unit: 'mma' | 'store' };

/** Control steps a role may take between two operations before we call the program degenerate. */
export const SETTLE_LIMIT = 5_000_000;

export class SettleLimitError extends Error {
  override readonly name = 'SettleLimitError';
}

export function currentOp(m: Machine, s: MachineState, r: number): OpInstr | undefined {
  const rs = s.roles[r];
  const instr = rs ? m.roles[r]?.code[rs.pc] : undefined;
  return instr?.kind === 'op' ? instr : undefined;
}

function ctxFor(m: Machine, s: MachineState, r: number): OpCtx | undefined {
  const instr = currentOp(m, s, r);
  return instr ? { m, s, r, instr } : undefined;
}

/** Why role r cannot move now, or undefined when it can (or has finished). */
export function roleBlockedReason(m: Machine, s: MachineState, r: number): string | undefined {
  const ctx = ctxFor(m, s, r);
  return ctx ? RULES[ctx.instr.op.kind].blockedReason(ctx) : undefined;
}

/** Whether role r can move now (the explorer's question: no message is built). */
export function roleCanMove(m: Machine, s: MachineState, r: number): boolean {
  const ctx = ctxFor(m, s, r);
  if (!ctx) return false;
  const rules = RULES[ctx.instr.op.kind];
  return rules.isBlocked ? !rules.isBlocked(ctx) : rules.blockedReason(ctx) === undefined;
}

export function enabledActions(m: Machine, s: MachineState, out: Action[] = []): Action[] {
  if (s.violation) return out;
  for (let r = 0; r < m.roles.length; r++) {
    if (roleCanMove(m, s, r)) out.push({ kind: 'role', role: r });
  }
  for (let i = 0; i < s.tma.length; i++) out.push({ kind: 'land', index: i });
  for (let r = 0; r < s.roles.length; r++) {
    if (canRetire(m, s, r, 'mma')) out.push({ kind: 'retire', role: r, unit: 'mma' });
    if (canRetire(m, s, r, 'store')) out.push({ kind: 'retire', role: r, unit: 'store' });
  }
  return out;
}

/** Apply `a` to `s` in place (callers pass a copy or an immer draft). */
export function executeAction(m: Machine, s: MachineState, a: Action): void {
  if (a.kind === 'land') landTma(m, s, a.index);
  else if (a.kind === 'retire') retireGroup(m, s, a.role, a.unit);
  else {
    const ctx = ctxFor(m, s, a.role);
    const rs = s.roles[a.role];
    if (!ctx || !rs) return;
    RULES[ctx.instr.op.kind].execute(ctx);
    rs.steps += 1;
    if (s.violation || staysAtBarrier(s, a.role)) return;
    if (ctx.instr.op.kind === 'tma.load') s.tma.sort(compareTma);
    rs.pc += 1;
    settle(m, s, a.role);
  }
  if (!s.violation && isFinished(m, s)) checkEnd(m, s);
}

/**
 * What must hold once everything has finished (the first failure is a protocol violation):
 * every aref slot is empty again, ⟨_, 0, 1⟩ (as SPIN's aref.pml asserts): a slot still full lost
 * its value, one still borrowed misses its consumed (in a persistent kernel the next tile would
 * deadlock on it). At the mbarrier level: no barrier is left with bytes outstanding (a copy is
 * missing, or expect_tx is wrong), the last completed phase of a transaction ("full") barrier was waited
 * on, and no data a TMA copy landed is left unread.
 */
function checkEnd(m: Machine, s: MachineState): void {
  const problem = endProblem(m, s);
  if (problem) s.violation = { kind: 'protocol', message: problem, role: 0 };
}

function endProblem(m: Machine, s: MachineState): string | undefined {
  for (let a = 0; a < m.arefSlotCount; a++) {
    const name = m.slotNames[a];
    if (s.arefF[a] === 1) return `at the end ${name} is still full: the value ${s.slotValue[a]} put into it was never taken (lost data)`;
    if (s.arefE[a] === 0) return `at the end ${name} is still borrowed: a consumed is missing (the next use of the ring would block on it)`;
  }
  for (let b = 0; b < m.barrierCount; b++) {
    const bar = s.barriers[b];
    if (!bar?.valid) continue;
    const name = m.barrierNames[b];
    // arrivals alone missing are harmless at exit (nobody waits, else it would have deadlocked:
    // fast.cu's consumers release the last stages to a producer that has finished); bytes are not
    if (bar.tx !== 0) {
      const bytes = bar.tx > 0 ? `${bar.tx} bytes outstanding` : `${-bar.tx} bytes more than expected`;
      return `at the end ${name} is left in the middle of phase ${bar.phase} (${bar.expected - bar.pending} of ${bar.expected} arrivals and ${bytes}): a copy is missing or the expected bytes are wrong`;
    }
    if (m.txBarriers[b] && bar.phase >= 1 && bar.observed === 0)
      return `at the end phase ${bar.phase - 1} of ${name} has completed but no wait observed it: the data it announced was never taken (lost data)`;
  }
  for (let slot = m.arefSlotCount; slot < m.slotCount; slot++) {
    if (s.slotGeneric[slot] === 0 && landedUnread(m, s, slot)) return `at the end ${m.slotNames[slot]} holds data a TMA copy landed that nobody read (lost data)`;
  }
  return undefined;
}

/** The slot's last write (an asynchronous one) has no read after it. */
function landedUnread(m: Machine, s: MachineState, slot: number): boolean {
  if (!isPresent(s, writeEvent(m, slot))) return false;
  for (let kind = 0; kind < READER_KINDS; kind++)
    for (let r = 0; r < m.roles.length; r++) if (isPresent(s, readEvent(m, slot, kind, r))) return false;
  return true;
}

/** In-flight copies are kept sorted so equal sets encode equally whatever the issue order. */
export function compareTma(x: MachineState['tma'][number], y: MachineState['tma'][number]): number {
  return x.slot - y.slot || x.span - y.span || x.barrier - y.barrier || x.value - y.value || x.bytes - y.bytes || x.role - y.role;
}

/**
 * One control instruction (loop, branch, jump) at `pc`: updates the loop variables in place and
 * returns the next pc. Throws an evaluation error of a bound or condition.
 */
export function controlStep(instr: Exclude<Instr, { kind: 'op' }>, vars: number[], pc: number): number {
  switch (instr.kind) {
    case 'loop-init':
      vars[instr.slot] = instr.from(vars);
      return (vars[instr.slot] ?? 0) < instr.to(vars) ? pc + 1 : instr.exit;
    case 'loop-next':
      vars[instr.slot] = (vars[instr.slot] ?? 0) + 1;
      return (vars[instr.slot] ?? 0) < instr.to(vars) ? instr.body : pc + 1;
    case 'branch':
      return instr.cond(vars) !== 0 ? pc + 1 : instr.target;
    case 'jump':
      return instr.target;
  }
}

/** Run role r's control instructions until it reaches an operation or the end. */
export function settle(m: Machine, s: MachineState, r: number): void {
  const rs = s.roles[r];
  const code = m.roles[r]?.code;
  if (!rs || !code) return;
  for (let guard = 0; guard < SETTLE_LIMIT; guard++) {
    const instr = code[rs.pc];
    if (!instr || instr.kind === 'op') return;
    try {
      rs.pc = controlStep(instr, rs.vars, rs.pc);
    } catch (err) {
      s.violation = { kind: 'protocol', message: `${m.roles[r]?.name}: cannot evaluate a loop bound or condition: ${(err as Error).message}`, role: r };
      return;
    }
  }
  throw new SettleLimitError(`${m.roles[r]?.name} ran ${SETTLE_LIMIT} control steps without reaching an operation (loop bounds too large)`);
}

/** Settle every role: the state before any operation. */
export function settleAll(m: Machine, s: MachineState): MachineState {
  for (let r = 0; r < m.roles.length; r++) settle(m, s, r);
  return s;
}

/** Every role finished and no asynchronous work is left. */
export function isFinished(m: Machine, s: MachineState): boolean {
  return !s.violation && allRolesDone(m, s) && s.tma.length === 0 && s.roles.every((rs) => !hasOutstanding(rs, 'mma') && !hasOutstanding(rs, 'store'));
}

/** One line per role that has not finished: what it waits for and why it cannot pass. */
export function blockedReasons(m: Machine, s: MachineState): string[] {
  const lines: string[] = [];
  for (let r = 0; r < m.roles.length; r++) {
    if (roleDone(m, s, r)) continue;
    const instr = currentOp(m, s, r);
    const reason = roleBlockedReason(m, s, r) ?? 'can still move';
    const where = instr?.loc ? ` (line ${instr.loc.line})` : '';
    lines.push(`${m.roles[r]?.name} ${reason}${where}`);
  }
  return lines;
}
