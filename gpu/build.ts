// Builds the kernels the GPU harness runs, here (no GPU needed): every config is verified with
// the checker at the K it will run with, emitted as PTX (a plain build for timing and a watchdog
// build that traps on a hang), and listed in .gpu/manifest.json with its verdict. Mutants are
// emitted although they are not verified (arefcheck emit --force semantics).
//   npx tsx gpu/build.ts [smoke|full] [--out .gpu]
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Program } from '../src/ir/program.ts';
import { emitPtx, pipelineForKernel, withoutReads, type EmitOptions } from '../src/ptx/emit/index.ts';
import { verifyProgram } from '../src/verify.ts';
import { MUTANTS, mutate, type MutantId } from './mutants.ts';

type Family = 'stream' | 'gemm';

interface Entry {
  readonly id: string;
  readonly kind: 'perf' | 'check' | 'mutant';
  readonly family: Family;
  readonly depth: number;
  readonly pending: number;
  readonly consumers: number;
  readonly iterations: number;
  /** PTX for timing (no watchdog) and the watchdog build checked first. */
  readonly ptx: string;
  readonly ptxWatchdog: string;
  readonly problem: Record<string, number>;
  readonly verdict: string;
  readonly violation: { kind: string; message: string } | null;
  readonly checkerStates: number;
  readonly mutant: { id: string; what: string } | null;
  readonly trials: number;
  readonly watchdog: number;
}

const args = process.argv.slice(2);
const set = args.find((a) => !a.startsWith('--')) ?? 'smoke';
const outDir = args.includes('--out') ? (args[args.indexOf('--out') + 1] ?? '.gpu') : '.gpu';
/** Failed try_waits before a trap in the watchdog builds (docs/gpu.md "Watchdog"). */
const WATCHDOG = Number(process.env['AREFCHECK_WATCHDOG'] ?? 1_000_000);

const SMS = 132;
const STREAM_CHUNK = 16384;
/** Elements per array in the stream runs: 2^28 fp32 = 1 GiB in, 1 GiB out. */
const STREAM_ELEMS = 2 ** 28;

mkdirSync(join(outDir, 'kernels'), { recursive: true });
const entries: Entry[] = [];
const skipped: { id: string; verdict: string; kind: string | undefined; message: string | undefined }[] = [];

/** Resident CTAs per SM for the stream kernel (H100/H200: 228 KB shared memory, 2048 threads per SM). */
function streamCtasPerSm(depth: number, consumers: number): number {
  const smem = depth * STREAM_CHUNK + 1024 + 1024 + 1024; // buffers + alignment slack + static + reserved
  return Math.min(Math.floor((228 * 1024) / smem), Math.floor(2048 / (128 * (1 + consumers))), 32);
}

function write(name: string, text: string): string {
  const file = join('kernels', `${name}.ptx`);
  writeFileSync(join(outDir, file), text);
  return file;
}

