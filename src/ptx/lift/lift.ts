// PTX kernel → mbarrier-level Program: run one cluster concretely with a set of launch values
// (cluster.ts), then turn the recorded synchronization into resources and roles (docs/ptx.md).
import { InputError } from '../../diag.ts';
import type { Param, Program } from '../../ir/program.ts';
import { validateProgram } from '../../lang/validate.ts';
import type { PtxFunction, PtxModule } from '../parse/ast.ts';
import { parsePtx } from '../parse/parser.ts';
import { assumeLaunchTx, type AssumedTx } from './assumed-tx.ts';
import { runCluster, type ClusterRun } from './cluster.ts';
import { withCtaExits, type CtaExit } from './cta-exit.ts';
import { clusterOfKernelName } from './cluster-name.ts';
import type { WarpEvent } from './events.ts';
import { flattenFunction, type FlatFunction } from './flatten.ts';
import { launchRelevance } from './inert.ts';
import { mergeRanges } from './footprint.ts';
import { foldWarps, type FoldedRole } from './fold.ts';
import { hintedRole, readHints } from './hints.ts';
import { CTA_INDEX, LaunchValues, parseDims, parseLaunchParam, resolveBoxKeys, wholeArray, type LaunchVar } from './launch.ts';
import { usedAsPointer } from './value-uses.ts';
import { identifier, roleName } from './names.ts';
import { hoistPrologue } from './prologue.ts';
import { buildResources, type ResourceMap } from './resources.ts';
import { layoutSharedMemory, type SmemLayout } from './smem-layout.ts';
import { sizeTensorCopies, type SizedMap } from './tma-bytes.ts';
import { warpgroupsOf } from './warpgroups.ts';
import { warpOps } from './warp-ops.ts';
import { EventBudgetExceeded } from './warp.ts';

export interface LiftOptions {
  /** Kernel to lift; required by liftKernel when the module has several. */
  readonly kernel?: string;
  /**
   * Launch values: a parameter by name (`K`) or position (`2`), or a field of a by-value parameter
   * (`params+8:u32`, `0+8:f32`); values as numbers or text (floats for float fields).
   */
  readonly params?: ReadonlyMap<string, number | bigint | string>;
  /** Threads per block (x); default from `.reqntid` / `.maxntid`. */
  readonly block?: number;
  /** Grid shape (%nctaid); default: one cluster. */
  readonly grid?: readonly [number, number, number];
  /** Cluster shape; default `.reqnctapercluster`, else one CTA (or what remote accesses need). */
  readonly cluster?: readonly [number, number, number];
  /** %ctaid.x of the first CTA run; default 0. */
  readonly cta?: number;
  /** Bytes of every tensor TMA copy, when the layout cannot tell (see tma-bytes.ts). */
  readonly tmaBytes?: number;
  /** Bytes per tensor map (`--tma-box MAP=ROWSxCOLSxBYTES`), by the map's parameter name or `NAME+OFFSET`. */
  readonly tmaBoxes?: ReadonlyMap<string, number>;
  /** Budget of executed PTX instructions for the whole cluster; default 20,000,000. */
  readonly maxSteps?: number;
  /** Budget of synchronization events the run may record (EventBudgetExceeded past it); default none. */
  readonly maxEvents?: number;
  /** What integer launch values left open read, and why; default DEFAULT_INT (sweep.ts raises it to 2 when 1 divides by zero). */
  readonly defaultInt?: { readonly value: bigint; readonly why: string };
}

export const DEFAULT_MAX_STEPS = 20_000_000;

