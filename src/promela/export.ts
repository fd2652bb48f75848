// toPromela: a Program as a Promela model that SPIN checks for the same properties
// (docs/scale.md). One proctype per role, whose loops and branches are Promela's and whose
// operations are atomic steps (ops.ts); one process for the asynchronous units (TMA copies
// landing, wgmma and TMA-store groups retiring); one monitor that runs when nothing can move.
//
// A violation sets `viol` and stops every process; the monitor then fails the assertion of its
// class. A state where nothing can move with no violation and a role unfinished is a deadlock
// (the monitor's last assertion); one where every role finished runs the end-of-run checks of
// semantics/step.ts. Run pan with -E: the monitor reports deadlocks, with their class.
import { unitRoles } from '../../semantics/async.ts';
import { compileMachine, type Machine } from '../../semantics/index.ts';
import { InputError } from '../diag.ts';
import { forEachOp, programLevel, type Level, type Program, type Stmt } from '../ir/program.ts';
import { lowerProgram } from '../lower.ts';
import { foldExpr, promelaExpr } from './expr.ts';
import { promelaLayout, type PromelaLayout } from './layout.ts';
import { ARRIVE_NAMED, dstep, FENCE_PROXY_ASYNC, opPromela, outstanding, type OpContext } from './ops.ts';
import { prelude, VIOLATION_CODES as V } from './prelude.ts';
import { refinementMonitor } from './refinement.ts';

export interface PromelaOptions {
  /** The level to export (default: the program's own); an aref program is lowered for 'mbarrier'. */
  readonly level?: Level;
  readonly params?: ReadonlyMap<string, number>;
  /** The paper's consumed rule without its premise (as `verify --literal`). */
  readonly literal?: boolean;
  /** Committed wgmma / TMA-store groups a role can hold (default: the most any role holds). */
  readonly groups?: number;
  /** For pan's multi-core build (-DNCORE, -dfspar), which refuses `hidden` scratch variables. */
  readonly multicore?: boolean;
}

export interface PromelaModel {
  readonly text: string;
  readonly level: Level;
  readonly layout: PromelaLayout;
}

/** The Promela models have no atomics (their race rules are arefcheck's alone, semantics/access.ts): refused, with the op's place. */
function refuseAtomics(program: Program): void {
  forEachOp(program, (op, _role, loc) => {
    if (op.kind === 'atomic') throw new InputError("'atomic' (a shared-memory atomic) has no Promela model: export a program without it", loc);
  });
}

export function toPromela(program: Program, options: PromelaOptions = {}): PromelaModel {
  const own = programLevel(program);
  const level = options.level ?? own;
  if (level === 'aref' && own === 'mbarrier') throw new InputError('this program is at the mbarrier level: it cannot be exported at the aref level');
  // an aref program at the mbarrier level is lowered and watched by the refinement monitor
  const refinement = level === 'mbarrier' && own === 'aref';
  const exported = refinement ? lowerProgram(program) : program;
  refuseAtomics(exported);
  const m = compileMachine(exported, { literal: options.literal ?? false, params: options.params ?? new Map<string, number>() });
  const layout = promelaLayout(m, options.groups === undefined ? {} : { groups: options.groups });
  const parts = [
    header(exported, level, m, layout),
    prelude(layout, options.multicore ?? false),
    layout.named > 0 ? ARRIVE_NAMED : '',
    FENCE_PROXY_ASYNC,
    refinement ? refinementMonitor(program, m) : '',
    ...exported.roles.map((_, r) => roleProctype(m, layout, r, options.literal ?? false, refinement)),
    unitsProctype(m, layout, refinement),
    monitor(m, refinement),
    initProcess(m, layout),
  ];
  return { text: parts.filter((p) => p !== '').join('\n'), level, layout };
}

function header(program: Program, level: Level, m: Machine, layout: PromelaLayout): string {
  const params = [...m.params].map(([k, val]) => `${k} = ${val}`).join(', ');
  return `/* arefcheck export --promela: ${program.source ?? 'a program'} at the ${level} level${params ? ` (${params})` : ''}.
 * Check it with:  spin -a model.pml && gcc -O2 -DSAFETY -DVECTORSZ=${layout.vectorBytes} -o pan pan.c && ./pan -E -c0 -m1000000
 * A failed assertion names the class: viol!=${V.race} race, viol!=${V.fifo} fifo, viol!=${V.protocol} protocol,
 * viol!=${V.refinement} refinement, viol!=${V.capacity} a capacity of the model too small (raise --groups),
 * rolesDone deadlock. */`;
}

