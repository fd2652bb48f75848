// PTX kernel → mbarrier-level Program: run every warp of one CTA concretely, then turn the
// recorded synchronization into resources and roles (docs/ptx.md).
import { InputError } from '../../diag.ts';
import type { Param, Program } from '../../ir/program.ts';
import type { PtxFunction, PtxModule } from '../parse/ast.ts';
import { parsePtx } from '../parse/parser.ts';
import type { WarpEvent } from './events.ts';
import { flattenFunction, type FlatFunction } from './flatten.ts';
import { foldWarps } from './fold.ts';
import { hintedRole, readHints } from './hints.ts';
import { identifier, roleName } from './names.ts';
import { validateProgram } from '../../lang/validate.ts';
import { CtaBudget, WarpInterp, type Launch } from './interp.ts';
import { hoistPrologue } from './prologue.ts';
import { buildResources } from './resources.ts';
import { layoutSharedMemory, type SmemLayout } from './smem-layout.ts';
import { sizeTensorCopies } from './tma-bytes.ts';
import { warpOps } from './warp-ops.ts';

export interface LiftOptions {
  /** Kernel to lift; required by liftKernel when the module has several. */
  readonly kernel?: string;
  /** Kernel parameter values, by name or by position ("0", "1", …). */
  readonly params?: ReadonlyMap<string, number>;
  /** Threads per block (x); default from `.reqntid` / `.maxntid`. */
  readonly block?: number;
  /** Which CTA to execute (%ctaid.x); default 0. */
  readonly cta?: number;
  /** Bytes of every tensor TMA copy, when the layout cannot tell (see tma-bytes.ts). */
  readonly tmaBytes?: number;
  /** Budget of executed PTX instructions for the whole CTA; default 5,000,000. */
  readonly maxSteps?: number;
}

export const DEFAULT_MAX_STEPS = 5_000_000;

export interface KernelTrace {
  readonly kernel: PtxFunction;
  readonly blockThreads: number;
  readonly layout: SmemLayout;
  /** Events per warp, in warp order. */
  readonly warps: readonly (readonly WarpEvent[])[];
}

function kernelsOf(module: PtxModule): PtxFunction[] {
  return module.functions.filter((f) => f.kind === 'entry' && f.body !== undefined);
}

function pickKernel(module: PtxModule, name: string | undefined): PtxFunction {
  const kernels = kernelsOf(module);
  if (name !== undefined) {
    const k = kernels.find((f) => f.name === name);
    if (!k) throw new InputError(`no kernel named '${name}' in ${module.file} (kernels: ${kernels.map((f) => f.name).join(', ') || 'none'})`);
    return k;
  }
  const only = kernels[0];
  if (kernels.length !== 1 || !only) {
    throw new InputError(`${module.file} has ${kernels.length} kernels (${kernels.map((f) => f.name).join(', ') || 'none'}); name one with --kernel`);
  }
  return only;
}

function launchShape(kernel: PtxFunction, options: LiftOptions): Launch {
  const dims = options.block !== undefined ? [options.block] : (kernel.perf.reqntid ?? kernel.perf.maxntid);
  if (!dims || dims.length === 0) {
    throw new InputError(`kernel ${kernel.name} has no .reqntid or .maxntid; give the block size with --block N`, kernel.loc);
  }
  const [x = 1, y = 1, z = 1] = dims;
  if (![x, y, z].every((d) => Number.isInteger(d) && d >= 1) || x * y * z > 1024) {
    throw new InputError(`kernel ${kernel.name}: block size ${x}×${y}×${z} is not a valid CTA shape (1 to 1024 threads)`, kernel.loc);
  }
  return { block: [x, y, z], cta: [options.cta ?? 0, 0, 0] };
}