/** What the lifter assumed to build a program (reported with every verdict on it). */
export interface LiftFacts {
  /** every launch value the kernel read, with the value it was lifted at and where it came from */
  readonly launch: readonly { readonly v: LaunchVar; readonly value: string; readonly given: boolean }[];
  readonly grid: readonly [number, number, number];
  readonly cluster: readonly [number, number, number];
  /** how the cluster shape was chosen, when the PTX does not declare it and none was given */
  readonly clusterNote?: string;
  /** the CTAs of a multi-CTA cluster that issued no TMA copy and no wgmma while another did (idleCtas) */
  readonly idleCtas?: readonly number[];
  /**
   * the launch values read that are inert (inert.ts): no branch, guard, address the lifter records
   * or synchronizing operand depends on them, so every value of one lifts to this same program
   */
  readonly inert: readonly string[];
  /** for the parameters and fields read that are not inert, the first use the slice found that may decide something */
  readonly decides: readonly { readonly key: string; readonly why: string }[];
  /** launch values the user gave that this run never read (a field or an array element at an offset the kernel does not load) */
  readonly unread?: readonly string[];
  /** the integers' default when it is not DEFAULT_INT, and why */
  readonly defaultInt?: { readonly value: bigint; readonly why: string };
  /** sizes of tensor copies by map, and how each was found */
  readonly tma: readonly SizedMap[];
  /** every tensor map a copy or a store of the run went through */
  readonly tensorMaps: readonly string[];
  /** lines of in-kernel TMA descriptor updates (tensormap.*) that ran: the boxes they set in full are followed (descriptors.ts), the tensormap proxy fences are not */
  readonly descriptorUpdates?: readonly number[];
  /** lines of test_wait the kernel polls (returned false at least once): the run followed one schedule's outcomes */
  readonly polled?: readonly number[];
  /** lines of a try_wait not in a spin loop: its first try at each phase returned false and the kernel went on (a token it may drop) */
  readonly triedFalse?: readonly number[];
  /** lines of generic accesses to another CTA's shared memory (its CTA's exit is checked against them: cta-exit.ts) */
  readonly remoteAccesses?: readonly number[];
  /** CTAs another CTA of the cluster touches: their lifetime slot and exit barrier (cta-exit.ts) */
  readonly ctaExits?: readonly CtaExit[];
  /** lines of Ampere cp.async copies and of their commit_group/wait_group that ran: the copies are taken to land at issue */
  readonly ampereCopies?: readonly number[];
  /** lines of mbarrier.inval only a branch on data reaches (a last-one-out teardown): left out of the program */
  readonly droppedInvals?: readonly number[];
  /** expect_tx byte counts read from launch values not given, taken as what the copies deliver */
  readonly assumedTx?: readonly AssumedTx[];
  /** work counters in global memory the kernel advanced with atom.global.add (taken to start at 0, advanced by this launch alone) */
  readonly counters?: readonly { readonly lines: readonly number[]; readonly adds: number }[];
  /** spin loops on a flag in global memory that another CTA sets, taken to end: the exit test's line, the flag load's, how often */
  readonly spins?: readonly { readonly line: number; readonly flag: number; readonly times: number }[];
  /** where the concrete run first hung, every unfinished warp waiting for another */
  readonly stuck?: string;
  /** mbarrier waits the run was let past after hanging, to record the rest of the kernel */
  readonly forcedWaits?: number;
  /** the run ended hung: the blocked waits are the last operations recorded */
  readonly truncated?: true;
  /** lag roles (fold.ts): each stands for a lagging warp of `of`, whose warps signal at different places, and makes the waits at `lines` again */
  readonly lagging?: readonly { readonly role: string; readonly of: string; readonly lines: readonly number[] }[];
}

export interface KernelTrace {
  readonly kernel: PtxFunction;
  readonly blockThreads: number;
  readonly layout: SmemLayout;
  /** Events per warp, CTA by CTA, in warp order. */
  readonly warps: readonly (readonly WarpEvent[])[];
  /** the CTA (rank in the cluster) of each warp */
  readonly ctaOf: readonly number[];
  readonly run: ClusterRun;
  readonly launch: LaunchValues;
  readonly grid: readonly [number, number, number];
  readonly cluster: readonly [number, number, number];
  /** how the cluster shape was chosen, when the PTX does not declare it and none was given */
  readonly clusterNote?: string;
  /** the kernel's flattened entry and every function with a body (the inert-value slice reads them) */
  readonly flat: FlatFunction;
  readonly flats: ReadonlyMap<string, FlatFunction>;
}

function kernelsOf(module: PtxModule): PtxFunction[] {
  return module.functions.filter((f) => f.kind === 'entry' && f.body !== undefined);
}

/**
 * The kernel `name` names: its exact entry name; else, since C++ entries are mangled
 * (`_ZN7cutlass13device_kernel…32KernelTmaWarpSpecializedPingpong…`), the one whose mangled name
 * holds `name` as a whole identifier (its length prefix and the identifier, so
 * `KernelTmaWarpSpecialized` does not also match `…Cooperative`); else the one whose name contains
 * `name`. At each step more than one match is an error that lists them.
 */
