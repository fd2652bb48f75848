// Symmetry between roles. Two roles that run the same code on the same resources (cooperative
// consumers, identical warps lifted from PTX) are interchangeable: exchanging them in a state —
// their positions, variables and tokens, their async work, which copies they issued, and every
// happens-before bit that names one of them — gives a state that is reachable exactly when the
// first is, with the same violations and the same deadlock verdict, since no rule reads a role's
// index except to find that role's own data. The explorer stores one state per orbit
// (checker/model.ts `canonical`); counterexamples are made concrete again (checker/trace.ts).
import { READER_KINDS } from './events.ts';
import type { Machine } from './machine.ts';
import type { StatePacker } from './pack.ts';
import type { AsyncGroup, MachineState } from './state.ts';
import type { Knowledge } from './bits.ts';
import { ROLE_VARS, TMA_BARRIER, TMA_BYTES, TMA_ROLE, TMA_SLOT, TMA_SPAN, TMA_VALUE, TMA_WORDS, type StateLayout } from './layout.ts';
import { compareTma } from './step.ts';
import type { Stmt } from '../src/ir/program.ts';

/**
 * Tie orderings tried per state at most (three roles in one tie give 6): past it, ties keep their
 * order. With the signatures few ties are left: 24 gave the same states as 6 on cooperative
 * C = 4..7 and cost more time.
 */
const MAX_TIE_ORDERINGS = 6;

export interface RoleSymmetry {
  /** the classes of interchangeable roles, each of two or more, in role order */
  readonly classes: readonly (readonly number[])[];
  /** A member of the state's orbit: usually the same one for every member (ties past MAX_TIE_ORDERINGS may differ). */
  canonical(words: Int32Array): Int32Array;
  /** Some exchange of interchangeable roles turns a into b (a violation's message aside). */
  sameOrbit(a: Int32Array, b: Int32Array): boolean;
}

/** The role classes of a machine, or undefined when no two roles are interchangeable. */
export function roleSymmetry(m: Machine, packer: StatePacker): RoleSymmetry | undefined {
  const classes = interchangeable(m);
  if (classes.length === 0) return undefined;
  return new Canonicalizer(m, packer, classes);
}

/** A role's code with its source positions left out: two roles written at different lines may be the same code. */
function codeKey(body: readonly Stmt[]): string {
  return JSON.stringify(body, (key, value: unknown) => (key === 'loc' ? undefined : value));
}

function interchangeable(m: Machine): number[][] {
  if (m.symbolic !== undefined) return []; // the every-K model keeps its own canonical form
  const byCode = new Map<string, number[]>();
  m.program.roles.forEach((role, r) => {
    // a role sharing a warpgroup with another retires wgmma with it: its partner names it
    if ((m.mmaPartners[r] ?? [r]).length !== 1) return;
    const key = `${role.warps}|${codeKey(role.body)}`;
    byCode.set(key, [...(byCode.get(key) ?? []), r]);
  });
  return [...byCode.values()].filter((c) => c.length > 1 && c.every((r) => eventsAlike(m, c[0]!, r)));
}

/** Roles r and q have the same tracked events on every slot (events.ts drops those nothing can create). */
function eventsAlike(m: Machine, r: number, q: number): boolean {
  const R = m.roles.length;
  const { fence, read, readFence } = m.events;
  for (let x = 0; x < m.slotCount; x++) {
    if ((fence[x * R + r]! < 0) !== (fence[x * R + q]! < 0)) return false;
    if ((readFence[x * R + r]! < 0) !== (readFence[x * R + q]! < 0)) return false;
    for (let k = 0; k < READER_KINDS; k++) if ((read[(x * READER_KINDS + k) * R + r]! < 0) !== (read[(x * READER_KINDS + k) * R + q]! < 0)) return false;
  }
  return true;
}

class Canonicalizer implements RoleSymmetry {
  readonly classes: readonly (readonly number[])[];
  private readonly m: Machine;
  private readonly packer: StatePacker;
  /** words of each role's fixed block (pc, steps, named-barrier state, variables, tokens) */
  private readonly blockWords: Int32Array;

