// The kernel skeleton shared by both families (docs/emit.md): header, shared symbols, entry with
// the family's arguments then the Program's params, the prologue (barrier inits by thread 0,
// fence.mbarrier_init, bar.sync 0), the dispatch of warpgroups to roles, and the roles' code
// between `// arefcheck role NAME begin/end` markers.
import { InputError } from '../../diag.ts';
import type { Program, Role, Stmt } from '../../ir/program.ts';
import { printOp } from '../../lang/printer.ts';
import { PtxBuilder } from './builder.ts';
import { ExprCompiler, type Operand, type Scope } from './expr.ts';
import { argDecl, type Family } from './family.ts';
import type { EmitOptions } from './options.ts';
import { issues, type KernelPlan, type PlacedRole } from './plan.ts';
import type { KernelRegs, RoleCtx } from './role.ts';
import { compileStmts } from './stmts.ts';
import { emitSyncOp } from './sync.ts';

export const PTX_VERSION = '8.4';
export const PTX_TARGET = 'sm_90a';
/** Marker of the machine-readable line the GPU harness reads. */
export const META_MARK = '// arefcheck-meta ';
/** Dynamic shared memory is over-allocated by this much so that its base can be rounded up to 1024. */
export const SMEM_ALIGN_SLACK = 1024;

export interface KernelMeta {
  readonly kernel: string;
  readonly name: string;
  readonly threads: number;
  readonly smemBytes: number;
  readonly args: readonly { readonly name: string; readonly kind: string; readonly what: string }[];
  readonly params: readonly { readonly name: string; readonly value: number; readonly inlined: boolean }[];
  /** The param bounding the producer's loop (the iteration count K), when there is one. */
  readonly iterParam: string | null;
  readonly consumers: number;
  readonly roles: readonly string[];
  readonly watchdog: number | null;
  readonly [family: string]: unknown;
}