export function pickKernel(module: PtxModule, name: string | undefined): PtxFunction {
  const kernels = kernelsOf(module);
  if (name !== undefined) {
    const exact = kernels.find((f) => f.name === name);
    if (exact) return exact;
    const component = `${name.length}${name}`;
    const steps = [
      kernels.filter((f) => mangledComponentAt(f.name, component)),
      kernels.filter((f) => name !== '' && f.name.includes(name)),
    ];
    for (const matches of steps) {
      if (matches.length === 1) return matches[0]!;
      if (matches.length > 1) throw new InputError(`--kernel '${name}' matches ${matches.length} kernels of ${module.file}; give a longer part of one name:\n${matches.map((f) => `  ${f.name}`).join('\n')}`);
    }
    throw new InputError(`no kernel named '${name}' in ${module.file} (kernels: ${kernels.map((f) => f.name).join(', ') || 'none'})`);
  }
  const only = kernels[0];
  if (kernels.length !== 1 || !only) {
    throw new InputError(`${module.file} has ${kernels.length} kernels; name one with --kernel:\n${kernels.map((f) => `  ${f.name}`).join('\n') || '  (none)'}`);
  }
  return only;
}

/** Whether `component` (a length and an identifier) occurs in mangled `name` where no digit precedes it (a whole length prefix). */
function mangledComponentAt(name: string, component: string): boolean {
  for (let i = name.indexOf(component); i >= 0; i = name.indexOf(component, i + 1)) {
    const before = name.charCodeAt(i - 1);
    if (!(before >= 48 && before <= 57)) return true;
  }
  return false;
}

function blockShape(kernel: PtxFunction, options: LiftOptions): [number, number, number] {
  const dims = options.block !== undefined ? [options.block] : (kernel.perf.reqntid ?? kernel.perf.maxntid);
  if (!dims || dims.length === 0) throw new InputError(`kernel ${kernel.name} has no .reqntid or .maxntid; give the block size with --block N`, kernel.loc);
  const [x = 1, y = 1, z = 1] = dims;
  if (![x, y, z].every((d) => Number.isInteger(d) && d >= 1) || x * y * z > 1024) {
    throw new InputError(`kernel ${kernel.name}: block size ${x}×${y}×${z} is not a valid CTA shape (1 to 1024 threads)`, kernel.loc);
  }
  return [x, y, z];
}

/** The user's launch values, keyed as LaunchValues reads them. */
export function launchAssignment(kernel: PtxFunction, options: LiftOptions): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const [name, value] of options.params ?? []) {
    const { key, value: v } = parseLaunchParam(kernel, name, String(value));
    out.set(key, v);
  }
  if (options.cta !== undefined) out.set(CTA_INDEX, BigInt(options.cta));
  return out;
}

interface Prepared {
  readonly module: PtxModule;
  readonly kernel: PtxFunction;
  readonly flat: FlatFunction;
  readonly flats: ReadonlyMap<string, FlatFunction>;
  readonly layout: SmemLayout;
  readonly block: [number, number, number];
  /**
   * Per cluster size, the shape a run of this kernel was last taken under when the PTX declares
   * none (widened): tried first by the next run, since the shapes before it hang (CUTLASS 2×2:
   * three of them) and a sweep runs the kernel a hundred times.
   */
  readonly shapes: Map<number, { readonly shape: [number, number, number]; readonly hung: readonly string[] }>;
}

export function prepare(module: PtxModule, options: LiftOptions): Prepared {
  const kernel = pickKernel(module, options.kernel);
  const layout = layoutSharedMemory(module);
  const flats = new Map<string, FlatFunction>();
  for (const f of module.functions) if (f.body) flats.set(f.name, flattenFunction(f, module, layout));
  const flat = flats.get(kernel.name);
  if (!flat) throw new InputError(`kernel ${kernel.name} has no body`, kernel.loc);
  return { module, kernel, flat, flats, layout, block: blockShape(kernel, options), shapes: new Map() };
}

/**
 * The CTAs of a multi-CTA cluster whose warps issued no TMA copy and no wgmma while another CTA's
 * did: the launch values leave them without a tile. A host that rounds the tile count up to the
 * cluster size (CUTLASS, FlashAttention-3) never launches that, and a peer that multicasts to
 * such a CTA or waits for its release hangs.
 */
