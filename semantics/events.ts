// Which access events the happens-before state tracks (hb.ts, docs/checker.md "Races"): per slot
// its last write; per role that fences, its proxy fence after a generic write; per role and reader
// class that may read the slot, its last read; per role that may read the slot generically, "a
// fence follows that read". An event no operation of the program can create is never present,
// so it gets no bit: every knowledge bitset shrinks from slots × (1 + 5·roles) bits to the
// events the program can make (a two-CTA lifted kernel: 31 per slot → about 3).
import type { Op, Program } from '../src/ir/program.ts';
import type { ResolvedResource } from './machine.ts';

/**
 * Reader classes per slot: generic read, wgmma, TMA store, and generic atomic (a read-modify-write:
 * kept per role like a read, so that atomics need no order among themselves while a plain access
 * must be ordered after every one of them).
 */
export const READER_KINDS = 4;
export const READ_GENERIC = 0;
export const READ_WGMMA = 1;
export const READ_STORE = 2;
export const READ_ATOMIC = 3;

/** An event id no operation of the program can create: never present, known to nobody. */
export const UNTRACKED = -1;

export interface EventTable {
  /** tracked slot events; phase-knowledge bits follow them */
  readonly count: number;
  /** per slot */
  readonly write: Int32Array;
  /** per slot × role */
  readonly fence: Int32Array;
  /** per (slot × READER_KINDS + kind) × role */
  readonly read: Int32Array;
  /** per slot × role */
  readonly readFence: Int32Array;
}

/** What each role's ops may do to slots (every element of a resource when the index is not a constant). */
interface Uses {
  readonly reads: Set<number>[][]; // [role][kind] → slots
  readonly genericWrites: Set<number>;
  readonly fencers: Set<number>;
}

function readKind(op: Op): number | undefined {
  switch (op.kind) {
    case 'read':
    case 'get':
      return READ_GENERIC;
    case 'wgmma.issue':
      return READ_WGMMA;
    case 'tma.store':
      return READ_STORE;
    case 'atomic':
      return READ_ATOMIC;
    default:
      return undefined;
  }
}

function collectUses(program: Program, resources: ReadonlyMap<string, ResolvedResource>, slotOf: (res: ResolvedResource, i: number) => number): Uses {
  const uses: Uses = { reads: program.roles.map(() => [new Set(), new Set(), new Set(), new Set()]), genericWrites: new Set(), fencers: new Set() };
  const elements = (op: Op): number[] => {
    if (!('target' in op)) return [];
    const res = resources.get(op.target.name);
    if (!res || res.space === 'barrier') return [];
    const e = op.target.index;
    const all = Array.from({ length: res.size }, (_, i) => i);
    const at = e.kind === 'num' && Number.isInteger(e.value) && e.value >= 0 && e.value < res.size ? [e.value] : all;
    return at.map((i) => slotOf(res, i));
  };
  program.roles.forEach((role, r) => {
    const visit = (stmts: Program['roles'][number]['body']): void => {
      for (const s of stmts) {
        if (s.kind === 'for') visit(s.body);
        else if (s.kind === 'if') {
          visit(s.then);
          visit(s.else);
        } else {
          const kind = readKind(s.op);
          if (kind !== undefined) for (const x of elements(s.op)) uses.reads[r]?.[kind]?.add(x);
          if (s.op.kind === 'write') for (const x of elements(s.op)) uses.genericWrites.add(x);
          if (s.op.kind === 'fence.proxy.async') uses.fencers.add(r);
        }
      }
    };
    visit(role.body);
  });
  return uses;
}

export function trackEvents(program: Program, resources: ReadonlyMap<string, ResolvedResource>, slotCount: number, slotOf: (res: ResolvedResource, i: number) => number): EventTable {
  const R = program.roles.length;
  const uses = collectUses(program, resources, slotOf);
  const write = new Int32Array(slotCount).fill(UNTRACKED);
  const fence = new Int32Array(slotCount * R).fill(UNTRACKED);
  const read = new Int32Array(slotCount * READER_KINDS * R).fill(UNTRACKED);
  const readFence = new Int32Array(slotCount * R).fill(UNTRACKED);
  let next = 0;
  for (let x = 0; x < slotCount; x++) {
    write[x] = next++;
    for (let r = 0; r < R; r++) if (uses.fencers.has(r) && uses.genericWrites.has(x)) fence[x * R + r] = next++;
    for (let kind = 0; kind < READER_KINDS; kind++)
      for (let r = 0; r < R; r++) if (uses.reads[r]?.[kind]?.has(x)) read[(x * READER_KINDS + kind) * R + r] = next++;
    // "a fence follows r's last generic access" (a read or an atomic) of the slot
    for (let r = 0; r < R; r++) if (uses.fencers.size > 0 && (uses.reads[r]?.[READ_GENERIC]?.has(x) || uses.reads[r]?.[READ_ATOMIC]?.has(x))) readFence[x * R + r] = next++;
  }
  return { count: next, write, fence, read, readFence };
}
