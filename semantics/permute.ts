// Renaming roles in a state, for symmetry reduction (symmetry.ts): the readable rule
// (`permuteRoles`) and the same on packed words (`permuteWords`, tested equal to it), with the
// signatures that tell roles apart without naming a role or an event.
import type { Machine } from './machine.ts';
import { cloneState, type MachineState } from './state.ts';
import type { Knowledge } from './bits.ts';
import { indexTail, ROLE_VARS, TMA_BARRIER, TMA_BYTES, TMA_ROLE, TMA_SLOT, TMA_SPAN, TMA_VALUE, TMA_WORDS, type StateLayout } from './layout.ts';
import { compareTma } from './step.ts';

/** Where the tail's parts lie: the copies in flight (count, then TMA_WORDS each), then each role's lists (layout.ts indexTail). */
function tailParts(L: StateLayout, w: Int32Array): { copies: number; roleStart: Int32Array; roleEnd: Int32Array } {
  const R = L.roleCount;
  const open = new Int32Array(2 * R);
  const end = indexTail(L, w, open, new Int32Array(2 * R));
  const roleStart = new Int32Array(R);
  const roleEnd = new Int32Array(R);
  for (let r = 0; r < R; r++) {
    roleStart[r] = open[2 * r]!;
    roleEnd[r] = r + 1 < R ? open[2 * r + 2]! : end;
  }
  return { copies: w[L.fixedWords]!, roleStart, roleEnd };
}

/**
 * What each role's async work looks like, without naming any role or event: its open and
 * committed wgmma and store groups without their knowledge, and the copies it has in flight. An
 * exchange of roles moves it with the role.
 */
export function wordSignatures(L: StateLayout, w: Int32Array): string[] {
  const { copies, roleStart, roleEnd } = tailParts(L, w);
  const out: string[] = [];
  for (let r = 0; r < L.roleCount; r++) {
    const parts: number[] = [];
    let p = roleStart[r]!;
    for (let unit = 0; unit < 2; unit++) {
      const open = w[p]!;
      for (let i = 0; i <= open; i++) parts.push(w[p + i]!);
      p += 1 + open;
      const n = w[p++]!;
      parts.push(n);
      for (let g = 0; g < n; g++) {
        const k = w[p]!;
        for (let i = 0; i <= k + 1; i++) parts.push(w[p + i]!); // the slots and `retired`, not the knowledge
        p += 1 + k + 1 + L.W;
      }
    }
    if (p !== roleEnd[r]) throw new Error('internal: the tail of a packed state is not as pack.ts writes it');
    for (let c = 0; c < copies; c++) {
      const at = L.fixedWords + 1 + TMA_WORDS * c;
      if (w[at + TMA_ROLE] === r) parts.push(-1, w[at + TMA_SLOT]!, w[at + TMA_SPAN]!, w[at + TMA_BARRIER]!, w[at + TMA_BYTES]!, w[at + TMA_VALUE]!);
    }
    out.push(parts.join(','));
  }
  return out;
}

/**
 * permuteRoles on packed words: the roles' fixed blocks and their knowledge holders move, every
 * knowledge word has its role events renamed, copies keep the semantics' order (step.ts
 * compareTma), and each role's tail part moves with it. Tested equal to pack(permuteRoles(unpack)).
 */
