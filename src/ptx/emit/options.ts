// What the caller chooses about the kernel: its family, tile shape, element type, name,
// the watchdog bound, and which params are compiled in as constants.
import { InputError } from '../../diag.ts';

export const KERNEL_FAMILIES = ['stream', 'gemm'] as const;
export type KernelFamily = (typeof KERNEL_FAMILIES)[number];
export const DTYPES = ['f32', 'bf16', 'f16'] as const;
export type DType = (typeof DTYPES)[number];

/** A gemm CTA tile: BM×BN outputs, BK of the reduction dimension per k-tile (one pipeline stage). */
export interface GemmTile {
  readonly bm: number;
  readonly bn: number;
  readonly bk: number;
}

export interface EmitOptions {
  readonly kernel: KernelFamily;
  /** gemm: `BMxBN[xBK]` or a GemmTile (default 128x128x64); stream: bytes per chunk (default: the buffer's slot bytes). */
  readonly tile?: string | GemmTile | number;
  /** gemm: bf16 (default) or f16 inputs, fp32 accumulation; stream: f32 only. */
  readonly dtype?: DType;
  /** Debug build: every try_wait spin loop traps after this many failed tries. */
  readonly watchdog?: number;
  /** The kernel's entry name (default arefcheck_<kernel>). */
  readonly name?: string;
  /**
   * Params compiled in as constants (their Program values) instead of kernel params. Default:
   * none, every param is a `.param .u32` named after it (the lifter convention).
   */
  readonly inlineParams?: readonly string[];
  /** gemm: M-tiles per raster group (CTAs of one group share B panels in L2). Default 8. */
  readonly groupM?: number;
  /**
   * gemm with one consumer: 2 lets two CTAs share an SM (one's epilogue overlaps the other's main
   * loop): the register cap at entry becomes 128 and setmaxnreg moves the producer's registers
   * to the consumer (40 / 216). Needs the shared memory of two CTAs to fit (D of 2 or 3 at 128x128). Default 1.
   */
  readonly ctasPerSm?: 1 | 2;
  /**
   * gemm: the consumer roles cooperate on one CTA tile (each reads every stage and owns BM/C rows
   * of the tile) instead of splitting K between them. The Program must be the cooperative pipeline
   * (every consumer role runs the same schedule; `pipelineProgram({ cooperative: true })`). BM may
   * then be 256, and the accumulator limit applies per consumer. Default false.
   */
  readonly cooperative?: boolean;
  /**
   * gemm: a persistent kernel. The Program is the pipeline with `tiles: T` (params K and T): the
   * grid has T times fewer CTAs than output tiles, CTA b computes tiles b + t·gridDim (t < T) in
   * the grouped raster order. A `tma.load … value e` brings k-tile e % K of the CTA's tile e / K;
   * each consumer role is one loop over the tiles, whose every trip starts by zeroing the
   * accumulators and ends (after the Program's `wgmma.wait 0`) by storing the tile. Default false.
   */
  readonly persistent?: boolean;
  /**
   * gemm, persistent: two consumer roles take turns on whole tiles (trip t of consumer c is the
   * CTA's tile 2t + c, all BM×BN outputs in that consumer's accumulators). The Program must be the
   * pingpong pipeline (`pipelineProgram({ pingpong: true, tiles: T })`). Default false.
   */
  readonly pingpong?: boolean;
}

export const DEFAULT_GEMM_TILE: GemmTile = { bm: 128, bn: 128, bk: 64 };

/** Parses `128x128x64` / `128x128` (gemm) or a byte count (stream). */
export function parseTile(kernel: KernelFamily, tileText: string): GemmTile | number {
  const t = tileText.trim();
  if (kernel === 'stream') {
    if (!/^\d+$/.test(t)) throw new InputError(`--tile for the stream kernel is the chunk size in bytes (e.g. 16384), got '${tileText}'`);
    return Number(t);
  }
  const m = /^(\d+)x(\d+)(?:x(\d+))?$/.exec(t);
  if (!m) throw new InputError(`--tile for the gemm kernel is BMxBN or BMxBNxBK (e.g. 128x128x64), got '${tileText}'`);
  return { bm: Number(m[1]), bn: Number(m[2]), bk: m[3] === undefined ? 64 : Number(m[3]) };
}

export function tileText(tile: GemmTile): string {
  return `${tile.bm}x${tile.bn}x${tile.bk}`;
}

/** The gemm tile the options ask for, checked against what the kernel can do. */
export function gemmTileOf(options: EmitOptions): GemmTile {
  const raw = options.tile;
  const tile = raw === undefined ? DEFAULT_GEMM_TILE : typeof raw === 'string' ? parseTile('gemm', raw) : raw;
  if (typeof tile === 'number') throw new InputError('the gemm kernel needs a BMxBN[xBK] tile, not a byte count');
  const elem = options.dtype === 'f32' ? 4 : 2;
  if (tile.bk * elem !== 128) {
    throw new InputError(`gemm tile ${tileText(tile)}: BK must be ${128 / elem} (one 128-byte swizzle row of ${options.dtype ?? 'bf16'})`);
  }
  const coop = options.cooperative === true;
  if (tile.bm !== 64 && tile.bm !== 128 && !(coop && tile.bm === 256)) {
    throw new InputError(`gemm tile ${tileText(tile)}: BM must be 64 or 128${coop ? ' or 256' : ''}`);
  }
  if (tile.bn % 16 !== 0 || tile.bn < 16 || tile.bn > 256) {
    throw new InputError(`gemm tile ${tileText(tile)}: BN must be a multiple of 16 in 16..256`);
  }
  // Cooperative consumers split the rows: the family checks the accumulators per consumer.
  if (!coop && (tile.bm * tile.bn) / 128 > 128) {
    throw new InputError(`gemm tile ${tileText(tile)}: each consumer warpgroup would hold ${(tile.bm * tile.bn) / 128} fp32 accumulators per thread (at most 128 fit)`);
  }
  return tile;
}

/** Bytes one gemm stage brings into a slot: the A tile and the B tile, laid out one after the other. */
export function gemmStageBytes(tile: GemmTile, dtype: DType = 'bf16'): number {
  const elem = dtype === 'f32' ? 4 : 2;
  return (tile.bm + tile.bn) * tile.bk * elem;
}