export function idleCtas(trace: Pick<KernelTrace, 'cluster' | 'warps' | 'ctaOf'>): number[] {
  const ctas = trace.cluster[0] * trace.cluster[1] * trace.cluster[2];
  if (ctas <= 1) return [];
  const busy: boolean[] = new Array<boolean>(ctas).fill(false);
  trace.warps.forEach((events, w) => {
    if (events.some((e) => e.k === 'tma.load' || e.k === 'mma')) busy[trace.ctaOf[w] ?? 0] = true;
  });
  const idle = busy.flatMap((b, c) => (b ? [] : [c]));
  return idle.length === ctas ? [] : idle;
}

/** Run one cluster with these launch values and record its warps' events (before any folding). */
export function traceWith(p: Prepared, options: LiftOptions, values: ReadonlyMap<string, bigint>): KernelTrace {
  const declared = p.kernel.perf.reqnctapercluster;
  const fixed: [number, number, number] | undefined = options.cluster
    ? [options.cluster[0], options.cluster[1], options.cluster[2]]
    : declared && declared.length > 0
      ? [declared[0] ?? 1, declared[1] ?? 1, declared[2] ?? 1]
      : undefined;
  try {
    return runShape(p, options, values, fixed ?? [1, 1, 1]);
  } catch (e) {
    // a kernel that addresses another CTA of its cluster, launched here with a smaller cluster:
    // without a declared or given shape, widen the cluster to the rank it needs, once
    const rank = /in CTA (\d+) of a \d+-CTA cluster|multicasts to CTA (\d+) of a/.exec(e instanceof Error ? e.message : '');
    const need = rank ? Number(rank[1] ?? rank[2]) + 1 : 0;
    if (fixed || need <= 1) throw e;
    const named = clusterOfKernelName(p.kernel.name);
    if (named.shape && named.shape[0] * named.shape[1] * named.shape[2] >= need) {
      // the shape the library launches with: a hang under it is the kernel's, not a wrong guess
      const trace = runShape(p, options, values, named.shape);
      const shape = named.shape.join('×');
      return { ...trace, clusterNote: `the PTX does not declare its cluster shape (.reqnctapercluster); it addresses ${need} CTAs: taken as ${shape}, the ClusterShape in the kernel's name (its mainloop's template argument, read with c++filt); give --cluster X,Y,Z for another` };
    }
    let n = 1;
    while (n < need) n *= 2;
    return widened(p, options, values, n, named.noDemangler === true);
  }
}

/**
 * The cluster of n CTAs whose orientation the PTX does not give (CUTLASS reads %cluster_ctaid.x
 * and .y and was compiled for one shape): the first shape, x-major, under which this launch runs to
 * its end; a shape under which it hangs (the CTAs disagree on who multicasts to whom) is a wrong
 * guess, not a finding, unless every shape hangs. The shape an earlier run of the kernel was taken
 * under is tried first (a sweep runs it a hundred times), and the note says so: the shapes before
 * it hung in that run, not necessarily in this one.
 */
function widened(p: Prepared, options: LiftOptions, values: ReadonlyMap<string, bigint>, n: number, noDemangler: boolean): KernelTrace {
  const name = (c: readonly number[]): string => c.join('×');
  const note = `the PTX does not declare its cluster shape (.reqnctapercluster); it addresses ${n} CTAs`;
  const advice = `give --cluster X,Y,Z for the shape it is launched with${noDemangler ? ' (c++filt, which reads the shape of a CUTLASS or FlashAttention-3 kernel from its name, is not on the PATH)' : ''}`;
  const known = p.shapes.get(n);
  if (known) {
    try {
      const trace = runShape(p, options, values, known.shape);
      const earlier = known.hung.length > 0 ? `, the shape an earlier run of this kernel was taken under (it hung there under ${known.hung.join(', ')})` : '';
      if (!trace.run.stuck) return { ...trace, clusterNote: `${note}: taken as ${name(known.shape)}${earlier}; ${advice}` };
    } catch (e) {
      // over a probe's event budget: so it would be under any shape
      if (e instanceof EventBudgetExceeded) throw e;
      // refused under that shape at these values: search again
    }
  }
  const shapes = clusterShapes(n);
  let first: KernelTrace | undefined;
  let error: unknown;
  for (const shape of shapes) {
    let trace: KernelTrace;
    try {
      trace = runShape(p, options, values, shape);
    } catch (e) {
      error ??= e;
      continue;
    }
    if (!trace.run.stuck) {
      const hung = shapes.slice(0, shapes.indexOf(shape)).map(name);
      const why = hung.length > 0 ? `, the first shape under which this launch runs to its end (it hangs under ${hung.join(', ')})` : '';
      p.shapes.set(n, { shape, hung });
      return { ...trace, clusterNote: `${note}: taken as ${name(shape)}${why}; ${advice}` };
    }
    first ??= { ...trace, clusterNote: `${note}: taken as ${name(shape)}; it hangs under every shape of ${n} CTAs (${shapes.map(name).join(', ')}); ${advice}` };
  }
  if (first) return first;
  throw error;
}