  constructor(m: Machine, packer: StatePacker, classes: number[][]) {
    this.m = m;
    this.packer = packer;
    this.classes = classes;
    const L = packer.layout;
    this.blockWords = Int32Array.from(m.roles, (_, r) => ROLE_VARS + L.varCount[r]! + L.tokenCount[r]!);
  }

  canonical(words: Int32Array): Int32Array {
    const { perm, ties, moved } = this.order(words);
    let orderings = 1;
    for (const t of ties) orderings *= factorial(t.length);
    // past the cap, ties keep their order: still a member of the orbit (sound), maybe not the same for all
    if (ties.length === 0 || orderings > MAX_TIE_ORDERINGS) return this.withoutMessage(moved ? this.permuted(words, perm) : words);
    // every ordering of the tied positions, the least words win: the same for every member of the orbit
    let best: Int32Array | undefined;
    for (const extra of tieOrderings(ties, this.m.roles.length)) {
      const full = Int32Array.from(perm, (to) => extra[to]!);
      const candidate = this.withoutMessage(isIdentity(full) ? words : this.permuted(words, full));
      if (best === undefined || lexLess(candidate, best)) best = candidate;
    }
    return best!;
  }

  /**
   * True when some exchange of interchangeable roles turns state a into state b (messages aside).
   * Counterexamples need it where `canonical` kept a tie's order: the roles of b's positions are
   * matched by their signatures, and each matching that remains is tried.
   */
  sameOrbit(a: Int32Array, b: Int32Array): boolean {
    const target = this.withoutMessage(b);
    const sa = this.packer.decode(a);
    const sb = this.packer.decode(b);
    const options: number[][] = []; // per position of b (in role order), the roles of a that may go there
    for (let p = 0; p < this.m.roles.length; p++) options.push([p]);
    for (const cls of this.classes) {
      for (const p of cls) options[p] = cls.filter((r) => this.compareBlocksAcross(a, r, b, p) === 0 && signature(sa, r) === signature(sb, p));
    }
    const perm = new Int32Array(this.m.roles.length).fill(-1);
    const used = new Set<number>();
    const search = (p: number): boolean => {
      if (p === options.length) return equalWords(this.withoutMessage(isIdentity(perm) ? a : this.permuted(a, perm)), target);
      for (const r of options[p]!) {
        if (used.has(r)) continue;
        used.add(r);
        perm[r] = p;
        if (search(p + 1)) return true;
        used.delete(r);
      }
      return false;
    };
    return search(0);
  }

  /**
   * A violation's message names the role that made it, so exchanged states would keep apart by
   * their messages alone: the representative keeps the kind and the (renamed) role, and message 0.
   * A violating state is never expanded, and its message is made again on the run a trace replays.
   */
  private withoutMessage(words: Int32Array): Int32Array {
    const at = this.packer.layout.violation;
    if (words[at] === 0 || words[at + 1] === 0) return words;
    const out = words.slice();
    out[at + 1] = 0;
    return out;
  }

  /**
   * Each class ordered by the roles' fixed blocks, then, among equal blocks, by their signatures
   * (read from the tail only then). Both are unchanged by an exchange of roles, so every member of
   * the orbit gets the same order up to the ties left, which `canonical` settles on whole states.
   */
  private order(words: Int32Array): { perm: Int32Array; ties: number[][]; moved: boolean } {
    const perm = Int32Array.from(this.m.roles, (_, r) => r); // old role → new role
    const ties: number[][] = [];
    let moved = false;
    let sigs: string[] | undefined;
    const sig = (r: number): string => (sigs ??= wordSignatures(this.packer.layout, words))[r]!;
    const compare = (a: number, b: number): number => {
      const d = this.compareBlocks(words, a, b);
      if (d !== 0) return d;
      const sa = sig(a);
      const sb = sig(b);
      return sa < sb ? -1 : sa > sb ? 1 : 0;
    };
    for (const cls of this.classes) {
      const sorted = [...cls].sort((a, b) => compare(a, b) || a - b);
      sorted.forEach((old, i) => {
        perm[old] = cls[i]!;
        if (old !== cls[i]) moved = true;
      });
      for (let i = 0; i < sorted.length; ) {
        let j = i + 1;
        while (j < sorted.length && compare(sorted[i]!, sorted[j]!) === 0) j++;
        if (j - i > 1) ties.push(cls.slice(i, j)); // the new positions that tie
        i = j;
      }
    }
    return { perm, ties, moved };
  }

