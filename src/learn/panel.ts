// The state as a learner reads it: σ(a) per aref slot, each barrier's phase/pending/tx and which
// parity a wait passes, slot values and the copies in flight into them, outstanding wgmma groups,
// named barriers, and where each role stands (source line, loop variables, its next operation
// with operands evaluated, and why it cannot move when it cannot). Also the numbered list of
// enabled actions the stepper offers.
import type { ChalkInstance } from 'chalk';
import {
  actorName,
  barrierShort,
  currentOp,
  describeAction,
  describeOp,
  NO_VALUE,
  roleBlockedReason,
  type Action,
  type Machine,
  type MachineState,
} from '../../semantics/index.ts';
import { stepCount } from './ending-text.ts';

export interface PanelOptions {
  /** the program's source text by line, to show the line each role is at */
  readonly sourceLines?: readonly string[];
  readonly c: ChalkInstance;
}

const show = (v: number | undefined): string => (v === undefined || v === NO_VALUE ? '⊥' : String(v));

/** What ⟨_, F, E⟩ means: full (put, not yet got), empty (free for a put), borrowed (got, not yet consumed). */
export function arefStatus(f: number | undefined, e: number | undefined): string {
  if (f === 1 && e === 0) return 'full';
  if (f === 0 && e === 1) return 'empty';
  if (f === 0 && e === 0) return 'borrowed';
  return 'full and empty';
}

/** "phase 1 pending 1/1 tx 0; wait parity 0 passes, parity 1 blocks" */
export function barrierText(s: MachineState, b: number): string {
  const bar = s.barriers[b];
  if (!bar || !bar.valid) return 'uninitialised';
  const passes = 1 - (bar.phase & 1);
  return `${barrierShort(s, b)}; wait parity ${passes} passes, parity ${1 - passes} blocks`;
}

function sourceText(opts: PanelOptions, line: number | undefined): string | undefined {
  if (line === undefined) return undefined;
  const text = opts.sourceLines?.[line - 1]?.trim();
  return text ? `line ${line}: ${text}` : `line ${line}`;
}

function outstandingText(m: Machine, s: MachineState, r: number): string | undefined {
  const rs = s.roles[r];
  if (!rs) return undefined;
  const groups = rs.mmaGroups.filter((g) => !g.retired);
  const parts: string[] = [];
  if (groups.length > 0) parts.push(`${groups.length} group${groups.length === 1 ? '' : 's'} outstanding (reads of ${groups.map((g) => g.slots.map((x) => m.slotNames[x]).join(' ') || 'nothing').join(', ')})`);
  if (rs.mmaOpen.length > 0) parts.push(`issued, not committed: ${rs.mmaOpen.map((x) => m.slotNames[x]).join(', ')}`);
  const stores = rs.storeGroups.filter((g) => !g.retired).length;
  if (stores > 0) parts.push(`${stores} TMA-store group${stores === 1 ? '' : 's'} outstanding`);
  return parts.length > 0 ? parts.join('; ') : undefined;
}

const hasAsyncReads = (m: Machine, r: number): boolean =>
  m.roles[r]?.code.some((i) => i.kind === 'op' && (i.op.kind === 'wgmma.issue' || i.op.kind === 'tma.store')) ?? false;