/** The shapes of a cluster of n CTAs: all in x first, then y, then z, then the two-dimensional ones. */
function clusterShapes(n: number): [number, number, number][] {
  const out: [number, number, number][] = [
    [n, 1, 1],
    [1, n, 1],
    [1, 1, n],
  ];
  for (let x = 2; x < n; x++) if (n % x === 0) out.push([x, n / x, 1]);
  return n === 1 ? [[1, 1, 1]] : out;
}

function runShape(p: Prepared, options: LiftOptions, values: ReadonlyMap<string, bigint>, cluster: [number, number, number]): KernelTrace {
  const x0 = Number(values.get(CTA_INDEX) ?? BigInt(options.cta ?? 0));
  // a grid left open holds the CTA run (%ctaid.x < %nctaid.x), in whole clusters
  const holding = Math.ceil((x0 + 1) / cluster[0]) * cluster[0];
  const grid: [number, number, number] = options.grid
    ? [options.grid[0], options.grid[1], options.grid[2]]
    : [Math.max(cluster[0], Number(values.get('grid.x') ?? 1), holding), Math.max(cluster[1], Number(values.get('grid.y') ?? 1)), Math.max(cluster[2], Number(values.get('grid.z') ?? 1))];
  if (grid.some((g, i) => g % (cluster[i] ?? 1) !== 0)) {
    throw new InputError(`the grid ${grid.join(',')} is not a whole number of ${cluster.join(',')} clusters`);
  }
  if (x0 >= grid[0]) throw new InputError(`--cta ${x0} is outside the grid ${grid.join(',')} (%ctaid.x runs 0..${grid[0] - 1})`);
  const firstCta: [number, number, number] = [x0 - (x0 % cluster[0]), 0, 0];
  // elements of launch arrays the kernel read and also writes are its own data: run again with
  // them unknown (a write the sequential run made after the read may come first on the GPU)
  let notInputs = new Set<string>();
  const given = new Set(launchAssignment(p.kernel, options).keys());
  let launch: LaunchValues;
  let run: ClusterRun;
  let assigned = values;
  for (;;) {
    launch = new LaunchValues(p.kernel, assigned, notInputs, given, options.defaultInt?.value, (name) => usedAsPointer(p.flat, name));
    run = runCluster(p.flat, p.flats, { block: p.block, grid, cluster, firstCta }, launch, options.maxSteps ?? DEFAULT_MAX_STEPS, options.maxEvents);
    // a 64-bit field one warp read as a null pointer and another as a 32-bit count is a count:
    // again with it at the integers' default, for every warp (not given: the sweep may raise it)
    const counts = [...launch.integerFields].filter((k) => !assigned.has(k));
    if (launch.clobbered.size === 0 && counts.length === 0) break;
    notInputs = new Set([...notInputs, ...launch.clobbered]);
    assigned = new Map([...assigned, ...counts.map((k) => [k, launch.defaultInt] as const)]);
  }
  const blockThreads = p.block[0] * p.block[1] * p.block[2];
  return { kernel: p.kernel, blockThreads, layout: p.layout, warps: run.warps.map((w) => w.events), ctaOf: run.warps.map((w) => w.cta), run, launch, grid, cluster, flat: p.flat, flats: p.flats };
}

/** Execute every warp of one cluster and record its synchronization events (before any folding). */
export function traceKernel(module: PtxModule, options: LiftOptions = {}): KernelTrace {
  const p = prepare(module, options);
  return traceWith(p, options, launchAssignment(p.kernel, options));
}