function roleProctype(m: Machine, layout: PromelaLayout, r: number, literal: boolean, refinement: boolean): string {
  const role = m.program.roles[r];
  const code = m.roles[r];
  if (!role || !code) return '';
  const locals: string[] = [];
  const c = (scope: ReadonlyMap<string, string>): OpContext => ({
    role: r,
    warps: role.warps,
    literal,
    layout,
    expr: (e) => promelaExpr(foldExpr(e, m.params), (name) => scope.get(name)),
    ref: (ref) => {
      const res = m.resources.get(ref.name);
      if (!res) throw new InputError(`unknown resource '${ref.name}'`);
      return { size: res.size, first: res.space === 'buffer' ? m.arefSlotCount + res.base : res.base };
    },
    token: (name) => code.tokenNames.indexOf(name),
    refinement,
  });
  const block = (stmts: readonly Stmt[], scope: ReadonlyMap<string, string>): string => {
    const out = stmts.map((s) => stmt(s, scope));
    return out.length > 0 ? out.join(';\n') : 'skip';
  };
  const stmt = (s: Stmt, scope: ReadonlyMap<string, string>): string => {
    const ctx = c(scope);
    if (s.kind === 'op') return `/* line ${s.loc?.line ?? '?'}: ${s.op.kind} */\n${opPromela(s.op, ctx)}`;
    // a jump (out of a branch, a loop's break) may not land on a d_step: a skip takes it
    if (s.kind === 'if') return `if\n:: ${ctx.expr(s.cond)} != 0 ->\n${indent(block(s.then, scope))}\n:: else ->\n${indent(block(s.else, scope))}\nfi;\nskip`;
    const name = `l${locals.length}`;
    locals.push(`${name} /* ${s.var} */`);
    const inner = new Map(scope).set(s.var, name);
    const from = ctx.expr(s.from);
    const to = ctx.expr(s.to);
    const body = s.body.length > 0 ? `${block(s.body, inner)};\n${name}++` : `${name}++`;
    return `${name} = ${from};\ndo\n:: ${name} < ${to} ->\n${indent(body)}\n:: else -> break\nod;\nskip`;
  };
  const body = block(role.body, new Map());
  const decl = locals.length > 0 ? `  int ${locals.join(', ')};\n` : '';
  return `/* role ${role.name} (${role.warps} warp${role.warps === 1 ? '' : 's'}) */
proctype role_${r}() {
${decl}${indent(body)};
  rolesDone++
}
`;
}

const indent = (text: string): string =>
  text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');

/** The asynchronous units: each in-flight copy may land, each role's oldest outstanding group may retire. */
function unitsProctype(m: Machine, l: PromelaLayout, refinement: boolean): string {
  const options: string[] = [];
  for (let f = 0; f < l.tmaFlights; f++) {
    options.push(
      dstep(
        `viol == 0 && tmaUsed[${f}]`,
        `s_y = tmaBar[${f}]; s_x = tmaSlot[${f}]; s_sp = tmaSpan[${f}]; s_n = tmaBytes[${f}]; s_v = tmaVal[${f}];
tmaUsed[${f}] = 0; tmaSlot[${f}] = 0; tmaSpan[${f}] = 0; tmaBar[${f}] = 0; tmaBytes[${f}] = 0; tmaVal[${f}] = 0;
/* complete_tx releases only the copy's own write */
ln_j = s_x;
do :: ln_j < s_x + s_sp -> doWrite(ln_j, s_v, 0, H_BARPEND(s_y)); ln_j++ :: else -> break od;
if :: !bValid[s_y] -> viol = PROTOCOL :: else -> bTx[s_y] = bTx[s_y] - s_n; completeIfDone(s_y) fi${refinement ? ';\nif :: viol == 0 -> refinePut(s_x, s_v) :: else -> skip fi' : ''}`,
      ),
    );
  }
  for (let r = 0; r < l.roles; r++) {
    for (const unit of ['mma', 'store'] as const) {
      const cap = unit === 'mma' ? l.mmaGroups : l.storeGroups;
      if (cap === 0) continue;
      // a warpgroup's wgmma groups retire together, from its first role (async.ts retireGroup)
      const members = unitRoles(m, r, unit);
      if (members[0] !== r) continue;
      const G = unit === 'mma' ? 'GM' : 'GS';
      const holder = unit === 'mma' ? 'H_MMA' : 'H_STORE';
      const retire = (q: number): string => `s_g = 0;
do :: s_g < ${unit}N[${q}] && ${unit}Ret[${q}*${G} + s_g] -> s_g++ :: else -> break od;
${unit}Ret[${q}*${G} + s_g] = 1;
s_j = 0;
do :: s_j < S -> if :: ${unit}Sl[(${q}*${G} + s_g)*S + s_j] -> doRead(s_j, ${unit === 'mma' ? 'WGMMA' : 'STORE'}, ${q}, ${holder}(${q}, s_g)) :: else -> skip fi; s_j++ :: else -> break od`;
      // the group just retired is the last of the retired prefix
      const lastRetired = (q: number, v: string): string => `${v} = 0;
do :: ${v} < ${unit}N[${q}] && ${unit}Ret[${q}*${G} + ${v}] -> ${v}++ :: else -> break od;
${v} = ${v} - 1`;
      const share =
        members.length < 2
          ? []
          : [
              lastRetired(r, 's_c'),
              ...members.slice(1).map((q) => `${lastRetired(q, 's_g')};
orInto(${holder}(${r}, s_c), ${holder}(${q}, s_g))`),
              ...members.slice(1).map((q) => `${lastRetired(q, 's_g')};
copyHolder(${holder}(${q}, s_g), ${holder}(${r}, s_c))`),
            ];
      options.push(dstep(`viol == 0 && ${members.map((q) => `${outstanding(unit, q, cap)} > 0`).join(' && ')}`, [...members.map(retire), ...share].join(';\n')));
    }
  }
  if (options.length === 0) return '';
  return `/* the asynchronous units of ${m.program.roles.length === 1 ? 'the role' : 'every role'} */
proctype units() {
end:
  do
${options.map((o) => `  :: ${o.replaceAll('\n', '\n     ')}`).join('\n')}
  od
}
`;
}

