// Accesses to shared slots (aref buffers and shared-memory buffer slots), with the race and
// FIFO checks every family uses. A race is two accesses to one slot, at least one a write,
// not ordered by happens-before (hb.ts), or an access overlapping an asynchronous one that
// is still in flight (a TMA copy before it lands, a wgmma/TMA-store read before it retires).
import type { Machine } from './machine.ts';
import { NO_VALUE } from './machine.ts';
import { freshEvent, has, isPresent, retireEvent, type Knowledge } from './hb.ts';
import {
  READER_KINDS,
  READ_ATOMIC,
  READ_GENERIC,
  READ_STORE,
  READ_WGMMA,
  fenceEvent,
  readEvent,
  readFenceEvent,
  writeEvent,
  type MachineState,
  type RoleState,
} from './state.ts';

const READER_NAMES = ['read', 'wgmma read', 'TMA-store read', 'atomic'];

function roleName(m: Machine, r: number): string {
  return m.roles[r]?.name ?? `role${r}`;
}

/**
 * The wgmma batches role r has begun: its groups not yet retired, and the open one it issues into.
 * The roles of one warpgroup (m.mmaPartners) retire their groups together, so batch j of each is
 * one operation.
 */
export function wgmmaBatches(rs: RoleState): number {
  let n = rs.mmaOpen.length > 0 ? 1 : 0;
  for (const g of rs.mmaGroups) if (!g.retired) n++;
  return n;
}

/**
 * Whether batch j of role r reads yet. A wgmma is one operation of its warpgroup, which starts
 * once all four warps have issued it: batch j of a role split from its warpgroup reads only when
 * every partner has begun batch j (FlashAttention-3 at head dim 64 writes each warp's rows of P
 * to shared memory and then issues the P·V wgmma, with no barrier between the warps).
 */
function batchStarted(m: Machine, s: MachineState, r: number, j: number): boolean {
  const partners = m.mmaPartners[r] ?? [r];
  return partners.length === 1 || partners.every((q) => { const qs = s.roles[q]; return qs !== undefined && wgmmaBatches(qs) > j; });
}

/** Whether one of role r's wgmma batches that reads `slot` reads it now (a writer's own batches always do: it issued them before this write). */
function wgmmaReading(m: Machine, s: MachineState, r: number, rs: RoleState, slot: number, writer: number | undefined): boolean {
  let j = 0;
  for (const g of rs.mmaGroups) {
    if (g.retired) continue;
    if (g.slots.includes(slot) && (r === writer || batchStarted(m, s, r, j))) return true;
    j++;
  }
  return rs.mmaOpen.includes(slot) && (r === writer || batchStarted(m, s, r, j));
}

/** Who is reading `slot` asynchronously right now (issued or committed, not retired), as `writer` (a role, when a role writes) sees it. */
function inFlightReader(m: Machine, s: MachineState, slot: number, writer?: number): string | undefined {
  for (let r = 0; r < s.roles.length; r++) {
    const rs = s.roles[r];
    if (!rs) continue;
    if (wgmmaReading(m, s, r, rs, slot, writer)) return `a wgmma of ${roleName(m, r)} is still reading it (not retired by wgmma.wait)`;
    if (rs.storeOpen.includes(slot) || rs.storeGroups.some((g) => !g.retired && g.slots.includes(slot)))
      return `a TMA store of ${roleName(m, r)} is still reading it (not retired by bulk.wait)`;
  }
  return undefined;
}

function tmaInFlight(s: MachineState, slot: number): number {
  return s.tma.findIndex((t) => slot >= t.slot && slot < t.slot + t.span);
}

/**
 * Race check for a write to `slot` by an agent knowing `know`; the message, or undefined when ordered.
 * An `async` writer (a TMA copy) also needs a proxy fence after each generic access it follows.
 * A generic write of `value` need not be ordered after a previous write of that same value: PTX
 * does not require data-race freedom, and racing stores of the same data leave that data (the
 * lifter tags a store only when it knows every byte it writes: docs/semantics.md).
 * `readerKinds`: the reader classes it must be ordered after (an atomic: all but the atomics).
 */