/** The Program of a trace: resources and roles (per CTA of the cluster). */
export function programOfTrace(module: PtxModule, trace: KernelTrace, options: LiftOptions): { program: Program; facts: LiftFacts } {
  const layout = trace.layout;
  const written = trace.run.descriptorBoxes;
  const sized = sizeTensorCopies(trace.warps, layout, {
    ...(options.tmaBytes !== undefined ? { all: options.tmaBytes } : {}),
    ...(options.tmaBoxes ? { boxes: resolveBoxKeys(trace.kernel, options.tmaBoxes) } : {}),
    ...(written.size > 0 ? { written } : {}),
  });
  const tx = assumeLaunchTx(sized.warps);
  const merged = tx.warps.map(mergeConsecutiveCopies);
  const ctas = trace.cluster[0] * trace.cluster[1] * trace.cluster[2];
  const prologue = hoistPrologue(merged, trace.blockThreads);
  const hints = readHints(module);
  const nw = trace.warps.length / Math.max(1, ctas);
  const label = (ws: readonly number[]): string => {
    const local = ws.map((w) => w % nw);
    const cta = trace.ctaOf[ws[0] ?? 0] ?? 0;
    return ctas > 1 ? `${roleName(local)}_cta${cta}` : roleName(local);
  };
  const cutAndFold = (writerGroup?: (warp: number) => string): { res: ResourceMap; folded: FoldedRole[] } => {
    const res = buildResources(prologue.warps, trace.ctaOf, ctas, layout, prologue.declared, hints.buffers, writerGroup);
    const dataTags = new Map<string, number>();
    const perWarp = prologue.warps.map((events, i) => ({ warp: i, ops: warpOps(events, res, layout, trace.blockThreads, trace.ctaOf[i] ?? 0, ctas, dataTags) }));
    const folded = foldWarps(perWarp, (warps, lines) => {
      const hinted = hintedRole(hints, lines);
      const cta = trace.ctaOf[warps[0] ?? 0] ?? 0;
      return hinted !== undefined ? (ctas > 1 ? `${hinted}_cta${cta}` : hinted) : label(warps);
    }, (w) => trace.ctaOf[w] ?? 0, res.namedBarriers);
    return { res, folded };
  };
  // Slots are cut between warpgroups first (likely roles); where one warpgroup's warps fold into
  // several roles (a warp that also issues the TMA stores), cut again between those roles, so two
  // roles writing disjoint rows of one copy's destination do not share a slot (resources.ts).
  let { res, folded } = cutAndFold();
  const roleOf = new Map(folded.flatMap((f, r) => f.warps.map((w) => [w, r] as const)));
  const spansRoles = (wg: number): boolean => new Set([0, 1, 2, 3].flatMap((i) => roleOf.get(4 * wg + i) ?? [])).size > 1;
  if (Array.from({ length: Math.ceil(trace.warps.length / 4) }, (_, wg) => wg).some(spansRoles)) {
    ({ res, folded } = cutAndFold((w) => `${trace.ctaOf[w] ?? 0}:${Math.floor(w / 4)}:${roleOf.get(w) ?? -1}`));
  }
  // names share one namespace in a Program: params and roles give way to resources
  const taken = new Set(res.resources.map((r) => r.name));
  const fresh = (name: string, prefix: string): string => {
    let n = taken.has(name) ? `${prefix}_${name}` : name;
    for (let i = 2; taken.has(n); i++) n = `${prefix}_${name}_${i}`;
    taken.add(n);
    return n;
  };
  // the scalar parameters the user gave, as the program's params (the lifted program is straight-line: they are a record)
  const given = launchAssignment(trace.kernel, options);
  const params: Param[] = [];
  trace.kernel.params.forEach((p) => {
    const v = given.get(p.name);
    if (v !== undefined && p.elements === undefined) params.push({ name: fresh(identifier(p.name), 'param'), value: Number(BigInt.asIntN(32, v)) });
  });
  // lag roles' named barriers (fold.ts) come after the kernel's own
  const namedBarriers = folded.reduce((n, f) => n + (f.namedBarriers ?? 0), res.namedBarriers);
  // each role's CTA (a lag role's: its main role's), for the exits of the CTAs others touch
  const roleCta = folded.map((f) => trace.ctaOf[f.warps[0] ?? folded[f.lagOf ?? -1]?.warps[0] ?? -1] ?? 0);
  // a CTA must not exit while another CTA still touches its shared memory (cta-exit.ts)
  const exits = withCtaExits(folded.map((f) => ({ ...f.role, name: fresh(f.role.name, 'role') })), roleCta, res.ctaOf, (base) => fresh(base, 'cta'));
  const named = exits.roles;
  const resources = [...res.resources, ...exits.resources];
  const warpgroups = warpgroupsOf(folded, named.map((r) => r.name), nw, (w) => trace.ctaOf[w] ?? 0);
  const idle = idleCtas(trace);
  const unread = unreadGiven(given, trace.launch);
  const facts: LiftFacts = {
    launch: [...trace.launch.reads.values()].map(({ v, value }) => ({ v, value: showLaunch(v, value), given: given.has(v.key) || (v.element !== undefined && given.has(wholeArray(v.key))) })),
    grid: trace.grid,
    cluster: trace.cluster,
    ...sliceFacts(trace),
    ...(trace.clusterNote ? { clusterNote: trace.clusterNote } : {}),
    ...(idle.length > 0 ? { idleCtas: idle } : {}),
    ...(unread.length > 0 ? { unread } : {}),
    ...(options.defaultInt ? { defaultInt: options.defaultInt } : {}),
    tma: sized.maps,
    tensorMaps: [...new Set(trace.warps.flatMap((w) => w.flatMap((e) => ((e.k === 'tma.load' || e.k === 'tma.store') && e.map !== undefined ? [e.map] : []))))],
    ...(trace.run.descriptorUpdates.length > 0 ? { descriptorUpdates: trace.run.descriptorUpdates } : {}),
    ...(trace.run.polled.length > 0 ? { polled: trace.run.polled } : {}),
    ...(trace.run.triedFalse.length > 0 ? { triedFalse: trace.run.triedFalse } : {}),
    ...(trace.run.droppedInvals.length > 0 ? { droppedInvals: trace.run.droppedInvals } : {}),
    ...(trace.run.ampereCopies.length > 0 ? { ampereCopies: trace.run.ampereCopies } : {}),
    ...(trace.run.remoteAccesses.length > 0 ? { remoteAccesses: trace.run.remoteAccesses } : {}),
    ...(exits.exits.length > 0 ? { ctaExits: exits.exits } : {}),
    ...(tx.assumed.length > 0 ? { assumedTx: tx.assumed } : {}),
    ...(trace.launch.counters.size > 0 ? { counters: [...trace.launch.counters.values()].map((c) => ({ lines: [...c.lines].sort((a, b) => a - b), adds: c.adds })) } : {}),
    ...(trace.launch.spins.size > 0 ? { spins: [...trace.launch.spins].map(([line, sp]) => ({ line, flag: sp.flag, times: sp.times })) } : {}),
    ...(trace.run.stuck ? { stuck: trace.run.stuck.map((s) => `warp ${s.warp}${ctas > 1 ? ` of CTA ${s.cta}` : ''} at line ${s.loc.line}`).join(', ') } : {}),
    ...(trace.run.forced > 0 ? { forcedWaits: trace.run.forced } : {}),
    ...(trace.run.complete ? {} : { truncated: true as const }),
    ...(folded.some((f) => f.rechecked) ? { lagging: folded.flatMap((f, i) => (f.rechecked ? [{ role: named[i]?.name ?? '', of: named[f.lagOf ?? -1]?.name ?? '', lines: f.rechecked }] : [])) } : {}),
  };
  const program: Program = {
    params,
    resources,
    roles: named,
    source: module.file,
    ...(namedBarriers > 16 ? { namedBarriers } : {}),
    ...(warpgroups.length > 0 ? { warpgroups } : {}),
  };
  // the result must be a valid Program: a value out of range (an init count of 0, say) is the
  // PTX's problem, reported with the PTX position of the operation
  return { program: validateProgram(program), facts };
}

