// `verify KERNEL.ptx` takes the lifter's options: a parameter by position, --cta, --tma-bytes.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const arefcheck = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });

describe('verify on PTX: lifter flags', () => {
  it('a kernel parameter by position is the same as by name', () => {
    const byPosition = arefcheck('verify', 'test/fixtures/cuda/ws_ring_ok.ptx', '--param', '2=8', '--json');
    const byName = arefcheck('verify', 'test/fixtures/cuda/ws_ring_ok.ptx', '--param', 'ws_ring_ok_param_2=8', '--json');
    expect(byPosition.status).toBe(0);
    expect(JSON.parse(byPosition.stdout).stats.states).toBe(JSON.parse(byName.stdout).stats.states);
  });

  it('--cta and --tma-bytes are accepted for .ptx and refused for .aref', () => {
    expect(arefcheck('verify', 'test/fixtures/cuda/ws_ring_ok.ptx', '--param', '2=4', '--cta', '1').status).toBe(0);
    const r = arefcheck('verify', 'examples/double-buffer.aref', '--tma-bytes', '16384');
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe('error: --tma-bytes applies to .ptx files only');
  });

  it('a grid left open holds the CTA given; a grid given that does not is refused with one message', () => {
    const held = arefcheck('verify', 'test/fixtures/cuda/ws_ring_ok.ptx', '--param', '2=4', '--cta', '5', '--no-sweep', '--json');
    expect(held.status).toBe(0);
    expect(JSON.parse(held.stdout).notes).toContain('grid 6×1×1, cluster 1×1×1');
    const outside = arefcheck('verify', 'test/fixtures/cuda/ws_ring_ok.ptx', '--cta', '5', '--grid', '4,1,1');
    expect(outside.status).toBe(2);
    expect(outside.stderr).toContain('--cta 5 is outside the grid 4,1,1 (%ctaid.x runs 0..3)');
    expect(outside.stderr).not.toContain('    at ');
  });
});

describe('verify on PTX: --tma-box', () => {
  const triton = 'test/ptx/fixtures/triton-3.6-gemm-tma-3stage-128x128x64-w4.ptx';
  const boxNotes = (stdout: string): string[] => (JSON.parse(stdout).notes as string[]).filter((n) => n.startsWith('TMA box'));

  it('takes a tensor map by parameter index, as the notes print long names, and by name', () => {
    const byIndex = arefcheck('verify', triton, '--tma-box', '0=16384', '--tma-box', '5+0=8192', '--json');
    const byName = arefcheck('verify', triton, '--tma-box', 'matmul_tma_param_0+0=16384', '--tma-box', 'matmul_tma_param_5=8192', '--json');
    for (const r of [byIndex, byName]) {
      // half of B's box: the expect_tx is never met, so the consumer waits for ever
      expect(r.status).toBe(1);
      expect(JSON.parse(r.stdout).violations[0].kind).toBe('deadlock');
      expect(boxNotes(r.stdout)).toEqual([
        'TMA box of matmul_tma_param_0+0: 16384 bytes, as given (--tma-box, --ttgir or --triton-cache)',
        'TMA box of matmul_tma_param_5+0: 8192 bytes, as given (--tma-box, --ttgir or --triton-cache)',
      ]);
    }
  });

  it('refuses a map no copy goes through, naming the maps there are', () => {
    const r = arefcheck('verify', triton, '--tma-box', '3=16384');
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe('error: --tma-box 3: no TMA copy of kernel matmul_tma goes through that tensor map (its maps: matmul_tma_param_0+0, matmul_tma_param_5+0, matmul_tma_param_10+0)');
  });
});

describe('pipeline --cooperative', () => {
  it('verifies at the mbarrier level, deadlocks when D <= P, and emits a gemm kernel', () => {
    expect(arefcheck('pipeline', '--depth', '3', '--pending', '1', '--consumers', '2', '--iterations', '6', '--cooperative').status).toBe(0);
    const dead = arefcheck('pipeline', '--depth', '2', '--pending', '2', '--consumers', '2', '--iterations', '6', '--cooperative', '--json');
    expect(dead.status).toBe(1);
    expect(JSON.parse(dead.stdout).violations[0].kind).toBe('deadlock');
    const stream = arefcheck('pipeline', '--depth', '3', '--pending', '1', '--consumers', '2', '--iterations', '6', '--cooperative', '--emit-ptx', '/dev/null');
    expect(stream.status).toBe(2);
    expect(stream.stderr.trim()).toBe('error: --cooperative goes with --kernel gemm');
  });
});

describe('pipeline --tiles', () => {
  it('a persistent loop over tiles verifies, refuses turn-taking consumers, and emits a persistent gemm', () => {
    expect(arefcheck('pipeline', '--depth', '3', '--pending', '1', '--consumers', '1', '--iterations', '4', '--tiles', '3').status).toBe(0);
    const turns = arefcheck('pipeline', '--depth', '3', '--pending', '1', '--consumers', '2', '--iterations', '4', '--tiles', '3');
    expect(turns.status).toBe(2);
    expect(turns.stderr).toMatch(/needs one consumer or cooperative consumers/);
    const emitted = arefcheck('pipeline', '--depth', '4', '--pending', '0', '--consumers', '2', '--iterations', '4', '--tiles', '2', '--cooperative', '--emit-ptx', '/dev/null', '--kernel', 'gemm', '--tile', '128x256x64');
    expect(emitted.status).toBe(0);
  });
});