export function writeRace(m: Machine, s: MachineState, know: Knowledge, slot: number, what: string, async = false, writer?: number, value = NO_VALUE, readerKinds: number = READER_KINDS): string | undefined {
  const name = m.slotNames[slot] ?? `slot${slot}`;
  const t = tmaInFlight(s, slot);
  if (t >= 0) return `race on ${name}: ${what} while a TMA copy into it (issued by ${roleName(m, s.tma[t]?.role ?? 0)}) has not landed`;
  const reader = inFlightReader(m, s, slot, writer);
  if (reader) return `race on ${name}: ${what} while ${reader}`;
  const w = writeEvent(m, slot);
  const sameData = (): boolean => value !== NO_VALUE && s.slotValue[slot] === value && s.slotGeneric[slot] !== 0;
  if (isPresent(s, w) && !has(know, w) && !sameData()) return `race on ${name}: ${what} is not ordered after the previous write (write-after-write)`;
  const readers = readerRace(m, s, know, slot, what, readerKinds);
  if (readers) return readers;
  if (!async) return undefined;
  if (unfencedGenericWrite(m, s, know, slot)) return `race on ${name}: ${what} by the async proxy after a generic write with no fence.proxy.async between them`;
  for (let r = 0; r < m.roles.length; r++) {
    const read = isPresent(s, readEvent(m, slot, READ_GENERIC, r));
    if (!read && !isPresent(s, readEvent(m, slot, READ_ATOMIC, r))) continue;
    const f = readFenceEvent(m, slot, r);
    if (!isPresent(s, f) || !has(know, f))
      return read
        ? `race on ${name}: ${what} by the async proxy after a generic read by ${roleName(m, r)} with no fence.proxy.async between them (cross-proxy write-after-read)`
        : `race on ${name}: ${what} by the async proxy after an atomic by ${roleName(m, r)} with no fence.proxy.async between them (cross-proxy write-after-write)`;
  }
  return undefined;
}

/** The first of the slot's accesses of reader classes below `kinds` that the agent does not know of, as a race message. */
function readerRace(m: Machine, s: MachineState, know: Knowledge, slot: number, what: string, kinds: number): string | undefined {
  for (let kind = 0; kind < kinds; kind++) {
    for (let r = 0; r < m.roles.length; r++) {
      const e = readEvent(m, slot, kind, r);
      if (isPresent(s, e) && !has(know, e))
        return `race on ${m.slotNames[slot] ?? `slot${slot}`}: ${what} is not ordered after the ${READER_NAMES[kind]} by ${roleName(m, r)} (${kind === READ_ATOMIC ? 'write-after-write' : 'write-after-read'})`;
    }
  }
  return undefined;
}

/**
 * Race check for an atomic read-modify-write of `slot` by role `role`: as a write, except that
 * the other roles' atomics need no order (atomics never race with each other). It must be ordered
 * after the slot's last plain write and after every plain and asynchronous read of it.
 */
export function atomicRace(m: Machine, s: MachineState, know: Knowledge, slot: number, what: string, role: number): string | undefined {
  // the reader classes below READ_ATOMIC: every class but the other roles' atomics
  return writeRace(m, s, know, slot, what, false, role, NO_VALUE, READ_ATOMIC);
}

/** Perform an atomic: the role's atomic event, fresh; the slot's data is no longer a known tag. */
export function doAtomic(m: Machine, s: MachineState, slot: number, role: number, owner: Knowledge): void {
  s.slotValue[slot] = NO_VALUE;
  doRead(m, s, slot, READ_ATOMIC, role, owner);
}

/**
 * Race check for a read of `slot`; `async` readers (wgmma, TMA store) also need the proxy fence after
 * a generic write. `partnerOf`: the reader is a wgmma of this role, split from its warpgroup. The
 * operation reads once every partner has issued it, so a partner's write is ordered before the read
 * whenever it came before that partner's own issue — which the in-flight check of the write makes
 * sure of (a partner's write after its own issue is a race there) — and that partner's issue
 * checks the write's proxy fence.
 */
