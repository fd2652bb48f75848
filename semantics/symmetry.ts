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
import { ROLE_VARS } from './layout.ts';
import { permuteWords, wordSignatures } from './permute.ts';
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
    const sa = wordSignatures(this.packer.layout, a);
    const sb = wordSignatures(this.packer.layout, b);
    const options: number[][] = []; // per position of b (in role order), the roles of a that may go there
    for (let p = 0; p < this.m.roles.length; p++) options.push([p]);
    for (const cls of this.classes) {
      for (const p of cls) options[p] = cls.filter((r) => this.compareBlocksAcross(a, r, b, p) === 0 && sa[r] === sb[p]);
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

function equalWords(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
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
