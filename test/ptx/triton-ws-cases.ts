// The kernels python/examples/triton_ws_suite.py ran on an H200: their PTX (gzipped,
// test/ptx/fixtures/triton-ws/), what the hardware did (traces/gpu/triton-ws/results.csv), and the
// edit python/examples/triton_ws_patch.py ran (traces/gpu/triton-ws/patch.txt).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { liftPtx } from '../../src/api.ts';
import { deadBarriers } from '../../src/verify/dead-barriers.ts';

export const ROOT = join(import.meta.dirname, '..', '..');
const FIXTURES = join(ROOT, 'test/ptx/fixtures/triton-ws');
const TRACES = join(ROOT, 'traces/gpu/triton-ws');

export const readPtx = (name: string): string => gunzipSync(readFileSync(join(FIXTURES, `${name}.ptx.gz`))).toString('utf8');

export interface TritonCase {
  readonly name: string;
  /** right or corrupt (three runs each) */
  readonly hardware: string;
  /** the compiler warp-specialized it (`ttg.warp_specialize` in its TTGIR) */
  readonly specialized: boolean;
}

export function tritonCases(): TritonCase[] {
  const ws = new Set(readFileSync(join(TRACES, 'ws.txt'), 'utf8').trim().split('\n').filter((l) => l.endsWith(' ws')).map((l) => l.split(' ')[0]));
  return readFileSync(join(TRACES, 'results.csv'), 'utf8').trim().split('\n').slice(1).map((l) => {
    const [name = '', hardware = ''] = l.split(',');
    return { name, hardware, specialized: ws.has(name) };
  });
}

/** What the patched runs computed: case → variant (control, drop) → the three runs. */
export function patchRuns(): Map<string, Map<string, string[]>> {
  const out = new Map<string, Map<string, string[]>>();
  for (const line of readFileSync(join(TRACES, 'patch.txt'), 'utf8').split('\n')) {
    if (!line.startsWith('RESULT ')) continue;
    const r = JSON.parse(line.slice(7)) as { case: string; variant: string; runs: string[] };
    out.set(r.case, (out.get(r.case) ?? new Map<string, string[]>()).set(r.variant, r.runs));
  }
  return out;
}

/**
 * The PTX lines of every `init` of a barrier array nothing but `init` touches (no wait, arrive or
 * copy): the dead barriers whose repeated inits the checker reports. Sorted.
 */
export function deadInitLines(ptx: string): number[] {
  const [lifted] = liftPtx(ptx, { file: 'k.ptx' });
  return lifted ? deadBarriers(lifted.program).flatMap((d) => d.lines).sort((a, b) => a - b) : [];
}

/** The PTX with those lines commented out (the `drop` variant of triton_ws_patch.py). */
export function dropLines(ptx: string, lines: readonly number[]): string {
  const text = ptx.split('\n');
  for (const n of lines) text[n - 1] = `\t// dropped: ${text[n - 1]?.trim()}`;
  return text.join('\n');
}
