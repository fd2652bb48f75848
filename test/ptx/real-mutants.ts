// One-line mutants of real kernels: a kernel's PTX with one line changed inside one kernel body.
export interface Mutant {
  /** file under ../shared/corpus */
  readonly file: string;
  /** a substring of the kernel's mangled name */
  readonly kernel: string;
  /** what the edit does, for messages */
  readonly what: string;
  /** the line to change: the nth (0-based) line of the kernel body matching `line` */
  readonly line: RegExp;
  readonly nth?: number;
  /** the changed line: a replacement of `from` in it, or '' to delete the line */
  readonly from: RegExp;
  readonly to: string;
  /** the violation kinds the mutant must show (at least one of them) */
  readonly kinds: readonly string[];
  /** launch values to check instead of the sweep (where the sweep's bigger runs take long) */
  readonly params?: Readonly<Record<string, number>>;
}

/** The kernel's line range [start, end) in `lines`: from its `.entry` to the next function. */
export function kernelRange(lines: readonly string[], kernel: string): [number, number] {
  const start = lines.findIndex((l) => /\.entry\s/.test(l) && l.includes(kernel));
  if (start < 0) throw new Error(`no kernel containing '${kernel}'`);
  let end = lines.findIndex((l, i) => i > start && /^\s*(\.visible\s+|\.weak\s+)?(\.entry|\.func)\s/.test(l));
  if (end < 0) end = lines.length;
  return [start, end];
}

/** The mutated text and the 1-based line that changed. */
export function applyMutant(text: string, m: Mutant): { text: string; line: number } {
  const lines = text.split('\n');
  const [start, end] = kernelRange(lines, m.kernel);
  let seen = 0;
  for (let i = start; i < end; i++) {
    if (!m.line.test(lines[i]!)) continue;
    if (seen++ !== (m.nth ?? 0)) continue;
    const changed = m.to === '' ? '\t// (mutant: line removed)' : lines[i]!.replace(m.from, m.to);
    if (changed === lines[i]) throw new Error(`${m.what}: the edit does not change line ${i + 1}: ${lines[i]}`);
    lines[i] = changed;
    return { text: lines.join('\n'), line: i + 1 };
  }
  throw new Error(`${m.what}: no line ${m.nth ?? 0} matching ${m.line} in kernel ${m.kernel}`);
}

/** The full (mangled) name of the kernel whose name contains `kernel`. */
export function kernelName(text: string, kernel: string): string {
  const lines = text.split('\n');
  const [start] = kernelRange(lines, kernel);
  const m = /\.entry\s+([\w$.]+)/.exec(lines[start]!);
  if (!m?.[1]) throw new Error(`cannot read the kernel name at line ${start + 1}`);
  return m[1];
}

const CUTLASS = 'cutlass_sm90_schedules_c1.ptx';
const FAST = 'fastcu_matmul_1_12.ptx';
const WS = 'KernelTmaWarpSpecializedEE';

/**
 * The mutants: 11 kernels of ../shared/corpus, one line changed in each mutant — an init count, an
 * expect_tx byte count, a parity, a missing wgmma.wait_group, a missing arrive, an arrive to the
 * wrong CTA. (ThunderKittens'
 * GEMM is left out: its double init, a real finding, ends every run before a mutant's bug.)
 */
