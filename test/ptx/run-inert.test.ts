// Launch values a run uses as data only (inert.ts `runRelevance`): the sweep does not probe them,
// since raised alone they repeat the run (sweep.ts `repeats`). The claim is tested where it can
// fail: on the kernels of the fixtures (and ../shared/corpus where present), every open integer
// the run-restricted slice passes is raised at once and the run must record the same events,
// while raising one it does not pass changes some kernel's events (the comparison can see a
// difference). A hand-written kernel shows the point of the restriction: a value that decides a
// branch only on a path the run does not take is passed at that run, and not at the one that
// takes the path.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { launchRelevance, runRelevance } from '../../src/ptx/lift/inert.ts';
import { CTA_INDEX, type LaunchVar } from '../../src/ptx/lift/launch.ts';
import { kernelsOf, prepare, traceWith, type KernelTrace } from '../../src/ptx/lift/lift.ts';
import { parsePtx } from '../../src/ptx/parse/parser.ts';
import { root } from '../cli/spawn.ts';
import { CUDA_DIR } from './paths.ts';

function kernelFiles(): [string, string][] {
  const out: [string, string][] = [];
  const dirs = [CUDA_DIR, join(root, 'test/ptx/fixtures/triton-ws'), join(root, 'test/ptx/fixtures/gluon-h100'), join(root, '..', 'shared', 'corpus')];
  for (const dir of dirs) {
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).sort()) {
      if (dir.endsWith('gluon-h100') && !/_m0\.ptx\.gz$/.test(f)) continue;
      if (f.endsWith('.ptx')) out.push([f, readFileSync(join(dir, f), 'utf8')]);
      else if (f.endsWith('.ptx.gz')) out.push([f, gunzipSync(readFileSync(join(dir, f))).toString('utf8')]);
    }
  }
  return out;
}

/** The integers a run read that the sweep may raise: not the grid, the cluster or the CTA. */
function openIntegers(trace: KernelTrace): LaunchVar[] {
  return [...trace.launch.reads.values()].map((r) => r.v).filter((v) => v.kind === 'int' && v.element === undefined && v.key !== CTA_INDEX && !/^(grid|cluster)\./.test(v.key));
}

const events = (t: KernelTrace): string => JSON.stringify(t.warps, (_k, x: unknown) => (typeof x === "bigint" ? `${x}n` : x));

describe('values a run uses as data only', () => {
  it('raised together, they repeat the run; a value the slice does not pass changes some run', { timeout: 600_000 }, () => {
    let kernels = 0;
    let passed = 0;
    let beyondStatic = 0;
    let biting = 0;
    const wrong: string[] = [];
    for (const [file, text] of kernelFiles()) {
      const module = parsePtx(text, file);
      for (const k of kernelsOf(module)) {
        let p: ReturnType<typeof prepare>;
        let base: KernelTrace;
        try {
          p = prepare(module, { kernel: k.name });
          base = traceWith(p, { kernel: k.name }, new Map());
        } catch {
          continue; // refused at its defaults: no run to compare
        }
        kernels++;
        const open = openIntegers(base);
        const runInert = open.filter((v) => runRelevance(base.flat, base.flats.values(), v, base.run.executed).inert);
        passed += runInert.length;
        beyondStatic += runInert.filter((v) => !launchRelevance(base.flat, base.flats.values(), v).inert).length;
        if (runInert.length > 0) {
          const raised = traceWith(p, { kernel: k.name }, new Map(runInert.map((v) => [v.key, 64n] as const)));
          if (events(raised) !== events(base)) wrong.push(`${file} ${k.name}: ${runInert.map((v) => v.key).join(', ')}`);
        }
        if (biting === 0) {
          const relevant = open.find((v) => !runInert.includes(v));
          if (relevant) {
            try {
              if (events(traceWith(p, { kernel: k.name }, new Map([[relevant.key, 64n]]))) !== events(base)) biting++;
            } catch {
              // refused at 64: a difference too, but not the one looked for
            }
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(kernels).toBeGreaterThan(20);
    expect(passed).toBeGreaterThan(0);
    // the restriction to the run's path passes values the whole-code slice does not
    expect(beyondStatic).toBeGreaterThan(0);
    expect(biting).toBe(1);
  });

  // a decides whether b decides a branch: b is data on the path a = 1 takes, and not on a = 5's
  const ptx = `.version 9.0
.target sm_90a
.address_size 64
.visible .entry gate(
	.param .u32 gate_param_0,
	.param .u32 gate_param_1
)
.reqntid 32, 1, 1
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<3>;
	ld.param.u32 	%r1, [gate_param_0];
	ld.param.u32 	%r2, [gate_param_1];
	setp.ne.s32 	%p1, %r1, 5;
	@%p1 bra 	$DONE;
	setp.eq.s32 	%p2, %r2, 0;
	@%p2 bra 	$DONE;
	bar.sync 	0;
$DONE:
	ret;
}
`;

  it('passes a value whose branch is off the run path, and not once the path takes it', () => {
    const p = prepare(parsePtx(ptx, 'gate.ptx'), {});
    const at = (a: bigint): KernelTrace => traceWith(p, {}, new Map([['gate_param_0', a]]));
    const b = (t: KernelTrace): LaunchVar => {
      const v = [...t.launch.reads.values()].find((r) => r.v.key === 'gate_param_1')?.v;
      if (!v) throw new Error('b not read');
      return v;
    };
    const off = at(1n);
    expect(launchRelevance(off.flat, off.flats.values(), b(off))).toMatchObject({ inert: false, why: "it decides the guard of 'bra' at line 17" });
    expect(runRelevance(off.flat, off.flats.values(), b(off), off.run.executed)).toEqual({ inert: true });
    // and indeed b changes nothing there
    expect(events(traceWith(p, {}, new Map([['gate_param_0', 1n], ['gate_param_1', 0n]])))).toBe(events(off));
    const on = at(5n);
    expect(runRelevance(on.flat, on.flats.values(), b(on), on.run.executed)).toMatchObject({ inert: false });
    // there it decides whether the warp meets the barrier
    expect(events(traceWith(p, {}, new Map([['gate_param_0', 5n], ['gate_param_1', 0n]])))).not.toBe(events(on));
    // a decides the branch on the path every run takes
    expect(runRelevance(off.flat, off.flats.values(), off.launch.reads.get('gate_param_0')!.v, off.run.executed)).toMatchObject({ inert: false });
  });
});
