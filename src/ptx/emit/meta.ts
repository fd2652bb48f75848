// The `// arefcheck-meta {…}` line: what the GPU harness needs to launch a kernel.
import type { KernelMeta } from './kernel.ts';
import { META_MARK } from './kernel.ts';

export function readMeta(ptx: string): KernelMeta | undefined {
  const line = ptx.split('\n').find((l) => l.startsWith(META_MARK));
  return line === undefined ? undefined : (JSON.parse(line.slice(META_MARK.length)) as KernelMeta);
}