/** What must hold once everything has finished (semantics/step.ts endProblem). */
function monitor(m: Machine, refinement: boolean): string {
  const tx = m.txBarriers.flatMap((isTx, b) => (isTx ? [`(b) == ${b}`] : []));
  return `#define TXB(b) (${tx.length > 0 ? tx.join(' || ') : '0'})
inline endCheck() {
  s_j = 0;
  do :: s_j < A -> if :: arefF[s_j] == 1 || arefE[s_j] == 0 -> viol = PROTOCOL :: else -> skip fi; s_j++ :: else -> break od;
  s_j = 0;
  do :: s_j < B -> if :: bValid[s_j] && (bTx[s_j] != 0 || (TXB(s_j) && bPhase[s_j] >= 1 && bObs[s_j] == 0)) -> viol = PROTOCOL :: else -> skip fi; s_j++ :: else -> break od;
  s_j = A;
  do
  :: s_j < S ->
     if
     :: !slotGen[s_j] && PRESENT(EV_WRITE(s_j)) ->
        found = 0; s_c = 0;
        do :: s_c < 3*R -> if :: PRESENT(EV_READ(s_j, s_c / R, s_c % R)) -> found = 1 :: else -> skip fi; s_c++ :: else -> break od;
        if :: !found -> viol = PROTOCOL :: else -> skip fi
     :: else -> skip
     fi;
     s_j++
  :: else -> break
  od
}
/* runs when nothing else can move: a violation, a deadlock, or the end of the run */
proctype monitor() {
end:
  atomic {
    timeout ->
    if :: viol == 0 && rolesDone == R -> endCheck() :: else -> skip fi;${refinement ? '\n    if :: viol == 0 && rolesDone == R -> refineEnd() :: else -> skip fi;' : ''}
    assert(viol != RACE);
    assert(viol != FIFO);
    assert(viol != PROTOCOL);
    assert(viol != CAPACITY);${refinement ? '\n    assert(viol != REFINEMENT);' : ''}
    assert(viol != 0 || rolesDone == R)
  }
}
`;
}

function initProcess(m: Machine, l: PromelaLayout): string {
  const inits = m.barrierInit.flatMap((count, b) => (count === undefined ? [] : [`bValid[${b}] = 1; bPend[${b}] = ${count}; bExp[${b}] = ${count};`]));
  const runs = [...m.roles.map((_, r) => `run role_${r}();`), ...(l.tmaFlights + l.mmaGroups + l.storeGroups > 0 ? ['run units();'] : []), 'run monitor();'];
  return `init {
  atomic {
${inits.map((s) => `    ${s}`).join('\n')}
    /* every role knows each barrier starts in phase 0 */
    s_j = 0;
    do :: s_j < R -> s_c = 0; do :: s_c < B -> freshPhase(H_ROLE(s_j), s_c); s_c++ :: else -> break od; s_j++ :: else -> break od;
    SCRATCH_RESET;
${runs.map((s) => `    ${s}`).join('\n')}
  }
}
`;
}