export function emitKernel(program: Program, plan: KernelPlan, family: Family, options: EmitOptions): string {
  const name = options.name ?? `arefcheck_${family.kernel}`;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new InputError(`kernel name '${name}' is not a PTX identifier`);
  const inline = new Set(options.inlineParams ?? []);
  for (const n of inline) {
    if (!program.params.some((p) => p.name === n)) throw new InputError(`--inline: the Program has no param '${n}'`);
  }
  checkNames(program, family);
  if (options.watchdog !== undefined && (!Number.isSafeInteger(options.watchdog) || options.watchdog < 1 || options.watchdog > 2 ** 32 - 1)) {
    throw new InputError(`watchdog bound must be an integer in 1..4294967295, got ${options.watchdog}`);
  }

  const b = new PtxBuilder();
  const tid = b.reg('r');
  const warp = b.reg('r');
  const wg = b.reg('r');
  const smem = b.reg('r');
  const regs: KernelRegs = { tid, smem };
  b.comment('prologue: every thread');
  b.ins(`mov.u32 ${tid}, %tid.x`);
  b.ins(`shr.u32 ${warp}, ${tid}, 5`);
  b.ins(`shr.u32 ${wg}, ${tid}, 7`);
  b.ins(`mov.u32 ${smem}, arefcheck_smem`);
  b.ins(`add.u32 ${smem}, ${smem}, ${SMEM_ALIGN_SLACK - 1}`);
  b.ins(`and.b32 ${smem}, ${smem}, ${-SMEM_ALIGN_SLACK}`);
  const scope = new Map<string, Operand>();
  for (const p of program.params) {
    if (inline.has(p.name)) scope.set(p.name, { imm: p.value });
    else {
      const r = b.reg('r');
      b.ins(`ld.param.u32 ${r}, [${p.name}]`);
      scope.set(p.name, { reg: r });
    }
  }
  const initialised = plan.barriers.filter((x) => x.count !== undefined);
  if (initialised.length > 0) {
    b.comment("thread 0 initialises the Program's mbarriers, then the whole CTA syncs");
    const first = b.reg('p');
    b.ins(`setp.eq.u32 ${first}, ${tid}, 0`);
    for (const bar of initialised) {
      for (let i = 0; i < bar.size; i++) b.ins(`@${first} mbarrier.init.shared::cta.b64 [${bar.name}${i === 0 ? '' : `+${i * 8}`}], ${bar.count}`);
    }
    b.ins(`@${first} fence.mbarrier_init.release.cluster`);
  }
  b.ins('bar.sync 0');
  family.prologue(b, regs);

  const exit = b.label('exit');
  const consumersLabel = b.label('consumers');
  const notWg0 = b.reg('p');
  b.ins(`setp.ne.u32 ${notWg0}, ${wg}, 0`);
  b.ins(`@${notWg0} bra ${consumersLabel}`);
  if (family.setmaxnreg) b.ins(`setmaxnreg.dec.sync.aligned.u32 ${family.setmaxnreg.producer}`);
  emitRole(b, program, plan, family, options, regs, scope, plan.producer, warp, exit);
  b.place(consumersLabel);
  if (family.setmaxnreg) b.ins(`setmaxnreg.inc.sync.aligned.u32 ${family.setmaxnreg.consumer}`);
  for (const c of plan.consumers) {
    const next = b.label('next_role');
    const other = b.reg('p');
    b.ins(`setp.ne.u32 ${other}, ${wg}, ${c.wg}`);
    b.ins(`@${other} bra ${next}`);
    emitRole(b, program, plan, family, options, regs, scope, c, warp, exit);
    b.place(next);
  }
  b.place(exit);
  b.ins('ret');

  const meta: KernelMeta = {
    kernel: family.kernel,
    name,
    threads: plan.threads,
    smemBytes: plan.bufferBytes + family.extraSmem + SMEM_ALIGN_SLACK,
    args: family.args.map((a) => ({ name: a.name, kind: a.kind, what: a.what })),
    params: program.params.map((p) => ({ name: p.name, value: p.value, inlined: inline.has(p.name) })),
    iterParam: iterationParam(plan.producer.role),
    consumers: plan.consumers.length,
    roles: [plan.producer, ...plan.consumers].map((r) => r.role.name),
    watchdog: options.watchdog ?? null,
    ...family.meta(),
  };
  const header = [
    '//',
    `// Generated by arefcheck (src/ptx/emit): ${family.kernel} kernel${program.source ? ` from ${ascii(program.source)}` : ''}.`,
    '// Layout: warpgroup 0 = producer role (its warps; the rest of the group exits), warpgroup i+1 = consumer role i.',
    '// Roles run between the "arefcheck role NAME begin/end" markers; docs/emit.md has the op table.',
    '//',
    `${META_MARK}${JSON.stringify(meta)}`,
    '',
    `.version ${PTX_VERSION}`,
    `.target ${PTX_TARGET}`,
    '.address_size 64',
    '',
  ];
  const shared = plan.barriers.map((x) => `.shared .align 8 .b64 ${x.name}[${x.size}];`);
  const bufferLines = plan.buffers.map(
    (x) => `// arefcheck-buffer ${x.name} slots ${x.slots} bytes ${x.bytes} offset ${x.offset}`,
  );
  const entryParams = [...family.args.map(argDecl), ...program.params.filter((p) => !inline.has(p.name)).map((p) => `.param .u32 ${p.name}`)];
  const directives = [`.maxntid ${plan.threads}, 1, 1`];
  if (family.setmaxnreg || family.ctasPerSm !== undefined) directives.push(`.minnctapersm ${family.ctasPerSm ?? 1}`);
  const ptx = [
    ...header,
    ...shared,
    '// Buffers live in dynamic shared memory: slot s of a buffer is at base + offset + s*bytes, base = arefcheck_smem rounded up to 1024.',
    ...bufferLines,
    '.extern .shared .align 1024 .b8 arefcheck_smem[];',
    '',
    `.visible .entry ${name}(`,
    entryParams.map((p) => `\t${p}`).join(',\n'),
    ')',
    ...directives,
    '{',
    ...b.declarations(),
    '',
    ...b.lines(),
    '}',
    '',
  ].join('\n');
  // ptxas rejects any non-ASCII byte, comments included.
  const bad = /[^\x00-\x7f]/.exec(ptx);
  if (bad) throw new Error(`emitted PTX has a non-ASCII character '${bad[0]}' at offset ${bad.index}`);
  return ptx;
}

