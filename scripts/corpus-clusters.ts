// The cluster shape each corpus kernel is compiled for, from its name, for the kernels whose PTX
// does not declare one (.reqnctapercluster): CUTLASS and FlashAttention-3 launch with the shape of
// their collective mainloop's ClusterShape template argument, which only the mangled name keeps
// (src/ptx/lift/cluster-name.ts). The lifter reads it too, but only when a run addresses another
// CTA; written into NAME.launch (`--kernel ^NAME$` / `--cluster X,Y,Z`, read by scripts/corpus.ts)
// it holds at every launch point, and the table shows it with the values given.
// Run by build-corpus.sh after the launch files are written; needs c++filt (binutils).
//   node --import tsx scripts/corpus-clusters.ts DIR
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { clusterOfName, demangle } from '../src/ptx/lift/cluster-name.ts';

function main(dir: string): void {
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.ptx')).sort()) {
    const text = readFileSync(join(dir, f), 'utf8');
    const names = [...text.matchAll(/^\s*(?:\.visible\s+)?\.entry\s+([A-Za-z0-9_$]+)/gm)].map((m) => m[1]!);
    if (names.length === 0) continue;
    const demangled = demangle(names);
    if (!demangled) {
      console.error('corpus-clusters: c++filt not found (binutils): the lifter will guess the cluster shapes');
      return;
    }
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
