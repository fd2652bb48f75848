// The cluster shape a kernel's name gives. CUTLASS and FlashAttention-3 launch a kernel with the
// shape of its collective mainloop's ClusterShape template argument, and their PTX does not
// declare it (.reqnctapercluster): only the mangled name keeps it. The lifter reads it with
// c++filt (binutils) when a kernel addresses another CTA and neither the PTX nor the user gives
// a shape, rather than guessing an orientation (lift.ts `widened`).
import { spawnSync } from 'node:child_process';

export type Dims = [number, number, number];

/** The template arguments of the first `NAME<…>` in a demangled name whose NAME matches, split at top-level commas. */
export function templateArgs(demangled: string, name: RegExp): string[] | undefined {
  const m = new RegExp(`(?:${name.source})<`).exec(demangled);
  if (!m) return undefined;
  const args: string[] = [];
  let depth = 0;
  let start = m.index + m[0].length;
  for (let i = start; i < demangled.length; i++) {
    const c = demangled[i];
    if (c === '<' || c === '(') depth++;
    else if ((c === '>' || c === ')') && depth > 0) depth--;
    else if (depth === 0 && (c === '>' || c === ',')) {
      args.push(demangled.slice(start, i).trim());
      if (c === '>') return args;
      start = i + 1;
    }
  }
  return undefined;
}

/** CUTLASS's sm90 mainloop policies (MainloopSm90TmaGmmaWarpSpecialized<Stages, ClusterShape, …> and kin) and FlashAttention-3's collective mainloops. */
const MAINLOOP = /\bMainloop\w*Sm90\w*|\bCollectiveMainloop(?:Fwd|Bwd)Sm90/;
const STATIC_SHAPE = /^cute::tuple<cute::C<(\d+)>, cute::C<(\d+)>, cute::C<(\d+)> >$/;

/** The cluster shape a demangled kernel name gives: its mainloop's first static (x, y, z) shape argument, the ClusterShape in both libraries. */
export function clusterOfName(demangled: string): Dims | undefined {
  for (const a of templateArgs(demangled, MAINLOOP) ?? []) {
    const m = STATIC_SHAPE.exec(a);
    if (m) return [Number(m[1]), Number(m[2]), Number(m[3])];
  }
  return undefined;
}

/** Demangled names, in order (a name c++filt cannot read comes back as it was); undefined when c++filt is not on the PATH. */
export function demangle(names: readonly string[]): string[] | undefined {
  // --no-recurse-limit: CUTLASS names nest deeper than binutils' default limit lets it read (a
  // c++filt older than binutils 2.31 lacks the flag: then without it)
  const run = (args: string[]) => spawnSync('c++filt', args, { input: names.join('\n'), encoding: 'utf8', timeout: 10_000 });
  let r = run(['--no-recurse-limit']);
  if (r.status !== 0 && !r.error) r = run([]);
  if (r.status !== 0 || typeof r.stdout !== 'string') return undefined;
  const out = r.stdout.split('\n');
  return names.map((n, i) => out[i] ?? n);
}

/** What a mangled kernel name says of its cluster: a shape or none, and whether c++filt was missing to read it. */
export interface NameCluster {
  readonly shape?: Dims;
  readonly noDemangler: boolean;
}

const cache = new Map<string, NameCluster>();

/** The cluster shape kernel `mangled` is compiled for, by its name (cached per name: a sweep asks a hundred times). */
export function clusterOfKernelName(mangled: string): NameCluster {
  let found = cache.get(mangled);
  if (found === undefined) {
    if (!mangled.startsWith('_Z')) found = { noDemangler: false };
    else {
      const demangled = demangle([mangled]);
      const shape = demangled ? clusterOfName(demangled[0] ?? '') : undefined;
      found = shape ? { shape, noDemangler: false } : { noDemangler: demangled === undefined };
    }
    cache.set(mangled, found);
  }
  return found;
}