export const MUTANTS: readonly Mutant[] = [
  { file: CUTLASS, kernel: WS, what: 'CUTLASS WS: empty-barrier init count 999', line: /mbarrier\.init\.shared::cta\.b64/, nth: 1, from: /%r\d+;/, to: '999;', kinds: ['deadlock'] },
  { file: CUTLASS, kernel: WS, what: 'CUTLASS WS: expect_tx of half the stage', line: /mbarrier\.arrive\.expect_tx\.shared::cta\.b64/, from: /%r\d+;/, to: '16384;', kinds: ['race', 'protocol', 'deadlock'] },
  { file: CUTLASS, kernel: WS, what: 'CUTLASS WS: wgmma.wait_group 1 removed', line: /wgmma\.wait_group\.sync\.aligned 1;/, from: /.*/, to: '', kinds: ['race'] },
  { file: CUTLASS, kernel: WS, what: 'CUTLASS WS: consumer release removed', line: /mbarrier\.arrive\.shared::cluster\.b64/, from: /.*/, to: '', kinds: ['deadlock'] },
  { file: CUTLASS, kernel: WS, what: 'CUTLASS WS: consumer wait parity fixed at 0', line: /mbarrier\.try_wait\.parity\.shared::cta\.b64 P1, \[%r19\], %r1236;/, from: /%r1236;/, to: '0;', kinds: ['race', 'protocol'] },
  // the consumer's release goes through mapa to its own rank (a 1-CTA cluster); rank 1 is another CTA,
  // whose producer then sees its empty barrier complete twice per round (both CTAs release into it)
  { file: CUTLASS, kernel: WS, what: 'CUTLASS WS: consumer release to the wrong CTA (mapa rank 1)', line: /mapa\.shared::cluster\.u32\s+remAddr32, %r\d+, %r\d+;/, from: /(remAddr32, %r\d+), %r\d+;/, to: '$1, 1;', kinds: ['protocol', 'deadlock'], params: { '0+8:u32': 128 } },
  { file: CUTLASS, kernel: 'KernelTmaWarpSpecializedCooperative', what: 'CUTLASS Cooperative: consumer release removed', line: /mbarrier\.arrive\.shared::cluster\.b64/, from: /.*/, to: '', kinds: ['deadlock'], params: { '0+1656:u32': 1, '0+12:u32': 512 } },
  { file: CUTLASS, kernel: 'KernelTmaWarpSpecializedPingpong', what: 'CUTLASS Pingpong: consumer release removed', line: /mbarrier\.arrive\.shared::cluster\.b64/, from: /.*/, to: '', kinds: ['deadlock'], params: { '0+1656:u32': 1, '0+12:u32': 512 } },
  { file: FAST, kernel: '_ZN2M213matmul', what: 'fast.cu M2: init count 999', line: /mbarrier\.init/, nth: 0, from: /%r\d+;/, to: '999;', kinds: ['deadlock'] },
  // M2 and M3: warp 0 of the computing warpgroup also issues the copies (one wgmma, two roles)
  { file: FAST, kernel: '_ZN2M213matmul', what: 'fast.cu M2: wgmma.wait_group removed', line: /wgmma\.wait_group\.sync\.aligned 0;/, from: /.*/, to: '', kinds: ['race'] },
  { file: FAST, kernel: 'Lb0EEEviiiP13', what: 'fast.cu M3: expect_tx of half the A tile', line: /mbarrier\.arrive\.expect_tx/, from: /%r\d+;/, to: '8192;', kinds: ['race', 'protocol', 'deadlock'] },
  { file: FAST, kernel: '_ZN2M413matmul', what: 'fast.cu M4: expect_tx of half the stage', line: /mbarrier\.arrive\.expect_tx/, from: /%r\d+;/, to: '8192;', kinds: ['race', 'protocol', 'deadlock'] },
  { file: FAST, kernel: '_ZN2M513matmul', what: 'fast.cu M5: a consumer release removed', line: /mbarrier\.arrive\.shared::cta\.b64/, nth: 4, from: /.*/, to: '', kinds: ['deadlock'] },
  { file: FAST, kernel: '_ZN2M613matmul', what: 'fast.cu M6: wgmma.wait_group removed', line: /wgmma\.wait_group\.sync\.aligned 0;/, from: /.*/, to: '', kinds: ['race'] },
  { file: FAST, kernel: '_ZN2M713matmul', what: 'fast.cu M7: consumer wait parity fixed at 0', line: /mbarrier\.try_wait\.parity\.acquire\.cta\.shared::cta\.b64/, nth: 1, from: /%r\d+;/, to: '0;', kinds: ['race', 'protocol'] },
  { file: FAST, kernel: '_ZN2M713matmul', what: 'fast.cu M7: init count 999', line: /mbarrier\.init/, nth: 0, from: /%r\d+;/, to: '999;', kinds: ['deadlock'] },
  { file: 'cute_tutorial_wgmma_tma_sm90.ptx', kernel: 'S1_IJS5_NS3_ILi2EEEE', what: 'CuTe tutorial: expect_tx of half the stage', line: /mbarrier\.arrive\.expect_tx/, from: /%r\d+;/, to: '8192;', kinds: ['race', 'protocol', 'deadlock'] },
  { file: 'deepgemm_sm90_fp8_gemm_1d2d.ptx', kernel: 'deep_gemm', what: 'DeepGEMM: expect_tx too large', line: /mbarrier\.arrive\.expect_tx/, from: /%r\d+;/, to: '999999;', kinds: ['deadlock', 'protocol'] },
  { file: 'cute_tutorial_wgmma_tma_sm90.ptx', kernel: 'S1_IJNS3_ILi8EEENS3_', what: 'CuTe tutorial (second kernel): full-barrier init count 999', line: /mbarrier\.init/, nth: 0, from: /%r\d+;/, to: '999;', kinds: ['deadlock'] },
];