/** The whole state, one item per line, labels padded to one column. */
export function formatStatePanel(m: Machine, s: MachineState, stepsTaken: number, opts: PanelOptions): string[] {
  const { c } = opts;
  const rows: [string, string][] = [];
  for (let a = 0; a < m.arefSlotCount; a++) {
    rows.push([m.slotNames[a] ?? '', `σ = ⟨${show(s.slotValue[a])}, ${s.arefF[a]}, ${s.arefE[a]}⟩  ${arefStatus(s.arefF[a], s.arefE[a])}`]);
  }
  for (let b = 0; b < m.barrierCount; b++) rows.push([m.barrierNames[b] ?? '', barrierText(s, b)]);
  for (let slot = m.arefSlotCount; slot < m.slotCount; slot++) {
    const flying = s.tma.filter((t) => slot >= t.slot && slot < t.slot + t.span).map((t) => `TMA in flight: value ${show(t.value)}, complete_tx ${t.bytes} on ${m.barrierNames[t.barrier]}`);
    rows.push([m.slotNames[slot] ?? '', [show(s.slotValue[slot]), ...flying].join('; ')]);
  }
  for (let id = 0; id < s.namedCount.length; id++) {
    if ((s.namedCount[id] ?? 0) > 0) rows.push([`bar ${id}`, `${s.namedCount[id]} of ${s.namedThreads[id]} threads in`]);
  }
  // per role: its name and its lines (where it is, what it does next, its async work)
  const roleRows: [string, string[]][] = [];
  for (let r = 0; r < m.roles.length; r++) {
    const name = m.roles[r]?.name ?? `role${r}`;
    const rs = s.roles[r];
    const instr = currentOp(m, s, r);
    const outstanding = outstandingText(m, s, r) ?? (hasAsyncReads(m, r) ? 'no wgmma group outstanding' : undefined);
    const extra = outstanding ? [outstanding] : [];
    if (!instr || !rs) {
      roleRows.push([name, ['finished', ...extra]]);
      continue;
    }
    const vars = m.roles[r]?.varNames.map((v, i) => `${v} = ${rs.vars[i]}`).join(', ') ?? '';
    const where = [sourceText(opts, instr.loc?.line), vars ? `[${vars}]` : undefined].filter((x) => x !== undefined).join('  ');
    const blocked = roleBlockedReason(m, s, r);
    const next = `next: ${describeOp(m, s, r)}${blocked ? ` ${c.yellow(`(cannot move: ${blocked})`)}` : ''}`;
    roleRows.push([name, [...(where ? [where] : []), next, ...extra]]);
  }
  const width = Math.max(0, ...rows.map(([k]) => k.length), ...roleRows.map(([k]) => k.length));
  const lines = [c.bold(`state after ${stepCount(stepsTaken)}:`)];
  for (const [k, v] of rows) lines.push(`  ${k.padEnd(width)}  ${v}`);
  for (const [k, vs] of roleRows) vs.forEach((v, i) => lines.push(`  ${i === 0 ? c.cyan(k.padEnd(width)) : ' '.repeat(width)}  ${v}`));
  if (s.violation) lines.push(c.red(`  ${s.violation.kind}: ${s.violation.message}`));
  return lines;
}

/** Actor column width: every actor name this machine can produce. */
export function actorWidth(m: Machine): number {
  let w = 8;
  m.roles.forEach((role) => {
    const kinds = new Set(role.code.flatMap((i) => (i.kind === 'op' ? [i.op.kind] : [])));
    w = Math.max(w, role.name.length);
    if (kinds.has('tma.load')) w = Math.max(w, `TMA (${role.name})`.length);
    if (kinds.has('wgmma.issue')) w = Math.max(w, `wgmma unit (${role.name})`.length);
    if (kinds.has('tma.store')) w = Math.max(w, `TMA store unit (${role.name})`.length);
  });
  return w;
}

/** "  2  consumer  get A[0] expect 0  (line 16)", then the roles that wait and why. */
export function formatEnabled(m: Machine, s: MachineState, actions: readonly Action[], c: ChalkInstance): string[] {
  const width = actorWidth(m);
  const num = String(actions.length).length;
  const lines = [c.bold('enabled:')];
  actions.forEach((a, i) => {
    const line = a.kind === 'role' ? currentOp(m, s, a.role)?.loc?.line : undefined;
    lines.push(`  ${String(i + 1).padStart(num)}  ${c.cyan(actorName(m, s, a).padEnd(width))}  ${describeAction(m, s, a)}${line === undefined ? '' : c.dim(`  (line ${line})`)}`);
  });
  const waiting: string[] = [];
  for (let r = 0; r < m.roles.length; r++) {
    const reason = roleBlockedReason(m, s, r);
    if (reason === undefined) continue;
    const line = currentOp(m, s, r)?.loc?.line;
    waiting.push(`  ${' '.repeat(num)}  ${c.cyan((m.roles[r]?.name ?? '').padEnd(width))}  ${reason}${line === undefined ? '' : c.dim(`  (line ${line})`)}`);
  }
  if (waiting.length > 0) lines.push(c.bold('waiting:'), ...waiting);
  return lines;
}
