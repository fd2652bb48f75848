// Barriers a program only initialises: nobody waits on them, arrives on them or has a copy
// complete on them. Harmless alone, but an init of one twice is undefined, and a compiler that
// allocates such barriers may place them on memory it uses for data (Triton 3.6's Hopper warp
// specialization: docs/gpu.md). The report names them, with their init lines.
import { forEachOp, type Program, type Stmt } from '../ir/program.ts';
import type { Report, ViolationReport } from './report.ts';

export interface DeadBarrier {
  readonly name: string;
  /** PTX (or .aref) lines of its inits, ascending */
  readonly lines: readonly number[];
}

export function deadBarriers(program: Program): DeadBarrier[] {
  const barriers = new Set(program.resources.filter((r) => r.kind === 'mbarrier').map((r) => r.name));
  const inits = new Map<string, number[]>();
  const used = new Set<string>();
  forEachOp(program, (op, _role, loc) => {
    for (const ref of ['target' in op ? op.target : undefined, 'barrier' in op ? op.barrier : undefined]) {
      if (!ref || !barriers.has(ref.name)) continue;
      if (op.kind === 'init') inits.set(ref.name, [...(inits.get(ref.name) ?? []), loc?.line ?? 0]);
      else used.add(ref.name);
    }
  });
  return [...inits].filter(([name]) => !used.has(name)).map(([name, lines]) => ({ name, lines: [...lines].sort((a, b) => a - b) }));
}

/** The first n line numbers, then `…` when there are more. */
const firstLines = (lines: readonly number[], n: number): string => (lines.length > n ? `${lines.slice(0, n).join(', ')}, …` : lines.join(', '));

/** The report's note, or undefined when every barrier is used. */
export function deadBarrierNote(program: Program): string | undefined {
  const dead = deadBarriers(program);
  if (dead.length === 0) return undefined;
  const one = (d: DeadBarrier): string => {
    return `${d.name} (${d.lines.length} init${d.lines.length === 1 ? '' : 's'}, line${d.lines.length === 1 ? '' : 's'} ${firstLines(d.lines, 6)})`;
  };
  return `barriers only ever initialised, never waited on, arrived on or completed by a copy: ${dead.map(one).join('; ')}`;
}

/** Marks the violations the set-aside check found, in their message. */
export const SET_ASIDE = 'with the inits of barriers nothing uses set aside: ';

/** The program with every init of these barriers taken out (the barriers stay, never initialised). */
export function withoutInits(program: Program, names: ReadonlySet<string>): Program {
  const keep = (s: Stmt): boolean => !(s.kind === 'op' && s.op.kind === 'init' && names.has(s.op.target.name));
  const strip = (stmts: readonly Stmt[]): Stmt[] =>
    stmts.filter(keep).map((s) => (s.kind === 'for' ? { ...s, body: strip(s.body) } : s.kind === 'if' ? { ...s, then: strip(s.then), else: strip(s.else) } : s));
  return { ...program, roles: program.roles.map((r) => ({ ...r, body: strip(r.body) })) };
}

/** The program with the inits of its dead barriers taken out: the program the set-aside check explores. */
export function withoutDeadInits(program: Program): Program {
  return withoutInits(program, new Set(deadBarriers(program).map((d) => d.name)));
}

/** The program a violation's trace runs on: the set-aside check's for a violation it found (marked). */
export function programOfViolation(message: string, program: Program): Program {
  return message.startsWith(SET_ASIDE) ? withoutDeadInits(program) : program;
}

/** A double init of a barrier nothing else uses: the violation the set-aside check looks past. */
function isDeadDoubleInit(v: ViolationReport, dead: readonly DeadBarrier[]): boolean {
  const line = v.loc?.line ?? v.trace.at(-1)?.loc?.line;
  return v.kind === 'protocol' && /\(double init\)$/.test(v.message) && dead.some((d) => line !== undefined && d.lines.includes(line));
}

/**
 * Check `program`; when it double-inits a barrier nothing waits on, arrives on or completes (Triton
 * 3.6's warp specialization does it in every kernel's prologue), every path stops at that
 * violation and the synchronization after it goes unchecked. So the program is checked once more
 * with those barriers' inits taken out: the report keeps the double init (undefined in PTX, and
 * on hardware it corrupted two Triton kernels: docs/gpu.md) and adds what the second check found,
 * its violations marked, its verdict in a note. Nothing else changes between the two programs: no
 * other operation names those barriers.
 */
export function checkSettingAsideDeadInits(program: Program, check: (p: Program) => Report): Report {
  const report = check(program);
  const dead = deadBarriers(program);
  if (report.verdict !== 'violation' || !report.violations.some((v) => isDeadDoubleInit(v, dead))) return report;
  const lines = dead.flatMap((d) => d.lines).sort((a, b) => a - b);
  const aside = check(withoutDeadInits(program));
  const found = aside.violations.map((v) => ({ ...v, message: `${SET_ASIDE}${v.message}` }));
  const outcome =
    aside.verdict === 'verified'
      ? 'verified'
      : aside.verdict === 'violation'
        ? `${aside.violations.map((v) => v.kind).join(', ')} (below, marked)`
        : `inconclusive (${aside.limit?.message ?? 'a limit was reached'})`;
  const note = `with the ${lines.length} inits of barriers nothing uses set aside (lines ${firstLines(lines, 8)}), the rest of the synchronization: ${outcome}; ${aside.stats.states.toLocaleString('en-US')} states`;
  return { ...report, violations: [...report.violations, ...found], notes: [...(report.notes ?? []), note] };
}