/** Execute every warp of one CTA and record its synchronization events (before any folding). */
export function traceKernel(module: PtxModule, options: LiftOptions = {}): KernelTrace {
  const kernel = pickKernel(module, options.kernel);
  for (const name of options.params?.keys() ?? []) {
    const byPos = /^\d+$/.test(name) ? kernel.params[Number(name)] : undefined;
    if (!byPos && !kernel.params.some((p) => p.name === name)) {
      throw new InputError(`kernel ${kernel.name} has no parameter '${name}' (parameters: ${kernel.params.map((p) => p.name).join(', ') || 'none'})`);
    }
  }
  const launch = launchShape(kernel, options);
  const layout = layoutSharedMemory(module);
  const flats = new Map<string, FlatFunction>();
  for (const f of module.functions) if (f.body) flats.set(f.name, flattenFunction(f, module, layout));
  const flat = flats.get(kernel.name);
  if (!flat) throw new InputError(`kernel ${kernel.name} has no body`, kernel.loc);
  const blockThreads = launch.block[0] * launch.block[1] * launch.block[2];
  const nwarps = Math.ceil(blockThreads / 32);
  const budget = new CtaBudget(options.maxSteps ?? DEFAULT_MAX_STEPS);
  const params = options.params ?? new Map<string, number>();
  const warps: WarpEvent[][] = [];
  for (let w = 0; w < nwarps; w++) {
    warps.push(new WarpInterp(w, flat, flats, launch, { params, maxSteps: budget.max }, budget).run());
  }
  return { kernel, blockThreads, layout, warps };
}

/** Lift one kernel of a parsed module into an mbarrier-level Program. */
export function liftKernel(module: PtxModule, options: LiftOptions = {}): Program {
  const trace = traceKernel(module, options);
  const layout = trace.layout;
  const sized = sizeTensorCopies(trace.warps, layout, options.tmaBytes);
  const merged = sized.map(mergeConsecutiveCopies);
  const prologue = hoistPrologue(merged, trace.blockThreads);
  const hints = readHints(module);
  const res = buildResources(prologue.warps, layout, prologue.declared, hints.buffers);
  const perWarp = prologue.warps.map((events, warp) => ({ warp, ops: warpOps(events, res, trace.blockThreads) }));
  const roles = foldWarps(perWarp, (warps, lines) => hintedRole(hints, lines) ?? roleName(warps));
  // names share one namespace in a Program: params and roles give way to resources
  const taken = new Set(res.resources.map((r) => r.name));
  const fresh = (name: string, prefix: string): string => {
    let n = taken.has(name) ? `${prefix}_${name}` : name;
    for (let i = 2; taken.has(n); i++) n = `${prefix}_${name}_${i}`;
    taken.add(n);
    return n;
  };
  const params: Param[] = [];
  trace.kernel.params.forEach((p, i) => {
    const v = options.params?.get(p.name) ?? options.params?.get(String(i));
    if (v !== undefined) params.push({ name: fresh(identifier(p.name), 'param'), value: v });
  });
  const named = roles.map((r) => ({ ...r, name: fresh(r.name, 'role') }));
  // the result must be a valid Program: a value out of range (an init count of 0, say) is the
  // PTX's problem, reported with the PTX position of the operation
  return validateProgram({ params, resources: res.resources, roles: named, source: module.file });
}

/** Parse a PTX file and lift its kernels (all of them, or the one named in options.kernel). */
export function liftPtxFile(text: string, file: string, options: LiftOptions = {}): Array<{ kernel: string; program: Program }> {
  const module = parsePtx(text, file);
  const names = options.kernel !== undefined ? [options.kernel] : kernelsOf(module).map((k) => k.name);
  if (names.length === 0) throw new InputError(`${file} has no kernel (.entry with a body)`);
  return names.map((kernel) => ({ kernel, program: liftKernel(module, { ...options, kernel }) }));
}

/**
 * Consecutive TMA copies of one thread into adjacent bytes, signalling the same barrier,
 * are one `tma.load` of the summed bytes (convention: a stage may be several copies).
 */
function mergeConsecutiveCopies(events: readonly WarpEvent[]): WarpEvent[] {
  const out: WarpEvent[] = [];
  for (const e of events) {
    const prev = out[out.length - 1];
    if (
      e.k === 'tma.load' && prev?.k === 'tma.load' && prev.bar === e.bar && prev.lane === e.lane && prev.copies === e.copies &&
      prev.bytes !== undefined && e.bytes !== undefined && prev.dst + prev.bytes === e.dst
    ) {
      // the merged copy has no single source offset: drop the value tag
      const { src: _src, ...rest } = prev;
      const map = [prev.map, e.map].filter((x) => x !== undefined).join('+');
      out[out.length - 1] = { ...rest, bytes: prev.bytes + e.bytes, ...(map ? { map } : {}) };
      continue;
    }
    out.push(e);
  }
  return out;
}
