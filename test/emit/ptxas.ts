// Runs ptxas -arch=sm_90a -v on emitted kernels, a few child processes at a time, and reads its
// resource report (registers, spills, stack frame) and informational messages.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PtxasResult {
  readonly name: string;
  readonly ok: boolean;
  /** Everything ptxas printed. */
  readonly log: string;
  readonly registers?: number;
  readonly spillStores?: number;
  readonly spillLoads?: number;
  readonly stackFrame?: number;
  /** Message codes such as C7517 (wgmma serialized) or C7508 (setmaxnreg ignored). */
  readonly codes: readonly string[];
}

export const PTXAS = process.env['PTXAS'] ?? 'ptxas';

/** The same question, answered at once (for describe.skipIf). */
export function ptxasAvailableSync(): boolean {
  return spawnSync(PTXAS, ['--version']).status === 0;
}

export function ptxasAvailable(): Promise<boolean> {
  return new Promise((resolve) => execFile(PTXAS, ['--version'], (err) => resolve(err === null)));
}

function runOne(dir: string, name: string, ptx: string): Promise<PtxasResult> {
  const file = join(dir, `${name}.ptx`);
  writeFileSync(file, ptx);
  return new Promise((resolve) => {
    execFile(PTXAS, ['-arch=sm_90a', '-v', '-o', join(dir, `${name}.cubin`), file], { maxBuffer: 1 << 24 }, (err, stdout, stderr) => {
      const log = `${stdout}${stderr}`;
      const num = (re: RegExp): number | undefined => {
        const m = re.exec(log);
        return m?.[1] === undefined ? undefined : Number(m[1]);
      };
      const codes = [...new Set([...log.matchAll(/\((C\d{4})\)/g)].map((m) => m[1] ?? ''))];
      resolve({
        name,
        ok: err === null,
        log,
        ...optional('registers', num(/Used (\d+) registers/)),
        ...optional('spillStores', num(/(\d+) bytes spill stores/)),
        ...optional('spillLoads', num(/(\d+) bytes spill loads/)),
        ...optional('stackFrame', num(/(\d+) bytes stack frame/)),
        codes,
      });
    });
  });
}

function optional<K extends string>(key: K, v: number | undefined): { [P in K]?: number } {
  return (v === undefined ? {} : { [key]: v }) as { [P in K]?: number };
}

/** Assembles every kernel, `parallel` ptxas processes at a time (the CI machine has 2 cores). */
export async function assembleAll(kernels: readonly { name: string; ptx: string }[], parallel = 2): Promise<PtxasResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'arefcheck-ptxas-'));
  try {
    const results: PtxasResult[] = new Array<PtxasResult>(kernels.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < kernels.length) {
        const i = next++;
        const k = kernels[i];
        if (k) results[i] = await runOne(dir, k.name, k.ptx);
      }
    };
    await Promise.all(Array.from({ length: parallel }, worker));
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