/** Which launch values read are inert, and why the others are not (inert.ts). */
function sliceFacts(trace: KernelTrace): Pick<LiftFacts, 'inert' | 'decides'> {
  const inert: string[] = [];
  const decides: { key: string; why: string }[] = [];
  for (const { v } of trace.launch.reads.values()) {
    const r = launchRelevance(trace.flat, trace.flats.values(), v);
    if (r.inert) inert.push(v.key);
    else decides.push({ key: v.key, why: r.why });
  }
  return { inert, decides };
}

function showLaunch(v: LaunchVar, value: unknown): string {
  if (typeof value !== 'bigint') return 'symbolic';
  if (v.kind === 'float') {
    const f = new Float32Array(new Uint32Array([Number(BigInt.asUintN(32, value))]).buffer)[0];
    return String(f);
  }
  return String(BigInt.asIntN(v.bytes * 8, value));
}

/** Lift one kernel of a parsed module into an mbarrier-level Program. */
export function liftKernel(module: PtxModule, options: LiftOptions = {}): Program {
  return liftKernelWithFacts(module, options).program;
}

export function liftKernelWithFacts(module: PtxModule, options: LiftOptions = {}): { program: Program; facts: LiftFacts } {
  return programOfTrace(module, traceKernel(module, options), options);
}

