// Inert launch values (src/ptx/lift/inert.ts): a value whose forward slice reaches nothing the
// lifter records lifts to one program at every value. The claim is tested where it can fail: on
// every kernel of the fixtures (and ../shared/corpus where present), each inert value is changed
// at once and the kernel lifted again must give the same program, while changing a value the
// slice calls relevant changes some kernel's program (the comparison can see a difference). The
// stream kernel's mutants show the slice catching a guard and an escaped address, and `=any` on
// an inert value is a proof, on a relevant one a bounded scan that names why.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { verifyPtx } from '../../src/api.ts';
import type { Program } from '../../src/ir/program.ts';
import { parseProgramText } from '../../src/lang/load.ts';
import { emitPtx } from '../../src/ptx/emit/index.ts';
import { CTA_INDEX } from '../../src/ptx/lift/launch.ts';
import { kernelsOf, type LiftFacts } from '../../src/ptx/lift/lift.ts';
import { liftLaunchPoints } from '../../src/ptx/lift/sweep.ts';
import type { PtxModule } from '../../src/ptx/parse/ast.ts';
import { parsePtx } from '../../src/ptx/parse/parser.ts';
import { root } from '../cli/spawn.ts';
import { CUDA_DIR } from './paths.ts';

const example = 'examples/double-buffer-mbar.aref';
const stream = emitPtx(parseProgramText(readFileSync(example, 'utf8'), example), { kernel: 'stream' });

/** The kernels to test: name → PTX text (gzipped fixtures unpacked). */
function kernelFiles(): [string, string][] {
  const out: [string, string][] = [['stream.ptx', stream]];
  const dirs = [CUDA_DIR, join(root, 'test/ptx/fixtures/triton'), join(root, 'test/ptx/fixtures/triton-ws'), join(root, 'test/ptx/fixtures/gluon-h100'), join(root, '..', 'shared', 'corpus')];
  for (const dir of dirs) {
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).sort()) {
      // the correct Gluon kernels only (their mutants differ by a line or two)
      if (dir.endsWith('gluon-h100') && !/_m0\.ptx\.gz$|^tma_.*\.ptx\.gz$/.test(f)) continue;
      if (f.endsWith('.ptx')) out.push([f, readFileSync(join(dir, f), 'utf8')]);
      else if (f.endsWith('.ptx.gz')) out.push([f, gunzipSync(readFileSync(join(dir, f))).toString('utf8')]);
    }
  }
  return out;
}

/** `--param` text for a launch value set to another value than it was lifted at. */
function changed(l: LiftFacts['launch'][number]): [string, string] {
  const name = l.v.offset === undefined ? l.v.key : `${l.v.key}:${l.v.kind === 'float' ? 'f' : 'u'}${l.v.bytes * 8}`;
  return [name, l.v.kind === 'float' ? '-2.5' : String(l.value === '7' ? 11 : 7)];
}

/** The program without its list of given parameters (a given scalar is listed there, with its value). */
const shape = (p: Program): string => JSON.stringify({ ...p, params: [] });

interface Lifted {
  readonly file: string;
  readonly module: PtxModule;
  readonly kernel: string;
  readonly program: Program;
  readonly facts: LiftFacts;
}

function liftAll(): Lifted[] {
  const out: Lifted[] = [];
  for (const [file, text] of kernelFiles()) {
    const module = parsePtx(text, file);
    for (const k of kernelsOf(module)) {
      try {
        const [p] = liftLaunchPoints(module, { kernel: k.name }, false);
        if (p) out.push({ file, module, kernel: k.name, program: p.program, facts: p.facts });
      } catch {
        // a kernel the lifter refuses at its defaults (a host-side helper with no block size) has no program to compare
      }
    }
  }
  return out;
}

const relift = (l: Lifted, params: Map<string, string>): Program | undefined => {
  // %ctaid.x is not a parameter: it is the CTA the lift runs (--cta)
  const cta = params.get(CTA_INDEX);
  params.delete(CTA_INDEX);
  try {
    return liftLaunchPoints(l.module, { kernel: l.kernel, params, ...(cta !== undefined ? { cta: Number(cta) } : {}) }, false)[0]?.program;
  } catch {
    return undefined;
  }
};

describe('inert launch values lift to the same program at every value', () => {
  const lifted = liftAll();

  it('lifts the kernels of the fixtures (and finds inert values in some of them)', () => {
    expect(lifted.length).toBeGreaterThan(20);
    expect(lifted.filter((l) => l.facts.inert.length > 0).length).toBeGreaterThan(10);
  });

  it('every kernel: all its inert values changed at once give the same program', () => {
    let compared = 0;
    for (const l of lifted) {
      // another CTA widens a grid left open: only where the kernel reads no grid dimension
      const readsGrid = l.facts.launch.some((x) => x.v.key.startsWith('grid.'));
      const inert = l.facts.launch.filter((x) => l.facts.inert.includes(x.v.key) && !(x.v.key === CTA_INDEX && readsGrid));
      if (inert.length === 0) continue;
      const again = relift(l, new Map(inert.map(changed)));
      expect(again, `${l.file} ${l.kernel}`).toBeDefined();
      expect(shape(again as Program), `${l.file} ${l.kernel}: ${inert.map((x) => x.v.key).join(', ')}`).toBe(shape(l.program));
      compared++;
    }
    expect(compared).toBeGreaterThan(10);
    const ctas = lifted.filter((l) => l.facts.inert.includes(CTA_INDEX)).length;
    console.log(`inert: ${lifted.length} kernels lifted, ${compared} with inert values compared, ${lifted.reduce((n, l) => n + l.facts.inert.length, 0)} inert values of ${lifted.reduce((n, l) => n + l.facts.launch.length, 0)} read, %ctaid.x inert in ${ctas}`);
  }, 600_000); // some 90 lifts: about a minute here, CI runs up to twice as slow

  it('the comparison sees a difference: a relevant integer value changed alters some kernel’s program', () => {
    let differ = 0;
    for (const l of lifted.slice(0, 12)) {
      const relevant = l.facts.launch.find((x) => x.v.kind === 'int' && x.v.param !== undefined && l.facts.decides.some((d) => d.key === x.v.key && /guard|address/.test(d.why)));
      if (!relevant) continue;
      const again = relift(l, new Map([[changed(relevant)[0], '4']]));
      if (again && shape(again) !== shape(l.program)) differ++;
    }
    expect(differ).toBeGreaterThan(0);
  });
});

