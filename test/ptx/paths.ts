// Fixture paths of the PTX tests.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const TRITON = fileURLToPath(new URL('./fixtures/triton-3.6-gemm-tma-3stage-128x128x64-w4.ptx', import.meta.url));
export const CUDA_DIR = fileURLToPath(new URL('../fixtures/cuda/', import.meta.url));
export const CUDA_KERNELS = ['ws_ring_ok', 'ws_ring_parity_bug', 'ws_ring_early_release'] as const;

export const read = (path: string): string => readFileSync(path, 'utf8');
export const cudaPtx = (kernel: (typeof CUDA_KERNELS)[number]): string => `${CUDA_DIR}${kernel}.ptx`;

/** The Triton sample's K-dimension param for a number of k-tiles (BK = 64). */
export const tritonParams = (kTiles: number): Map<string, number> => new Map([['matmul_tma_param_17', 64 * kTiles]]);