  private compareBlocks(words: Int32Array, a: number, b: number): number {
    return this.compareBlocksAcross(words, a, words, b);
  }

  private compareBlocksAcross(x: Int32Array, a: number, y: Int32Array, b: number): number {
    const L = this.packer.layout;
    const n = this.blockWords[a]!;
    const pa = L.role[a]!;
    const pb = L.role[b]!;
    for (let i = 0; i < n; i++) {
      const d = x[pa + i]! - y[pb + i]!;
      if (d !== 0) return d;
    }
    return 0;
  }

  /** The state with every role r renamed perm[r], on its words (permuteRoles is the readable rule it follows). */
  private permuted(words: Int32Array, perm: Int32Array): Int32Array {
    return permuteWords(this.m, this.packer.layout, words, perm);
  }
}

/**
 * What a role's async work looks like, without naming any role or event: the slots of its open
 * and committed wgmma and store groups, and the copies it has in flight. An exchange of roles
 * moves it with the role.
 */
function signature(s: MachineState, r: number): string {
  const role = s.roles[r]!;
  const groups = (gs: readonly AsyncGroup[]): string => gs.map((g) => `${g.slots.join('.')}${g.retired ? 'r' : ''}`).join('/');
  const copies = s.tma.filter((t) => t.role === r).map((t) => `${t.slot}.${t.span}.${t.barrier}.${t.bytes}.${t.value}`);
  return `${role.mmaOpen.join('.')}|${groups(role.mmaGroups)}|${role.storeOpen.join('.')}|${groups(role.storeGroups)}|${copies.join('/')}`;
}

/**
 * Where the tail's parts lie: the copies in flight (count, then TMA_WORDS each), then per role its
 * open wgmma list, wgmma groups, open store list and store groups ([n, items…] and [n, groups…]
 * with a group [n, slots…, retired, know (W words)]), as pack.ts writes them.
 */
function tailParts(L: StateLayout, w: Int32Array): { copies: number; roleStart: Int32Array; roleEnd: Int32Array } {
  const R = L.roleCount;
  const roleStart = new Int32Array(R);
  const roleEnd = new Int32Array(R);
  let p = L.fixedWords;
  const copies = w[p]!;
  p += 1 + TMA_WORDS * copies;
  const list = (): void => void (p += 1 + w[p]!);
  const groups = (): void => {
    const n = w[p++]!;
    for (let g = 0; g < n; g++) p += 1 + w[p]! + 1 + L.W;
  };
  for (let r = 0; r < R; r++) {
    roleStart[r] = p;
    list();
    groups();
    list();
    groups();
    roleEnd[r] = p;
  }
  return { copies, roleStart, roleEnd };
}