function add(
  kind: Entry['kind'],
  family: Family,
  depth: number,
  pending: number,
  consumers: number,
  size: number,
  opts: {
    mutant?: MutantId;
    forced?: string;
    trials?: number;
    tile?: string;
    watchdog?: number;
    tag?: string;
    inline?: boolean;
    twoPerSm?: boolean;
    noRead?: boolean;
    cooperative?: boolean;
    /** Persistent kernel: output tiles per CTA (the pipeline's `tiles`); the grid is tiles / T CTAs. */
    tiles?: number;
    /** Pingpong consumers (with tiles): consumer c computes the CTA's tiles c, c+2, … */
    pingpong?: boolean;
    groupM?: number;
    problem?: { m: number; n: number; k: number };
  } = {},
): void {
  const emit: EmitOptions = {
    ...(family === 'gemm' ? { kernel: 'gemm' as const, ...(opts.tile ? { tile: opts.tile } : {}) } : { kernel: 'stream' as const, tile: STREAM_CHUNK }),
    ...(opts.inline ? { inlineParams: ['D', 'P', 'C'] } : {}),
    ...(opts.twoPerSm ? { ctasPerSm: 2 as const } : {}),
    ...(opts.cooperative ? { cooperative: true } : {}),
    ...(opts.tiles !== undefined ? { persistent: true } : {}),
    ...(opts.pingpong ? { pingpong: true } : {}),
    ...(opts.groupM !== undefined ? { groupM: opts.groupM } : {}),
  };
  let iterations: number;
  let problem: Record<string, number>;
  if (family === 'gemm') {
    problem = opts.problem ?? { m: size, n: size, k: size };
    iterations = (problem['k'] ?? size) / 64;
  } else {
    const grid = SMS * streamCtasPerSm(depth, consumers);
    iterations = Math.max(1, Math.round(STREAM_ELEMS / (STREAM_CHUNK / 4) / grid));
    problem = { grid, chunks: iterations, chunkBytes: STREAM_CHUNK, elems: grid * iterations * (STREAM_CHUNK / 4) };
  }
  let program: Program = pipelineForKernel({ depth, pending, consumers, iterations, ...(opts.tiles !== undefined ? { tiles: opts.tiles } : {}) }, emit);
  if (opts.mutant) program = mutate(program, opts.mutant);
  if (opts.noRead) program = withoutReads(program);
  const label = [opts.mutant ?? opts.forced, opts.tag].filter((x) => x !== undefined).join('_');
  const id = `${family}_${size}_D${depth}_P${pending}_C${consumers}${label ? `_${label}` : ''}`;
  const report = verifyProgram(program, { maxMs: 120_000 });
  const v = report.violations[0];
  if (!opts.mutant && !opts.forced && report.verdict !== 'verified') {
    skipped.push({ id, verdict: report.verdict, kind: v?.kind, message: v?.message.split('\n')[0] });
    return;
  }
  const name = id.replace(/[^A-Za-z0-9_]/g, '_');
  entries.push({
    id,
    kind,
    family,
    depth,
    pending,
    consumers,
    iterations,
    ptx: write(name, emitPtx(program, { ...emit, name })),
    ptxWatchdog: write(`${name}_wd`, emitPtx(program, { ...emit, name: `${name}_wd`, watchdog: opts.watchdog ?? WATCHDOG })),
    problem,
    verdict: report.verdict,
    violation: v ? { kind: v.kind, message: v.message.split('\n')[0] ?? '' } : null,
    checkerStates: report.stats.states,
    mutant: opts.mutant ? { id: opts.mutant, what: MUTANTS[opts.mutant] } : opts.forced ? { id: opts.forced, what: 'C = 2 consumers with D = 3 (C does not divide D): a consumer can pass a full wait meant for the other' } : null,
    trials: opts.trials ?? 0,
    watchdog: opts.watchdog ?? WATCHDOG,
  });
}

/** The cooperative kernels (two consumer warpgroups sharing every stage of a 128x256 or 256x128 tile), and the previous best for comparison in the same run. */
function cooperativeSet(sizes: readonly number[]): void {
  for (const size of sizes) {
    add('perf', 'gemm', 3, 1, 1, size, { noRead: true, twoPerSm: true, tag: 'noread_2cta' });
    for (const tile of ['128x256x64', '256x128x64']) {
      const t = tile.replace(/x64$/, '');
      for (const [depth, pending] of [[3, 1], [4, 1], [4, 0]] as const) add('perf', 'gemm', depth, pending, 2, size, { tile, cooperative: true, noRead: true, tag: `coop_${t}_noread` });
      add('perf', 'gemm', 4, 1, 2, size, { tile, cooperative: true, tag: `coop_${t}` });
    }
  }
}

/** Output tiles per CTA so that the persistent grid (tiles / T CTAs) fills at most the SMs: T divides the tile count. */
function tilesPerCta(size: number, tile: string): number {
  const [bm = 128, bn = 128] = tile.split('x').map(Number);
  const tiles = (size / bm) * (size / bn);
  let t = Math.ceil(tiles / SMS);
  while (tiles % t !== 0) t++;
  return t;
}

