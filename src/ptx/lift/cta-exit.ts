// A CTA's exit, made a race the checker decides (docs/ptx.md, "A CTA's exit"). A CTA must not
// exit while a warp of another CTA of its cluster still accesses its shared memory or arrives on
// its barriers: CUTLASS's producer tail waits on its empty barriers for the peers' last releases,
// the Programming Guide's histogram ends with a cluster.sync. The PTX defines no access to an exited
// CTA's shared memory (under compute-sanitizer the H200 fails the launch: docs/gpu.md).
//
// CTA c whose resources another CTA's role touches gets a one-slot buffer `cta<c>_alive` and a
// barrier `cta<c>_exit`, initialised with the count of c's roles. Each role of c ends with an
// `arrive` on the barrier; c's first role then waits on it (the CTA has exited once all its warps
// are done) and writes the slot: the exit. A role of another CTA reads the slot right before each
// of its barrier operations on c and right after each run of its accesses to c's shared memory. The
// write must be ordered after every read of its slot, and a read after the write it may read: so a
// remote operation that nothing orders before c's exit is a race the checker reports, and one that
// a cluster barrier, or a wait of c on the barrier it arrived on, orders before it is not.
// Multicast TMA copies into c are not counted: c's own waits for their bytes order them before its
// exit, and bytes it never waits for are a protocol violation already.
//
// Why the read stands for the operation: nothing that releases (an arrive, a barrier, a commit)
// lies between them, the read being next to it in program order, so every release that orders one
// before c's exit orders the other — the read before an arrive is released by the arrive itself,
// the read after a run of accesses by whatever release follows the run.
import { num } from '../../ir/expr.ts';
import type { Loc, Op, Ref, Resource, Role, Stmt } from '../../ir/program.ts';

const ACCESS = new Set(['read', 'write', 'atomic']);
/** Barrier operations a warp may make on another CTA's barrier (a wait is on its own CTA's). */
const REMOTE_BARRIER_OPS = new Set(['arrive', 'arrive.expect_tx', 'expect_tx', 'complete_tx']);

export interface CtaExit {
  readonly cta: number;
  readonly alive: string;
  readonly exit: string;
}

/**
 * The roles with every CTA's exit that another CTA touches, and the resources it needs.
 * `ctaOfRole`: each role's CTA; `ctaOf`: each buffer's and barrier's; `fresh`: a resource name not
 * taken yet, from a base. Lifted roles are straight-line (their bodies are ops). Done on the folded
 * roles, so that the read next to an operation is next to it in the program checked.
 */
export function withCtaExits(roles: readonly Role[], ctaOfRole: readonly number[], ctaOf: ReadonlyMap<string, number>, fresh: (base: string) => string): { roles: Role[]; resources: Resource[]; exits: CtaExit[] } {
  /** the CTA whose resource a role's op touches, when not its own (TMA copies aside, see above) */
  const remote = (op: Op, own: number): number | undefined => {
    if (!('target' in op) || !(ACCESS.has(op.kind) || REMOTE_BARRIER_OPS.has(op.kind))) return undefined;
    const c = ctaOf.get(op.target.name);
    return c !== undefined && c !== own ? c : undefined;
  };
  const touched = new Set(roles.flatMap((r, i) => r.body.flatMap((s) => (s.kind === 'op' ? [remote(s.op, ctaOfRole[i] ?? 0)] : [])).filter((c): c is number => c !== undefined)));
  // a CTA with no role initialised none of the barriers the others touch
  const ctas = [...touched].filter((c) => ctaOfRole.includes(c)).sort((a, b) => a - b);
  if (ctas.length === 0) return { roles: [...roles], resources: [], exits: [] };
  const exits = ctas.map((cta) => ({ cta, alive: fresh(`cta${cta}_alive`), exit: fresh(`cta${cta}_exit`) }));
  const byCta = new Map(exits.map((e) => [e.cta, e] as const));
  const out = roles.map((role, i) => {
    const own = ctaOfRole[i] ?? 0;
    const next: Stmt[] = [];
    // CTAs whose shared memory the current run of accesses touched: read after the run
    let pending = new Set<number>();
    const aliveRead = (c: number, loc: Loc | undefined): Stmt => ({ kind: 'op', op: { kind: 'read', target: ref(byCta.get(c)?.alive ?? '') }, ...(loc ? { loc } : {}) });
    const justRead = (c: number): boolean => {
      const last = next.at(-1);
      return last?.kind === 'op' && last.op.kind === 'read' && last.op.target.name === byCta.get(c)?.alive;
    };
    const flush = (loc: Loc | undefined): void => {
      for (const c of pending) if (!justRead(c)) next.push(aliveRead(c, loc));
      pending = new Set();
    };
    for (const s of role.body) {
      const access = s.kind === 'op' && ACCESS.has(s.op.kind);
      if (!access) flush(s.loc);
      const c = s.kind === 'op' ? remote(s.op, own) : undefined;
      const checked = c !== undefined && byCta.has(c);
      if (checked && !access && !justRead(c)) next.push(aliveRead(c, s.loc));
      next.push(s);
      if (checked && access) pending.add(c);
    }
    flush(role.body.at(-1)?.loc);
    return { ...role, body: next };
  });
  const resources: Resource[] = [];
  for (const e of exits) {
    const mine = roles.flatMap((_, i) => (ctaOfRole[i] === e.cta ? [i] : []));
    resources.push({ kind: 'buffer', name: e.alive, slots: 1, bytes: 4 }, { kind: 'mbarrier', name: e.exit, size: 1, count: mine.length });
    mine.forEach((i, k) => {
      const role = out[i];
      if (!role) return;
      const loc = lastLoc(role.body);
      const tail: Op[] = [{ kind: 'arrive', target: ref(e.exit), count: num(1) }];
      if (k === 0) tail.push({ kind: 'wait', target: ref(e.exit), parity: num(0) }, { kind: 'write', target: ref(e.alive) });
      out[i] = { ...role, body: [...role.body, ...tail.map((op): Stmt => ({ kind: 'op', op, ...(loc ? { loc } : {}) }))] };
    });
  }
  return { roles: out, resources, exits };
}

function lastLoc(body: readonly Stmt[]): Loc | undefined {
  for (let i = body.length - 1; i >= 0; i--) if (body[i]?.loc) return body[i]?.loc;
  return undefined;
}

const ref = (name: string): Ref => ({ name, index: num(0) });

/**
 * A violation message of the checker, with what it means where it names a CTA's lifetime slot (a
 * race on it is a remote operation that nothing orders before that CTA's exit) or its exit barrier.
 */
export function explainCtaExit(message: string, exits: readonly CtaExit[]): string {
  const waiting = exits.filter((x) => message.includes(`${x.exit}[0]`));
  const ending = waiting.length > 0 ? ` (${waiting.map((x) => `${x.exit}[0]`).join(', ')}: the end of CTA ${waiting.map((x) => x.cta).join(', ')}, where its first role waits for its other roles to finish)` : '';
  const e = exits.find((x) => message.includes(`${x.alive}[0]`));
  if (!e) return `${message}${ending}`;
  return `${message}${ending} — CTA ${e.cta} may exit before another CTA's arrive on its barriers or access to its shared memory (${e.alive} stands for CTA ${e.cta}'s lifetime: a remote operation reads it, and CTA ${e.cta} writes it once all its warps are done): a CTA must not exit while another still uses its shared memory; a cluster barrier before the exit, or a producer tail that waits for the peers' last releases (CUTLASS's producer_tail), orders them`;
}