export function readRace(m: Machine, s: MachineState, know: Knowledge, slot: number, what: string, async: boolean, partnerOf?: number): string | undefined {
  const name = m.slotNames[slot] ?? `slot${slot}`;
  const t = tmaInFlight(s, slot);
  if (t >= 0) return `race on ${name}: ${what} while a TMA copy into it (issued by ${roleName(m, s.tma[t]?.role ?? 0)}) has not landed`;
  const w = writeEvent(m, slot);
  const writer = genericWriter(s, slot);
  if (partnerOf !== undefined && writer !== undefined && writer !== partnerOf && isPresent(s, w) && (m.mmaPartners[partnerOf] ?? []).includes(writer)) return undefined;
  if (isPresent(s, w) && !has(know, w)) return `race on ${name}: ${what} is not ordered after the write it may read (read-after-write)`;
  if (async && unfencedGenericWrite(m, s, know, slot))
    return `race on ${name}: ${what} by the async proxy after a generic write with no fence.proxy.async between them`;
  // an atomic is a write the read may see: ordered after it, and fenced before an async read
  for (let r = 0; r < m.roles.length; r++) {
    const e = readEvent(m, slot, READ_ATOMIC, r);
    if (!isPresent(s, e)) continue;
    if (!has(know, e)) return `race on ${name}: ${what} is not ordered after the atomic by ${roleName(m, r)} (read-after-write)`;
    const f = readFenceEvent(m, slot, r);
    if (async && (!isPresent(s, f) || !has(know, f)))
      return `race on ${name}: ${what} by the async proxy after an atomic by ${roleName(m, r)} with no fence.proxy.async between them`;
  }
  return undefined;
}

/** The slot's last write was generic and no proxy fence after it is known: an async access must not follow it. */
function unfencedGenericWrite(m: Machine, s: MachineState, know: Knowledge, slot: number): boolean {
  return isPresent(s, writeEvent(m, slot)) && s.slotGeneric[slot] !== 0 && !knowsAFence(m, s, know, slot);
}

/**
 * slotGeneric: 0 when the slot's last write was a TMA copy's, 1 when it was a generic write,
 * 2 + r when it was a generic write by role r of a warpgroup split into several roles (its
 * partners' wgmma reads need to know who wrote: readRace).
 */
export function genericMark(m: Machine, writer: number): number {
  return (m.mmaPartners[writer] ?? [writer]).length > 1 ? 2 + writer : 1;
}

function genericWriter(s: MachineState, slot: number): number | undefined {
  const g = s.slotGeneric[slot] ?? 0;
  return g >= 2 ? g - 2 : undefined;
}

/** Some role's proxy fence after the slot's last write is HB-before the reader. */
function knowsAFence(m: Machine, s: MachineState, know: Knowledge, slot: number): boolean {
  for (let r = 0; r < m.roles.length; r++) {
    const f = fenceEvent(m, slot, r);
    if (isPresent(s, f) && has(know, f)) return true;
  }
  return false;
}

/** Perform a write: a fresh write event known to `owner`; earlier reads and fences are superseded. */
export function doWrite(m: Machine, s: MachineState, slot: number, value: number, generic: number, owner: Knowledge): void {
  s.slotValue[slot] = value;
  s.slotGeneric[slot] = generic;
  for (let r = 0; r < m.roles.length; r++) retireEvent(s, fenceEvent(m, slot, r));
  for (let kind = 0; kind < READER_KINDS; kind++)
    for (let r = 0; r < m.roles.length; r++) retireEvent(s, readEvent(m, slot, kind, r));
  for (let r = 0; r < m.roles.length; r++) retireEvent(s, readFenceEvent(m, slot, r));
  freshEvent(s, writeEvent(m, slot), owner);
}

export function doRead(m: Machine, s: MachineState, slot: number, kind: typeof READ_GENERIC | typeof READ_WGMMA | typeof READ_STORE | typeof READ_ATOMIC, role: number, owner: Knowledge): void {
  // a new generic access needs a new fence before an async one
  if (kind === READ_GENERIC || kind === READ_ATOMIC) retireEvent(s, readFenceEvent(m, slot, role));
  freshEvent(s, readEvent(m, slot, kind, role), owner);
}

/** FIFO: a read with an expectation must see exactly that value tag. */
export function fifoMismatch(m: Machine, s: MachineState, slot: number, expect: number, what: string): string | undefined {
  if (expect === NO_VALUE) return undefined;
  const got = s.slotValue[slot] ?? NO_VALUE;
  if (got === expect) return undefined;
  const name = m.slotNames[slot] ?? `slot${slot}`;
  const shown = got === NO_VALUE ? 'nothing (never written)' : `value ${got}`;
  return `${what} ${name} expecting value ${expect} but it holds ${shown} (lost, stale, duplicated or reordered data)`;
}
