// Double inits in a kernel's prologue stop every path of the check, so the synchronization after
// them went unchecked. Two kinds are common in kernels people ship and are set aside for a second
// check: inits of barriers nothing else uses (Triton 3.6's warp specialization: docs/gpu.md), and
// all lanes of a warp running one mbarrier.init together (ThunderKittens' lcf and lcsf kernels:
// 32 identical inits of one barrier, one per lane). Both are undefined in PTX and stay reported;
// the second check runs on the program with the dead barriers' inits taken out and each such run
// of identical inits counted once, and adds what it finds, marked.
import type { Op, Program, Stmt } from '../ir/program.ts';
import { deadBarriers, firstLines } from './dead-barriers.ts';
import type { Report, ViolationReport } from './report.ts';

/** Marks the violations the second check found, in their message. */
export const SET_ASIDE = 'with the double inits set aside: ';

/** What the second check's program leaves out: PTX lines of the inits taken out, by kind. */
export interface SetAside {
  readonly program: Program;
  /** lines of inits of barriers nothing uses */
  readonly deadLines: readonly number[];
  /** lines of an init repeated at once by the lanes of a warp (one kept per run) */
  readonly laneLines: readonly number[];
  /** inits taken out */
  readonly removed: number;
}

/** What makes two inits the same instruction run by several lanes: line, barrier and count. */
const initKey = (op: Extract<Op, { kind: 'init' }>, line: number): string => `${line}:${JSON.stringify(op.target)}:${JSON.stringify(op.count)}`;

/**
 * The program with the inits of dead barriers taken out and each run of identical consecutive
 * inits (same barrier, count and PTX line, in one role) cut to its first.
 */
export function setAsideInits(program: Program): SetAside {
  const dead = new Set(deadBarriers(program).map((d) => d.name));
  const deadLines = new Set<number>();
  const laneLines = new Set<number>();
  let removed = 0;
  const strip = (stmts: readonly Stmt[]): Stmt[] => {
    const out: Stmt[] = [];
    let last: string | undefined;
    for (const s of stmts) {
      if (s.kind === 'op' && s.op.kind === 'init') {
        const line = s.loc?.line ?? 0;
        if (dead.has(s.op.target.name)) {
          deadLines.add(line);
          removed++;
          continue;
        }
        const key = initKey(s.op, line);
        if (key === last) {
          laneLines.add(line);
          removed++;
          continue;
        }
        last = key;
        out.push(s);
        continue;
      }
      last = undefined;
      out.push(s.kind === 'for' ? { ...s, body: strip(s.body) } : s.kind === 'if' ? { ...s, then: strip(s.then), else: strip(s.else) } : s);
    }
    return out;
  };
  const roles = program.roles.map((r) => ({ ...r, body: strip(r.body) }));
  const sorted = (x: Set<number>): number[] => [...x].sort((a, b) => a - b);
  return { program: { ...program, roles }, deadLines: sorted(deadLines), laneLines: sorted(laneLines), removed };
}

/** The program a violation's trace runs on: the second check's for a violation it found (marked). */
export function programOfViolation(message: string, program: Program): Program {
  // a value left open (=any) prefixes the message with `with NAME = V: `
  return message.includes(SET_ASIDE) ? setAsideInits(program).program : program;
}

/** A double init the second check looks past: at a line whose inits it takes out. */
function isSetAside(v: ViolationReport, aside: SetAside): boolean {
  const line = v.loc?.line ?? v.trace.at(-1)?.loc?.line;
  return v.kind === 'protocol' && /\(double init\)$/.test(v.message) && line !== undefined && (aside.deadLines.includes(line) || aside.laneLines.includes(line));
}

/** Reports whose every violation is a double init set aside, past which the rest verified. */
const restVerified = new WeakSet<Report>();

/** The report's only violations are double inits set aside, and past them the rest verified. */
export function onlyDoubleInits(report: Report): boolean {
  return restVerified.has(report);
}

/**
 * Check `program`; when a violation is a double init of the kinds above, check it once more with
 * them set aside. The report keeps its own violations and adds the second check's, marked, with
 * its verdict in a note. Nothing else differs between the two programs: a dead barrier has no
 * other operation, and a run of identical inits leaves the barrier as its first one did.
 */
export function checkSettingAsideDoubleInits(program: Program, check: (p: Program) => Report): Report {
  const report = check(program);
  if (report.verdict !== 'violation') return report;
  const aside = setAsideInits(program);
  if (aside.removed === 0 || !report.violations.some((v) => isSetAside(v, aside))) return report;
  const second = check(aside.program);
  const found = second.violations.map((v) => ({ ...v, message: `${SET_ASIDE}${v.message}` }));
  const outcome =
    second.verdict === 'verified'
      ? 'verified'
      : second.verdict === 'violation'
        ? `${second.violations.map((v) => v.kind).join(', ')} (below, marked)`
        : `inconclusive (${second.limit?.message ?? 'a limit was reached'})`;
  const what = [
    ...(aside.deadLines.length > 0 ? [`the inits of barriers nothing uses (${firstLines(aside.deadLines, 8)})`] : []),
    ...(aside.laneLines.length > 0 ? [`the inits all lanes of a warp repeat, once per lane (${firstLines(aside.laneLines, 8)}), counted once`] : []),
  ];
  const note = `with the double inits set aside — ${what.join('; ')} — the rest of the synchronization: ${outcome}; ${second.stats.states.toLocaleString('en-US')} states`;
  const merged = { ...report, violations: [...report.violations, ...found], notes: [...(report.notes ?? []), note] };
  if (second.verdict === 'verified' && report.violations.every((v) => isSetAside(v, aside))) restVerified.add(merged);
  return merged;
}
