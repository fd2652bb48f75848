// The Gluon and Triton kernels python/examples/gluon_suite.py ran on an H100 (issue 8): their PTX
// (gzipped, test/ptx/fixtures/gluon-h100/), what the hardware did (traces/gpu/gluon-h100/results.csv),
// and the violation kinds DESIGN.md's bug classes predict for each mutant number.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { PropertyKind } from '../../src/verify/properties.ts';

export const ROOT = join(import.meta.dirname, '..', '..');
export const FIXTURES = join(ROOT, 'test/ptx/fixtures/gluon-h100');
export const RESULTS = join(ROOT, 'traces/gpu/gluon-h100/results.csv');

/** mutant number (gluon_kernels.py) → what it is and the kinds its bug class predicts */
export const MUTANTS: Readonly<Record<number, { what: string; kinds: readonly PropertyKind[] }>> = {
  1: { what: "producer's empty wait with parity ph (M1)", kinds: ['deadlock'] },
  2: { what: "consumer's ready wait with parity ph ^ 1 (M2)", kinds: ['race', 'fifo', 'protocol'] },
  3: { what: 'expect_tx too small (M3)', kinds: ['race', 'fifo', 'deadlock'] },
  4: { what: 'expect_tx too large (M4)', kinds: ['deadlock'] },
  5: { what: 'release before the read retires (M6)', kinds: ['race'] },
  6: { what: 'a release missing (M8)', kinds: ['deadlock'] },
  7: { what: 'no fence_async_shared before the TMA store (M13)', kinds: ['race'] },
  8: { what: 'no fence_async_shared between smem.load and the release (cross-proxy WAR)', kinds: ['race'] },
  9: { what: "a TMA store's buffer reused before tma.store_wait", kinds: ['race'] },
  10: { what: 'empty barrier count 1 for two consumers (M5, low)', kinds: ['race', 'protocol'] },
  11: { what: 'empty barrier count 3 for two consumers (M5, high)', kinds: ['deadlock'] },
};

export interface GpuCase {
  readonly name: string;
  /** right, corrupt, hang, crash, or error (Triton could not build it) */
  readonly hardware: string;
  readonly runs: string;
  /** the mutant number, 0 for a correct kernel (Triton's own kernels are all correct) */
  readonly mutant: number;
}

export function gpuCases(): GpuCase[] {
  const lines = readFileSync(RESULTS, 'utf8').trim().split('\n').slice(1);
  return lines.map((line) => {
    const [name = '', hardware = '', runs = ''] = line.split(',');
    const m = /_m(\d+)$/.exec(name);
    return { name, hardware, runs, mutant: m ? Number(m[1]) : 0 };
  });
}

export const hasPtx = (name: string): boolean => existsSync(join(FIXTURES, `${name}.ptx.gz`));
export const readPtx = (name: string): string => gunzipSync(readFileSync(join(FIXTURES, `${name}.ptx.gz`))).toString('utf8');
export const readTtgir = (name: string): string | undefined => {
  const f = join(FIXTURES, `${name}.ttgir.gz`);
  return existsSync(f) ? gunzipSync(readFileSync(f)).toString('utf8') : undefined;
};
