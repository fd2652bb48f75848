// Accesses to shared slots (aref buffers and shared-memory buffer slots), with the race and
// FIFO checks every family uses. A race is two accesses to one slot, at least one a write,
// not ordered by happens-before (hb.ts), or an access overlapping an asynchronous one that
// is still in flight (a TMA copy before it lands, a wgmma/TMA-store read before it retires).
import type { Machine } from './machine.ts';
import { NO_VALUE } from './machine.ts';
import { freshEvent, has, isPresent, retireEvent, type Knowledge } from './hb.ts';
import {
  READER_KINDS,
  READ_GENERIC,
  READ_STORE,
  READ_WGMMA,
  fenceEvent,
  readEvent,
  readFenceEvent,
  writeEvent,
  type MachineState,
} from './state.ts';

const READER_NAMES = ['read', 'wgmma read', 'TMA-store read'];

function roleName(m: Machine, r: number): string {
  return m.roles[r]?.name ?? `role${r}`;
}

/** Who is reading `slot` asynchronously right now (issued or committed, not retired). */
function inFlightReader(m: Machine, s: MachineState, slot: number): string | undefined {
  for (let r = 0; r < s.roles.length; r++) {
    const rs = s.roles[r];
    if (!rs) continue;
    if (rs.mmaOpen.includes(slot) || rs.mmaGroups.some((g) => !g.retired && g.slots.includes(slot)))
      return `a wgmma of ${roleName(m, r)} is still reading it (not retired by wgmma.wait)`;
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
 */
export function writeRace(m: Machine, s: MachineState, know: Knowledge, slot: number, what: string, async = false): string | undefined {
  const name = m.slotNames[slot] ?? `slot${slot}`;
  const t = tmaInFlight(s, slot);
  if (t >= 0) return `race on ${name}: ${what} while a TMA copy into it (issued by ${roleName(m, s.tma[t]?.role ?? 0)}) has not landed`;
  const reader = inFlightReader(m, s, slot);
  if (reader) return `race on ${name}: ${what} while ${reader}`;
  const w = writeEvent(m, slot);
  if (isPresent(s, w) && !has(know, w)) return `race on ${name}: ${what} is not ordered after the previous write (write-after-write)`;
  for (let kind = 0; kind < READER_KINDS; kind++) {
    for (let r = 0; r < m.roles.length; r++) {
      const e = readEvent(m, slot, kind, r);
      if (isPresent(s, e) && !has(know, e))
        return `race on ${name}: ${what} is not ordered after the ${READER_NAMES[kind]} by ${roleName(m, r)} (write-after-read)`;
    }
  }
  if (!async) return undefined;
  if (unfencedGenericWrite(m, s, know, slot)) return `race on ${name}: ${what} by the async proxy after a generic write with no fence.proxy.async between them`;
  for (let r = 0; r < m.roles.length; r++) {
    if (!isPresent(s, readEvent(m, slot, READ_GENERIC, r))) continue;
    const f = readFenceEvent(m, slot, r);
    if (!isPresent(s, f) || !has(know, f))
      return `race on ${name}: ${what} by the async proxy after a generic read by ${roleName(m, r)} with no fence.proxy.async between them (cross-proxy write-after-read)`;
  }
  return undefined;
}

/** Race check for a read of `slot`; `async` readers (wgmma, TMA store) also need the proxy fence after a generic write. */
export function readRace(m: Machine, s: MachineState, know: Knowledge, slot: number, what: string, async: boolean): string | undefined {
  const name = m.slotNames[slot] ?? `slot${slot}`;
  const t = tmaInFlight(s, slot);
  if (t >= 0) return `race on ${name}: ${what} while a TMA copy into it (issued by ${roleName(m, s.tma[t]?.role ?? 0)}) has not landed`;
  const w = writeEvent(m, slot);
  if (isPresent(s, w) && !has(know, w)) return `race on ${name}: ${what} is not ordered after the write it may read (read-after-write)`;
  if (async && unfencedGenericWrite(m, s, know, slot))
    return `race on ${name}: ${what} by the async proxy after a generic write with no fence.proxy.async between them`;
  return undefined;
}

/** The slot's last write was generic and no proxy fence after it is known: an async access must not follow it. */
function unfencedGenericWrite(m: Machine, s: MachineState, know: Knowledge, slot: number): boolean {
  return isPresent(s, writeEvent(m, slot)) && s.slotGeneric[slot] === 1 && !knowsAFence(m, s, know, slot);
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
export function doWrite(m: Machine, s: MachineState, slot: number, value: number, generic: boolean, owner: Knowledge): void {
  s.slotValue[slot] = value;
  s.slotGeneric[slot] = generic ? 1 : 0;
  for (let r = 0; r < m.roles.length; r++) retireEvent(s, fenceEvent(m, slot, r));
  for (let kind = 0; kind < READER_KINDS; kind++)
    for (let r = 0; r < m.roles.length; r++) retireEvent(s, readEvent(m, slot, kind, r));
  for (let r = 0; r < m.roles.length; r++) retireEvent(s, readFenceEvent(m, slot, r));
  freshEvent(s, writeEvent(m, slot), owner);
}

export function doRead(m: Machine, s: MachineState, slot: number, kind: typeof READ_GENERIC | typeof READ_WGMMA | typeof READ_STORE, role: number, owner: Knowledge): void {
  // a new generic read needs a new fence before an async write
  if (kind === READ_GENERIC) retireEvent(s, readFenceEvent(m, slot, role));
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
