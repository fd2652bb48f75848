// `arefcheck lift` as a user meets it: a spawned process, its output and exit codes.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { programFromJson } from '../../src/lang/json.ts';
import { parseAref } from '../../src/lang/parser.ts';
import { stripLocs } from '../../src/lang/strip.ts';
import { liftPtxFile } from '../../src/ptx/lift/index.ts';
import { cudaPtx, read, ROOT, TRITON, tritonParams } from './paths.ts';

function arefcheck(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const triton = relative(ROOT, TRITON);

describe('arefcheck lift', () => {
  it('--print shows the Triton pipeline in .aref syntax, each op with its PTX line, and it parses back', () => {
    const r = arefcheck('lift', triton, '--print', '--param', 'matmul_tma_param_17=256');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^param matmul_tma_param_17 = 256\n\nmbarrier smem_98304\[1\] count 1\nmbarrier smem_98312\[2\]\nbuffer smem_0\[3\] bytes 16384\nbuffer smem_49152\[3\] bytes 16384\n\nrole warps0_3 warps 4:\n/);
    expect(r.stdout).toMatch(/^ {2}wait smem_98304\[0\], 0 +# line 434$/m);
    expect(r.stdout).toMatch(/^ {2}tma\.load smem_0\[0\] -> smem_98304\[0\], 16384 +# line 111$/m);
    const parsed = parseAref(r.stdout, 'lifted.aref');
    const [direct] = liftPtxFile(read(TRITON), triton, { params: tritonParams(4) });
    expect(stripLocs(parsed)).toEqual(stripLocs(direct?.program ?? parsed));
  });

  it('--no-lines leaves the comments out; --json gives the machine form, one entry per kernel', () => {
    const plain = arefcheck('lift', triton, '--no-lines', '--param', '17=128');
    expect(plain.status).toBe(0);
    expect(plain.stdout).not.toMatch(/# line/);
    const json = arefcheck('lift', triton, '--json', '--param', 'matmul_tma_param_17=128');
    expect(json.status).toBe(0);
    const entries = JSON.parse(json.stdout) as Array<{ kernel: string; program: unknown }>;
    expect(entries.map((e) => e.kernel)).toEqual(['matmul_tma']);
    const program = programFromJson(JSON.stringify(entries[0]?.program), 'lifted.json');
    expect(program.roles.map((x) => x.name)).toEqual(['warps0_3']);
  });

  it('lifts every kernel of a file when none is named, with a header per kernel', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lift-'));
    const file = join(dir, 'two.ptx');
    writeFileSync(file, `${read(cudaPtx('ws_ring_ok'))}\n${read(cudaPtx('ws_ring_parity_bug')).replace(/^\.version[\s\S]*?\.address_size 64/m, '')}`);
    const r = arefcheck('lift', file, '--param', '2=2');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.match(/^# kernel \w+$/gm)).toEqual(['# kernel ws_ring_ok', '# kernel ws_ring_parity_bug']);
  });

  it('unsupported PTX: exit 2, one line with file:line:col, no stack', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lift-'));
    const file = join(dir, 'blackwell.ptx');
    writeFileSync(file, '.version 8.7\n.target sm_100a\n.address_size 64\n.visible .entry k()\n.reqntid 32\n{\n\ttcgen05.fence::after_thread_sync;\n\tret;\n}\n');
    const r = arefcheck('lift', file);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:7:2: error: unsupported: 'tcgen05\\.fence::after_thread_sync' at line 7 \\(Blackwell`));
  });

  it.each([
    [['no-such.ptx'], /^error: cannot read 'no-such\.ptx' \(ENOENT\)$/],
    [[triton, '--param', 'K'], /^error: --param expects NAME=V or NAME\+OFFSET:TYPE=V, got 'K'$/],
    [[triton, '--param', 'matmul_tma_param_17=abc'], /^error: --param matmul_tma_param_17=abc: not an integer$/],
    [[triton, '--grid', '0,1'], /^error: .*grid/],
    [[triton, '--param', 'nope=1'], /^error: kernel matmul_tma has no parameter 'nope'/],
    [[triton, '--kernel', 'other', '--param', '17=64'], /^error: no kernel named 'other'/],
    [[triton, '--block', '0'], /^error: --block expects an integer in 1\.\.1024, got '0'$/],
    [[], /arefcheck lift: missing FILE\.ptx/],
  ])('bad input %j: exit 2 and one line', (args, message) => {
    const r = arefcheck('lift', ...args);
    expect(r.status).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr.trimEnd()).toMatch(message);
  });

  it("takes verify's launch flags: a field's syntax on a scalar at offset 0 is the scalar, --grid and --cluster", () => {
    const ring = relative(ROOT, cudaPtx('ws_ring_ok'));
    const plain = arefcheck('lift', ring, '--param', '2=8', '--json');
    const field = arefcheck('lift', ring, '--param', '2+0:u32=8', '--grid', '1,1,1', '--cluster', '1,1,1', '--json');
    expect(plain.status, plain.stderr).toBe(0);
    expect(field.status, field.stderr).toBe(0);
    expect(field.stdout).toBe(plain.stdout);
    expect(arefcheck('lift', ring, '--param', '2=4', '--json').stdout).not.toBe(plain.stdout);
    const bad = arefcheck('lift', ring, '--param', '2+4:u32=8');
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim()).toBe('error: --param 2+4:u32: parameter ws_ring_ok_param_2 is a scalar .u32, not a struct: give --param ws_ring_ok_param_2=V');
  });

  it('takes an element of a launch array (NAME+OFFSET[ELEMENT]:TYPE=V) and refuses one that cannot be', () => {
    // the trip count is element 1 of the int array the pointer field at +8 points to
    const text = [
      '.version 8.4', '.target sm_90a', '.address_size 64', '.shared .align 8 .b64 bar[1];',
      '.visible .entry k(.param .align 8 .b8 k_args[16])', '.reqntid 32', '{',
      '\t.reg .pred %p<4>;', '\t.reg .b32 %r<16>;', '\t.reg .b64 %rd<4>;',
      '\tmov.u32 %r1, %tid.x;', '\tsetp.eq.u32 %p1, %r1, 0;', '\t@%p1 mbarrier.init.shared::cta.b64 [bar], 1;', '\tbar.sync 0;',
      '\tld.param.u64 %rd1, [k_args+8];', '\tcvta.to.global.u64 %rd2, %rd1;', '\tld.global.u32 %r9, [%rd2+4];', '\tmov.u32 %r10, 0;',
      '$L_loop:', '\tsetp.ge.s32 %p2, %r10, %r9;', '\t@%p2 bra $L_done;', '\tand.b32 %r11, %r10, 1;',
      '\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar];', '\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], %r11;',
      '\tadd.s32 %r10, %r10, 1;', '\tbra.uni $L_loop;', '$L_done:', '\tret;', '}', '',
    ].join('\n');
    const file = join(mkdtempSync(join(tmpdir(), 'arefcheck-')), 'array.ptx');
    writeFileSync(file, text);
    const waits = (r: { stdout: string }): number => r.stdout.split('\n').filter((l) => /^\s+wait bar\[0\]/.test(l)).length;
    const open = arefcheck('lift', file, '--print');
    const three = arefcheck('lift', file, '--print', '--param', 'k_args+8[4]:u32=3');
    expect(three.status, three.stderr).toBe(0);
    expect([waits(open), waits(three)]).toEqual([1, 3]);
    const report = arefcheck('verify', file, '--no-sweep', '--param', 'k_args+8[4]:u32=3');
    expect(report.status, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/launch values not given \(1\): k_args\+8=0\n/);
    const swept = arefcheck('verify', file);
    // the sweep raises the array whole; [*] gives every element, an element given alone wins
    expect(swept.stdout).toMatch(/launch values checked: defaults; k_args\+8\[\*\] = \d+/);
    expect(waits(arefcheck('lift', file, '--print', '--param', 'k_args+8[*]:u32=4'))).toBe(4);
    expect(waits(arefcheck('lift', file, '--print', '--param', 'k_args+8[*]:u32=4', '--param', 'k_args+8[4]:u32=2'))).toBe(2);
    for (const [flag, message] of [
      ['k_args[4]:u32=3', 'error: --param k_args[4]:u32: parameter k_args is a struct: name the pointer field, e.g. --param k_args+OFFSET[4]:u32=V'],
      ['k_args+8[4]:f32=3', 'error: --param k_args+8[4]:f32: array elements are integers of at most 4 bytes (u8 … u32, s32)'],
      ['k_args+12[0]:u32=3', 'error: --param k_args+12[0]:u32: parameter k_args has 16 bytes; a pointer at offset 12 does not fit'],
    ] as const) {
      const bad = arefcheck('verify', file, '--param', flag);
      expect(bad.status).toBe(2);
      expect(bad.stderr.trim()).toBe(message);
    }
  });

  it('a syntax error points at the PTX position', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lift-'));
    const file = join(dir, 'bad.ptx');
    writeFileSync(file, '.version 8.4\n.target sm_90a\n.entry k()\n{\n\tadd.s32 %r1 %r1, 1;\n}\n');
    const r = arefcheck('lift', file);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`${file}:5:14: error: expected ',' or ';' in 'add.s32', found '%r1'\n`);
  });
});
