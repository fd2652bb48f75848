// The cluster shape each corpus kernel is compiled for, from its name, for the kernels whose PTX
// does not declare one (.reqnctapercluster): CUTLASS and FlashAttention-3 launch with the shape of
// their collective mainloop's ClusterShape template argument, which only the mangled name keeps.
// Appends `--kernel ^NAME$` / `--cluster X,Y,Z` to NAME.launch (scripts/corpus.ts reads it), so the
// corpus table judges each kernel under the shape it is launched with instead of the lifter's guess.
// Run by build-corpus.sh after the launch files are written; needs c++filt (binutils).
//   node --import tsx scripts/corpus-clusters.ts DIR
import { spawnSync } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

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
export function clusterOfName(demangled: string): [number, number, number] | undefined {
  const args = templateArgs(demangled, MAINLOOP);
  for (const a of args ?? []) {
    const m = STATIC_SHAPE.exec(a);
    if (m) return [Number(m[1]), Number(m[2]), Number(m[3])];
  }
  return undefined;
}

function main(dir: string): void {
  const probe = spawnSync('c++filt', ['--version'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    console.error('corpus-clusters: c++filt not found (binutils): the lifter will guess the cluster shapes');
    return;
  }
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.ptx')).sort()) {
    const text = readFileSync(join(dir, f), 'utf8');
    const names = [...text.matchAll(/^\s*(?:\.visible\s+)?\.entry\s+([A-Za-z0-9_$]+)/gm)].map((m) => m[1]!);
    if (names.length === 0) continue;
    const demangled = spawnSync('c++filt', ['--no-recurse-limit'], { input: names.join('\n'), encoding: 'utf8' }).stdout.split('\n');
    const lines: string[] = [];
    names.forEach((name, i) => {
      const shape = clusterOfName(demangled[i] ?? '');
      if (!shape || shape.every((d) => d === 1) || declaresCluster(text, name)) return;
      lines.push(`--kernel ^${name}$`, `--cluster ${shape.join(',')}`);
    });
    if (lines.length === 0) continue;
    const launch = join(dir, f.replace(/\.ptx$/, '.launch'));
    appendFileSync(launch, [`# cluster shapes from the kernels' ClusterShape template arguments (scripts/corpus-clusters.ts)`, ...lines, ''].join('\n'));
    console.log(`${f}: ${lines.length / 2} kernel(s) with a cluster shape from the name`);
  }
}

/** Whether kernel `name`'s directives declare its cluster shape. */
function declaresCluster(text: string, name: string): boolean {
  const at = text.indexOf(`.entry ${name}`);
  const body = text.indexOf('{', at);
  return at >= 0 && /\.reqnctapercluster|\.explicitcluster/.test(text.slice(at, body < 0 ? undefined : body));
}

if (process.argv[1]?.endsWith('corpus-clusters.ts')) main(process.argv[2] ?? join(import.meta.dirname, '..', '.corpus'));