/** Each role's signature (see `signature`) read from the words: its tail part without knowledge, and its copies in flight. */
function wordSignatures(L: StateLayout, w: Int32Array): string[] {
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
  const copy = Array.from({ length: copies }, (_, c) => {
    const at = L.fixedWords + 1 + TMA_WORDS * c;
    const x = Array.from(w.subarray(at, at + TMA_WORDS));
    x[TMA_ROLE] = perm[x[TMA_ROLE]!]!;
    return x;
  });
  copy.sort((a, b) => a[TMA_SLOT]! - b[TMA_SLOT]! || a[TMA_SPAN]! - b[TMA_SPAN]! || a[TMA_BARRIER]! - b[TMA_BARRIER]! || a[TMA_VALUE]! - b[TMA_VALUE]! || a[TMA_BYTES]! - b[TMA_BYTES]! || a[TMA_ROLE]! - b[TMA_ROLE]!);
  copy.forEach((x, c) => out.set(x, L.fixedWords + 1 + TMA_WORDS * c));
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

function equalWords(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The readable state with role r renamed perm[r] everywhere, happens-before bits included. */
export function permuteRoles(m: Machine, s: MachineState, perm: Int32Array): MachineState {
  const events = eventPermutation(m, perm);
  const bits = (k: Knowledge): Knowledge => permuteBits(k, events);
  const group = (g: AsyncGroup): AsyncGroup => ({ slots: g.slots.slice(), retired: g.retired, know: bits(g.know) });
  const roles = s.roles.slice();
  const hbRoles = s.hb.roles.slice();
  s.roles.forEach((r, old) => {
    roles[perm[old]!] = { ...r, vars: r.vars.slice(), tokens: r.tokens.slice(), mmaOpen: r.mmaOpen.slice(), storeOpen: r.storeOpen.slice(), mmaGroups: r.mmaGroups.map(group), storeGroups: r.storeGroups.map(group) };
    hbRoles[perm[old]!] = bits(s.hb.roles[old]!);
  });
  const out: MachineState = {
    ...s,
    roles,
    arefF: s.arefF.slice(),
    arefE: s.arefE.slice(),
    slotValue: s.slotValue.slice(),
    slotGeneric: s.slotGeneric.slice(),
    barriers: s.barriers.map((b) => ({ ...b })),
    namedCount: s.namedCount.slice(),
    namedThreads: s.namedThreads.slice(),
    // the copies in flight stay in the semantics' order, which ends on the issuing role
    tma: s.tma.map((t) => ({ ...t, role: perm[t.role]! })).sort(compareTma),
    hb: {
      present: bits(s.hb.present),
      roles: hbRoles,
      barPending: s.hb.barPending.map(bits),
      barDone: s.hb.barDone.map(bits),
      arefSlot: s.hb.arefSlot.map(bits),
      named: s.hb.named.map((k) => (k.length === 0 ? k : bits(k))),
    },
  };
  if (s.violation) out.violation = { ...s.violation, role: perm[s.violation.role] ?? s.violation.role };
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
  for (const table of [fence, readFence]) {
    for (let i = 0; i < table.length; i++) {
      const e = table[i]!;
      if (e >= 0) map[e] = table[i - (i % R) + perm[i % R]!]!; // entry (x, r) → (x, perm[r])
    }
  }
  // read: (slot × READER_KINDS + kind) × R + role, so the role is again the index mod R
  for (let i = 0; i < read.length; i++) {
    const e = read[i]!;
    if (e >= 0) map[e] = read[i - (i % R) + perm[i % R]!]!;
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

const factorial = (n: number): number => (n <= 1 ? 1 : n * factorial(n - 1));

/** Every renaming of roles that only reorders each tie's positions among themselves (role count entries, identity elsewhere). */
function tieOrderings(ties: readonly (readonly number[])[], roles: number): Int32Array[] {
  let out: Int32Array[] = [Int32Array.from({ length: roles }, (_, r) => r)];
  for (const tie of ties) {
    const next: Int32Array[] = [];
    for (const base of out) {
      for (const order of permutationsOf(tie)) {
        const p = base.slice();
        tie.forEach((pos, i) => (p[pos] = order[i]!));
        next.push(p);
      }
    }
    out = next;
  }
  return out;
}

function permutationsOf(xs: readonly number[]): number[][] {
  if (xs.length <= 1) return [xs.slice()];
  return xs.flatMap((x, i) => permutationsOf([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]));
}

const isIdentity = (p: Int32Array): boolean => p.every((to, r) => to === r);

function lexLess(a: Int32Array, b: Int32Array): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return a.length < b.length;
}
