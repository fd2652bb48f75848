// `--kernel` on a file of mangled C++ entries: an exact name, else a whole identifier of the
// mangled name, else a unique part of it; an ambiguous name is an error that lists the matches.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/diag.ts';
import { liftPtxFile, parsePtx } from '../../src/ptx/lift/index.ts';
import { pickKernel } from '../../src/ptx/lift/lift.ts';

// CUTLASS's three schedules differ only inside their mangled names, as here
const NAMES = [
  '_ZN7cutlass13device_kernelINS_6kernel24KernelTmaWarpSpecializedEEEvNT_6ParamsE',
  '_ZN7cutlass13device_kernelINS_6kernel35KernelTmaWarpSpecializedCooperativeEEEvNT_6ParamsE',
  '_ZN7cutlass13device_kernelINS_6kernel32KernelTmaWarpSpecializedPingpongEEEvNT_6ParamsE',
] as const;

const entry = (name: string, threads: number): string => `
.visible .entry ${name}(
	.param .u32 ${name}_param_0
)
.maxntid ${threads}, 1, 1
{
	ret;
}
`;
const PTX = `.version 9.0\n.target sm_90a\n.address_size 64\n${NAMES.map((n, i) => entry(n, 32 * (i + 1))).join('')}`;
const module = parsePtx(PTX, 'schedules.ptx');
const pick = (name: string): string => pickKernel(module, name).name;

describe('--kernel on mangled names', () => {
  it('takes the exact name', () => {
    for (const n of NAMES) expect(pick(n)).toBe(n);
  });

  it('takes a whole identifier of a mangled name, not the longer identifiers it begins', () => {
    expect(pick('KernelTmaWarpSpecialized')).toBe(NAMES[0]);
    expect(pick('KernelTmaWarpSpecializedCooperative')).toBe(NAMES[1]);
    expect(pick('KernelTmaWarpSpecializedPingpong')).toBe(NAMES[2]);
  });

  it('takes a part of one name only', () => {
    expect(pick('Pingpong')).toBe(NAMES[2]);
    expect(pick('SpecializedCoop')).toBe(NAMES[1]);
  });

  it('refuses a part of several names, listing them, and a name of none', () => {
    const ambiguous = (): string => pick('device_kernel');
    expect(ambiguous).toThrow(InputError);
    expect(ambiguous).toThrow(/--kernel 'device_kernel' matches 3 kernels of schedules\.ptx/);
    try {
      ambiguous();
    } catch (e) {
      for (const n of NAMES) expect((e as Error).message).toContain(n);
    }
    expect(() => pick('Sm100')).toThrow(/no kernel named 'Sm100'/);
    // an identifier with a longer length prefix before it is not a whole identifier: "1" + "24Kernel…"
    expect(() => pickKernel(parsePtx(PTX.replace('kernel24KernelTmaWarpSpecializedEEE', 'kernel124KernelTmaWarpSpecializedEEE'), 'p.ptx'), 'KernelTmaWarpSpecialized')).toThrow(/matches 3 kernels/);
  });

  it('names the kernel it picked by its whole name in what it lifts', () => {
    const lifted = liftPtxFile(PTX, 'schedules.ptx', { kernel: 'Pingpong' });
    expect(lifted.map((k) => k.kernel)).toEqual([NAMES[2]]);
  });
});
