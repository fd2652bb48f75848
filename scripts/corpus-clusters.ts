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
import { kernelsOf } from '../src/ptx/lift/lift.ts';
import { parsePtx } from '../src/ptx/parse/parser.ts';

function main(dir: string): void {
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.ptx')).sort()) {
    // kernels that declare their shape keep it, as the lifter does
    const kernels = kernelsOf(parsePtx(readFileSync(join(dir, f), 'utf8'), f)).filter((k) => !k.perf.reqnctapercluster);
    if (kernels.length === 0) continue;
    const demangled = demangle(kernels.map((k) => k.name));
    if (!demangled) {
      console.error('corpus-clusters: c++filt not found (binutils): the lifter will guess the cluster shapes');
      return;
    }
    const lines: string[] = [];
    kernels.forEach((k, i) => {
      const shape = clusterOfName(demangled[i] ?? '');
      if (shape && shape.some((d) => d > 1)) lines.push(`--kernel ^${k.name}$`, `--cluster ${shape.join(',')}`);
    });
    if (lines.length === 0) continue;
    const launch = join(dir, f.replace(/\.ptx$/, '.launch'));
    appendFileSync(launch, [`# cluster shapes from the kernels' ClusterShape template arguments (scripts/corpus-clusters.ts)`, ...lines, ''].join('\n'));
    console.log(`${f}: ${lines.length / 2} kernel(s) with a cluster shape from the name`);
  }
}

if (process.argv[1]?.endsWith('corpus-clusters.ts')) main(process.argv[2] ?? join(import.meta.dirname, '..', '.corpus'));