/** File names go into a comment: keep them ASCII. */
function ascii(s: string): string {
  return s.replace(/[^\x20-\x7e]/g, '?');
}

function emitRole(
  b: PtxBuilder,
  program: Program,
  plan: KernelPlan,
  family: Family,
  options: EmitOptions,
  regs: KernelRegs,
  scope: ReadonlyMap<string, Operand>,
  placed: PlacedRole,
  warp: string,
  exit: string,
): void {
  const role = placed.role;
  const firstWarp = 4 * placed.wg;
  const spare = b.reg('p');
  b.ins(`setp.ge.u32 ${spare}, ${warp}, ${firstWarp + role.warps}`);
  b.ins(`@${spare} bra ${exit}`);
  const tidInRole = b.reg('r');
  b.ins(`sub.u32 ${tidInRole}, ${regs.tid}, ${128 * placed.wg}`);
  const elect = b.reg('p');
  b.ins(`setp.eq.u32 ${elect}, ${tidInRole}, 0`);
  const generic = issues(role.body, 'read') || issues(role.body, 'write') || (family.issueIsGeneric === true && issues(role.body, 'wgmma.issue'));
  const ctx: RoleCtx = {
    b,
    ex: new ExprCompiler(b, `role ${role.name}`),
    program,
    plan,
    placed,
    regs,
    tidInRole,
    elect,
    threads: 32 * role.warps,
    barId: 1 + placed.index,
    syncBeforeArrive: role.warps > 1 && generic,
    ...(options.watchdog === undefined ? {} : { watchdog: options.watchdog }),
  };
  b.comment(`arefcheck role ${role.name} begin (warps ${firstWarp}..${firstWarp + role.warps - 1})`);
  family.roleStart(ctx);
  const perTile = family.perTile && placed.wg > 0 ? family.perTile : undefined;
  if (perTile && (role.body.length !== 1 || role.body[0]?.kind !== 'for')) {
    throw new InputError(`persistent kernel: consumer role ${role.name} must be one loop over its output tiles (for t in 0..T: …)`, role.loc);
  }
  const hooks = perTile && {
    start: (sc: Scope, t: string): void => perTile.tileStart(ctx, register(sc, t)),
    end: (sc: Scope, t: string): void => perTile.tileEnd(ctx, register(sc, t)),
  };
  compileStmts(b, ctx.ex, role.body, scope, (op, sc, loc) => {
    b.comment(`op ${ascii(printOp(op))}`);
    if (!emitSyncOp(ctx, op, sc, loc)) family.emitDataOp(ctx, op, sc, loc);
  }, hooks);
  b.comment(`arefcheck role ${role.name} end`);
  family.roleEnd(ctx);
  b.ins(`bra.uni ${exit}`);
}

/** The register of a loop variable (compileStmts keeps every loop variable in a register). */
function register(scope: Scope, name: string): string {
  const o = scope.get(name);
  if (!o || !('reg' in o)) throw new Error(`loop variable ${name} has no register`);
  return o.reg;
}

/** The producer's loop bound when it is a bare param (`for k in 0..K`): the iteration count. */
function iterationParam(role: Role): string | null {
  const loop = role.body.find((s): s is Extract<Stmt, { kind: 'for' }> => s.kind === 'for');
  return loop && loop.to.kind === 'var' ? loop.to.name : null;
}

const PTX_RESERVED = /^(arefcheck_|arg_)/;

function checkNames(program: Program, family: Family): void {
  const seen = new Set(family.args.map((a) => a.name));
  for (const n of [...program.params.map((p) => p.name), ...program.resources.map((r) => r.name)]) {
    if (PTX_RESERVED.test(n) || seen.has(n)) throw new InputError(`the name '${n}' clashes with a name the emitted kernel uses (arefcheck_*, arg_*)`);
    seen.add(n);
  }
}