export function permuteWords(m: Machine, L: StateLayout, w: Int32Array, perm: Int32Array): Int32Array {
  const events = eventPermutation(m, perm);
  const out = w.slice();
  const R = L.roleCount;
  const bitsInto = (from: number, to: number): void => {
    for (let i = 0; i < L.W; i++) out[to + i] = 0;
    for (let i = 0; i < L.W; i++) {
      let word = w[from + i]! >>> 0;
      while (word !== 0) {
        const low = word & -word;
        const e = i * 32 + (31 - Math.clz32(low));
        const moved = e < events.length ? events[e]! : e;
        out[to + (moved >>> 5)] = out[to + (moved >>> 5)]! | (1 << (moved & 31));
        word = (word ^ low) >>> 0;
      }
    }
  };
  for (let r = 0; r < R; r++) {
    const to = perm[r]!;
    const n = ROLE_VARS + L.varCount[r]! + L.tokenCount[r]!;
    for (let i = 0; i < n; i++) out[L.role[to]! + i] = w[L.role[r]! + i]!;
  }
  // knowledge holders of the fixed part: present, then per role, then the sync objects
  bitsInto(L.present, L.present);
  for (let r = 0; r < R; r++) bitsInto(L.hbRoles + L.W * r, L.hbRoles + L.W * perm[r]!);
  for (let h = L.hbRoles + L.W * R; h < L.fixedWords; h += L.W) bitsInto(h, h);
  if (w[L.violation] !== 0) out[L.violation + 2] = perm[w[L.violation + 2]!] ?? w[L.violation + 2]!;
  // copies in flight: renamed, then in compareTma's order (slot, span, barrier, value, bytes, role);
  // the order moves only for two copies that differ in their issuer alone, which would land in one
  // slot at once (a race the second issue reports), but the list must stay sorted whatever comes
  const { copies, roleStart, roleEnd } = tailParts(L, w);
  const flights = Array.from({ length: copies }, (_, c) => {
    const at = L.fixedWords + 1 + TMA_WORDS * c;
    return { slot: w[at + TMA_SLOT]!, span: w[at + TMA_SPAN]!, barrier: w[at + TMA_BARRIER]!, bytes: w[at + TMA_BYTES]!, value: w[at + TMA_VALUE]!, role: perm[w[at + TMA_ROLE]!]! };
  });
  flights.sort(compareTma);
  flights.forEach((t, c) => {
    const at = L.fixedWords + 1 + TMA_WORDS * c;
    out[at + TMA_SLOT] = t.slot;
    out[at + TMA_SPAN] = t.span;
    out[at + TMA_BARRIER] = t.barrier;
    out[at + TMA_BYTES] = t.bytes;
    out[at + TMA_VALUE] = t.value;
    out[at + TMA_ROLE] = t.role;
  });
  // role tails in the new order, each group's knowledge renamed
  const inverse = new Int32Array(R);
  for (let r = 0; r < R; r++) inverse[perm[r]!] = r;
  let p = roleStart[0] ?? L.fixedWords + 1 + TMA_WORDS * copies;
  for (let to = 0; to < R; to++) {
    const r = inverse[to]!;
    let q = roleStart[r]!;
    const start = p;
    for (let unit = 0; unit < 2; unit++) {
      const open = w[q]!;
      out.set(w.subarray(q, q + 1 + open), p);
      p += 1 + open;
      q += 1 + open;
      const n = w[q]!;
      out[p++] = n;
      q++;
      for (let g = 0; g < n; g++) {
        const k = w[q]!;
        out.set(w.subarray(q, q + k + 2), p);
        bitsInto(q + k + 2, p + k + 2);
        p += k + 2 + L.W;
        q += k + 2 + L.W;
      }
    }
    if (q !== roleEnd[r] || p - start !== roleEnd[r]! - roleStart[r]!) throw new Error('internal: a role tail moved with another length');
  }
  return out;
}

/** The readable state with role r renamed perm[r] everywhere, happens-before bits included. */
export function permuteRoles(m: Machine, s: MachineState, perm: Int32Array): MachineState {
  const events = eventPermutation(m, perm);
  const bits = (k: Knowledge): Knowledge => permuteBits(k, events);
  const out = cloneState(s);
  const roles = out.roles.slice();
  const hbRoles = out.hb.roles.slice();
  out.roles.forEach((r, old) => {
    for (const g of [...r.mmaGroups, ...r.storeGroups]) g.know = bits(g.know);
    roles[perm[old]!] = r;
    hbRoles[perm[old]!] = bits(out.hb.roles[old]!);
  });
  out.roles = roles;
  const hb = out.hb;
  hb.roles = hbRoles;
  hb.present = bits(hb.present);
  hb.barPending = hb.barPending.map(bits);
  hb.barDone = hb.barDone.map(bits);
  hb.arefSlot = hb.arefSlot.map(bits);
  hb.named = hb.named.map((k) => (k.length === 0 ? k : bits(k)));
  // the copies in flight stay in the semantics' order, which ends on the issuing role
  for (const t of out.tma) t.role = perm[t.role]!;
  out.tma.sort(compareTma);
  if (out.violation) out.violation.role = perm[out.violation.role] ?? out.violation.role;
  return out;
}

/** Event id → its id once roles are renamed: a role's fence and read events move with it; slot writes and phase bits stay. */
function eventPermutation(m: Machine, perm: Int32Array): Int32Array {
  const cacheKey = perm.join(',');
  let cache = eventMaps.get(m);
  if (cache === undefined) eventMaps.set(m, (cache = new Map()));
  const known = cache.get(cacheKey);
  if (known !== undefined) return known;
  const R = m.roles.length;
  const map = Int32Array.from({ length: m.events.count }, (_, e) => e);
  const { fence, read, readFence } = m.events;
  // every table is indexed (…) × R + role: entry (x, r) is renamed (x, perm[r])
  for (const table of [fence, readFence, read]) {
    for (let i = 0; i < table.length; i++) {
      const e = table[i]!;
      if (e >= 0) map[e] = table[i - (i % R) + perm[i % R]!]!;
    }
  }
  cache.set(cacheKey, map);
  return map;
}
/** per machine, the event maps of the renamings met so far (a class of C roles has at most C! of them) */
const eventMaps = new WeakMap<Machine, Map<string, Int32Array>>();

function permuteBits(k: Knowledge, events: Int32Array): Knowledge {
  const out = new Array<number>(k.length).fill(0);
  for (let w = 0; w < k.length; w++) {
    let word = k[w]! >>> 0;
    while (word !== 0) {
      const low = word & -word;
      const bit = 31 - Math.clz32(low);
      const e = w * 32 + bit;
      const to = e < events.length ? events[e]! : e;
      out[to >>> 5] = (out[to >>> 5]! | (1 << (to & 31))) >>> 0;
      word = (word ^ low) >>> 0;
    }
  }
  return out;
}