/** Parse a PTX file and lift its kernels (all of them, or the one named in options.kernel). */
export function liftPtxFile(text: string, file: string, options: LiftOptions = {}): Array<{ kernel: string; program: Program; facts: LiftFacts }> {
  const module = parsePtx(text, file);
  const names = options.kernel !== undefined ? [pickKernel(module, options.kernel).name] : kernelsOf(module).map((k) => k.name);
  if (names.length === 0) throw new InputError(`${file} has no kernel (.entry with a body)`);
  return names.map((kernel) => ({ kernel, ...liftKernelWithFacts(module, { ...options, kernel }) }));
}

export { kernelsOf, parseDims };

/**
 * Consecutive TMA copies of one thread into adjacent bytes, signalling the same barrier,
 * are one `tma.load` of the summed bytes (convention: a stage may be several copies).
 */
function mergeConsecutiveCopies(events: readonly WarpEvent[]): WarpEvent[] {
  const out: WarpEvent[] = [];
  // the last scattered copy (st.async) with only shared-memory accesses after it: a later one on its
  // barrier joins it, since what it writes is another CTA's and only the phase's completion shows
  // when each landed (its issue moves up past this warp's accesses, never past synchronization)
  let open = -1;
  for (const e of events) {
    const prev = out[out.length - 1];
    const held = open >= 0 ? out[open] : undefined;
    if (e.k === 'tma.load' && e.parts !== undefined && held?.k === 'tma.load' && held.parts !== undefined && sameCopy(held, e)) {
      const runs = mergeRanges([...held.parts, ...e.parts]);
      out[open] = { ...held, dst: runs[0]?.[0] ?? held.dst, bytes: (held.bytes ?? 0) + (e.bytes ?? 0), parts: runs };
      continue;
    }
    if (e.k === 'tma.load' && e.parts !== undefined) {
      out.push(e);
      open = out.length - 1;
      continue;
    }
    if (e.k !== 'read' && e.k !== 'write') open = -1;
    if (e.k === 'tma.load' && prev?.k === 'tma.load' && sameCopy(prev, e) && prev.parts === undefined && e.parts === undefined && prev.dst + (prev.bytes ?? 0) === e.dst) {
      // the merged copy has no single source offset: drop the value tag
      const { src: _src, ...rest } = prev;
      const map = [prev.map, e.map].filter((x) => x !== undefined).join('+');
      out[out.length - 1] = { ...rest, bytes: (prev.bytes ?? 0) + (e.bytes ?? 0), ...(map ? { map } : {}) };
      continue;
    }
    out.push(e);
  }
  return out;
}

type Copy = Extract<WarpEvent, { k: 'tma.load' }>;

/** Two copies of one thread on one barrier, of known sizes, that may be one. */
function sameCopy(a: Copy, b: Copy): boolean {
  return a.bar === b.bar && a.cta === b.cta && a.lane === b.lane && a.copies === b.copies && sameCtas(a.ctas, b.ctas) && a.bytes !== undefined && b.bytes !== undefined;
}

function sameCtas(a: readonly number[] | undefined, b: readonly number[] | undefined): boolean {
  return (a ?? []).join(',') === (b ?? []).join(',');
}

/** The given launch values this run did not read; `[*]` counts as read when any element of its array was. */
function unreadGiven(given: ReadonlyMap<string, bigint>, launch: LaunchValues): string[] {
  const arrays = new Set([...launch.reads.keys()].map(wholeArray));
  return [...given.keys()].filter((k) => !launch.reads.has(k) && !(k.endsWith('[*]') && arrays.has(k)));
}