describe('the slice on the stream kernel and its mutants', () => {
  const facts = (text: string): LiftFacts => liftLaunchPoints(parsePtx(text, 'stream.ptx'), {}, false)[0]!.facts;

  it('the output pointer, alpha and beta are inert; the input pointer, the stride and K are not', () => {
    const f = facts(stream);
    expect([...f.inert].sort()).toEqual(['arg_alpha', 'arg_beta', 'arg_y']);
    const why = new Map(f.decides.map((d) => [d.key, d.why]));
    // the TMA copy's global source is recorded (value tags), and K picks the slot of the last release
    expect(why.get('arg_x')).toMatch(/^it reaches 'cp\.async\.bulk\..*' at line \d+$/);
    expect(why.get('arg_stride')).toMatch(/cp\.async\.bulk/);
    expect(why.get('K')).toMatch(/at line \d+/);
  });

  // alpha = 0 skips the producer's loop: a deadlock at that value only
  const guarded = stream.replace('\t// arefcheck role producer begin', '\t{\n\t.reg .pred %pm;\n\tsetp.eq.f32 %pm, %f0, 0f00000000;\n\t@%pm bra $L_endfor_3;\n\t}\n\t// arefcheck role producer begin');
  // beta's address stored to global memory: where it goes is not followed
  const escaped = stream.replace('\tld.param.f32 %f1, [arg_beta];', '\tld.param.f32 %f1, [arg_beta];\n\t{\n\t.reg .b64 %rdm;\n\tmov.u64 %rdm, arg_beta;\n\tst.global.u64 [%rd1], %rdm;\n\t}');

  it('a branch on alpha makes it relevant, and the kernel really differs at alpha = 0', () => {
    expect(guarded).not.toBe(stream);
    const f = facts(guarded);
    expect(f.inert).not.toContain('arg_alpha');
    expect(f.decides.find((d) => d.key === 'arg_alpha')?.why).toMatch(/^it decides the guard of 'bra' at line \d+$/);
    expect(verifyPtx(guarded, { noSweep: true }).verdict).toBe('verified');
    const zero = verifyPtx(guarded, { noSweep: true, params: new Map([['arg_alpha', '0']]) });
    expect(zero.verdict).toBe('violation');
    expect(zero.violations[0]?.kind).toBe('deadlock');
  });

  it('an escaped parameter address makes the parameter relevant', () => {
    expect(escaped).not.toBe(stream);
    const f = facts(escaped);
    expect(f.inert).not.toContain('arg_beta');
    expect(f.decides.find((d) => d.key === 'arg_beta')?.why).toMatch(/^the address of its parameter goes to 'st\.global\.u64' at line \d+/);
  });
});

describe('verify kernel.ptx --param NAME=any on an inert value is a proof', () => {
  it('alpha of the stream kernel: verified for every value, checked once', () => {
    const r = verifyPtx(stream, { params: new Map([['arg_alpha', 'any']]) });
    expect(r.verdict).toBe('verified');
    expect(r.scope).toBe('for every value of arg_alpha (inert: every value lifts to the same program)');
    expect(r.notes?.[0]).toMatch(/^arg_alpha is inert: .* it was checked once, at arg_alpha = 1$/);
  });

  it('the guarded mutant: alpha is relevant, so only a bounded scan, which names the branch', () => {
    const r = verifyPtx(stream.replace('\t// arefcheck role producer begin', '\t{\n\t.reg .pred %pm;\n\tsetp.eq.f32 %pm, %f0, 0f00000000;\n\t@%pm bra $L_endfor_3;\n\t}\n\t// arefcheck role producer begin'), {
      params: new Map([['arg_alpha', 'any']]),
      maxMs: 60_000,
    });
    expect(r.verdict).toBe('inconclusive');
    expect(r.limit?.reason).toBe('bound');
    expect(r.limit?.message).toMatch(/arg_alpha is not inert \(it decides the guard of 'bra' at line \d+\)/);
  });

  it('a violation on an inert value is shown at its least value, for every value', () => {
    // the stream kernel without its proxy fences races from K = 3 on; K fixed, alpha open
    const unfenced = stream.replace(/\n\tfence\.proxy\.async\.shared::cta;/g, '');
    const r = verifyPtx(unfenced, { params: new Map([['arg_alpha', 'any'], ['K', '4']]) });
    expect(r.verdict).toBe('violation');
    expect(r.violations[0]?.message).toMatch(/^with arg_alpha = 1 \(and every other value\): /);
  });
});