if (set === 'pingpong') {
  // fresh-input checks at 1024 (64 tiles of 128x128 or 64x256), one with an odd T (1024x1152: 72 tiles, T = 3)
  add('check', 'gemm', 4, 0, 2, 1024, { tile: '128x128x64', pingpong: true, noRead: true, tiles: 4, tag: 'ping4_128x128_noread' });
  add('check', 'gemm', 4, 1, 2, 1024, { tile: '128x128x64', pingpong: true, tiles: 8, tag: 'ping8_128x128' });
  add('check', 'gemm', 5, 0, 2, 1024, { tile: '128x128x64', pingpong: true, noRead: true, tiles: 3, problem: { m: 1024, n: 1152, k: 1024 }, tag: 'ping3_128x128_noread_1152' });
  add('check', 'gemm', 4, 0, 2, 1024, { tile: '64x256x64', pingpong: true, noRead: true, tiles: 2, tag: 'ping2_64x256_noread' });
  for (const size of [4096, 8192]) {
    // run 5's best (persistent cooperative 128x256), then the pingpong kernels
    const coopT = tilesPerCta(size, '128x256x64');
    add('perf', 'gemm', 4, 0, 2, size, { tile: '128x256x64', cooperative: true, noRead: true, tiles: coopT, tag: `pers${coopT}_128x256_noread` });
    const tiles = tilesPerCta(size, '128x128x64');
    const pairs: readonly (readonly [number, number])[] = size === 4096 ? [[4, 0], [5, 0], [6, 0], [5, 1], [6, 1]] : [[5, 0], [6, 1]];
    for (const [depth, pending] of pairs) add('perf', 'gemm', depth, pending, 2, size, { tile: '128x128x64', pingpong: true, noRead: true, tiles, tag: `ping${tiles}_128x128_noread` });
    if (size === 4096) {
      add('perf', 'gemm', 5, 0, 2, size, { tile: '128x128x64', pingpong: true, tiles, tag: `ping${tiles}_128x128` });
      const t64 = tilesPerCta(size, '64x256x64');
      for (const [depth, pending] of [[4, 0], [5, 0], [5, 1]] as const) add('perf', 'gemm', depth, pending, 2, size, { tile: '64x256x64', pingpong: true, noRead: true, tiles: t64, tag: `ping${t64}_64x256_noread` });
    }
  }
} else if (set === 'persistent') {
  // fresh-input checks at 1024 with several tiles per CTA (32 tiles, T = 2 and 4)
  add('check', 'gemm', 4, 0, 2, 1024, { tile: '128x256x64', cooperative: true, noRead: true, tiles: 2, tag: 'pers2_128x256_noread' });
  add('check', 'gemm', 4, 1, 2, 1024, { tile: '128x256x64', cooperative: true, tiles: 4, tag: 'pers4_128x256' });
  add('check', 'gemm', 4, 0, 2, 1024, { tile: '256x128x64', cooperative: true, noRead: true, tiles: 2, tag: 'pers2_256x128_noread' });
  for (const size of [4096, 8192]) {
    // the previous best (one tile per CTA), then the persistent kernels
    add('perf', 'gemm', 4, 0, 2, size, { tile: '128x256x64', cooperative: true, noRead: true, tag: 'coop_128x256_noread' });
    for (const tile of ['128x256x64', '256x128x64']) {
      const t = tile.replace(/x64$/, '');
      const tiles = tilesPerCta(size, tile);
      const pairs: readonly (readonly [number, number])[] = size === 4096 ? [[4, 0], [4, 1]] : [[4, 0]];
      for (const [depth, pending] of pairs) add('perf', 'gemm', depth, pending, 2, size, { tile, cooperative: true, noRead: true, tiles, tag: `pers${tiles}_${t}_noread` });
    }
    const tiles = tilesPerCta(size, '128x256x64');
    for (const groupM of [4, 16]) add('perf', 'gemm', 4, 0, 2, size, { tile: '128x256x64', cooperative: true, noRead: true, tiles, groupM, tag: `pers${tiles}_128x256_noread_g${groupM}` });
    if (size === 4096) add('perf', 'gemm', 4, 0, 2, size, { tile: '128x256x64', cooperative: true, tiles, tag: `pers${tiles}_128x256` });
  }
} else if (set === 'coop') {
  add('check', 'gemm', 4, 1, 2, 1024, { tile: '128x256x64', cooperative: true, tag: 'coop_128x256' });
  add('check', 'gemm', 3, 1, 2, 1024, { tile: '256x128x64', cooperative: true, tag: 'coop_256x128' });
  cooperativeSet([4096, 8192]);
} else if (set === 'smoke') {
  add('check', 'stream', 3, 1, 1, 0);
  add('check', 'gemm', 3, 1, 1, 1024);
  add('check', 'gemm', 4, 1, 2, 1024);
  add('perf', 'gemm', 4, 1, 1, 4096);
  add('perf', 'gemm', 4, 1, 2, 4096);
  add('perf', 'gemm', 4, 1, 2, 4096, { inline: true, tag: 'inl' });
  // watchdog calibration: how long a trap takes at two bounds
  add('mutant', 'gemm', 3, 0, 1, 1024, { mutant: 'M8', trials: 1, watchdog: 10_000, tag: 'w1e4' });
  add('mutant', 'gemm', 3, 0, 1, 1024, { mutant: 'M8', trials: 1, watchdog: 1_000_000, tag: 'w1e6' });
  add('mutant', 'gemm', 2, 0, 1, 2048, { mutant: 'M6', trials: 5 });
} else {
  for (const depth of [2, 3, 4]) for (const consumers of [1, 2]) add('perf', 'stream', depth, 1, consumers, 0);
  add('perf', 'stream', 2, 0, 2, 0);
  for (const size of [4096, 8192]) {
    for (const depth of [2, 3, 4]) {
      for (let pending = 0; pending <= 2 && pending < depth; pending++) for (const consumers of [1, 2]) add('perf', 'gemm', depth, pending, consumers, size);
    }
  }
  // variants: two CTAs per SM (one consumer), a 64x256 tile, the pipeline without the FIFO read
  for (const size of [4096, 8192]) {
    for (const [depth, pending] of [[2, 0], [2, 1], [3, 1], [3, 2]] as const) add('perf', 'gemm', depth, pending, 1, size, { twoPerSm: true, tag: '2cta' });
    for (const [depth, pending] of [[3, 1], [4, 1]] as const) add('perf', 'gemm', depth, pending, 1, size, { tile: '64x256x64', tag: 't64x256' });
    add('perf', 'gemm', 4, 1, 1, size, { noRead: true, tag: 'noread' });
    add('perf', 'gemm', 3, 1, 1, size, { noRead: true, twoPerSm: true, tag: 'noread_2cta' });
  }
  // Hangs are deterministic and each trap costs a fresh process: fewer trials for them.
  const trials = Number(process.env['AREFCHECK_TRIALS'] ?? 50);
  const hangTrials = Number(process.env['AREFCHECK_HANG_TRIALS'] ?? 25);
  const hang = { trials: hangTrials, watchdog: 100_000 };
  add('mutant', 'gemm', 3, 1, 1, 1024, { mutant: 'M1', ...hang });
  add('mutant', 'gemm', 3, 1, 1, 1024, { mutant: 'M4', ...hang });
  add('mutant', 'gemm', 2, 2, 1, 1024, { mutant: 'M7', ...hang });
  add('mutant', 'gemm', 3, 0, 1, 1024, { mutant: 'M8', ...hang });
  // The race of M6 needs a TMA to land while the released slot's wgmma still reads: several shapes.
  add('mutant', 'gemm', 2, 0, 1, 2048, { mutant: 'M6', trials });
  add('mutant', 'gemm', 2, 1, 1, 2048, { mutant: 'M6', trials });
  add('mutant', 'gemm', 3, 2, 1, 2048, { mutant: 'M6', trials });
  add('mutant', 'gemm', 2, 1, 1, 256, { mutant: 'M6', trials, problem: { m: 256, n: 256, k: 16384 }, tag: 'l2' });
  add('mutant', 'gemm', 2, 1, 1, 4096, { mutant: 'M6', trials: 20 });
  // two CTAs per SM and two consumers share the tensor cores: each wgmma group takes longer
  add('mutant', 'gemm', 2, 0, 1, 2048, { mutant: 'M6', trials, twoPerSm: true, tag: '2cta' });
  add('mutant', 'gemm', 3, 1, 1, 4096, { mutant: 'M6', trials: 20, twoPerSm: true, tag: '2cta' });
  add('mutant', 'gemm', 4, 0, 2, 2048, { mutant: 'M6', trials });
  // The checker's own finding about the family: C = 2 consumers and a depth C does not divide.
  add('mutant', 'gemm', 3, 1, 2, 2048, { forced: 'CxD', trials });
}

writeFileSync(join(outDir, 'manifest.json'), `${JSON.stringify({ set, watchdog: WATCHDOG, entries, skipped }, null, 1)}\n`);
console.log(`${set}: ${entries.length} kernels in ${outDir}/ (${entries.filter((e) => e.kind === 'mutant').length} mutants); not verified, not built: ${skipped.map((s) => `${s.id} (${s.kind ?? s.verdict})`).join(', ') || 'none'}`);
