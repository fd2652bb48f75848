// The lifter never crashes: on every PTX file in the repository and on 1,000 fast-check
// mutations of them (line and token deletions, duplications, swaps), every outcome is a
// Program or an InputError (bad or unsupported input: exit 2), never another exception.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/diag.ts';
import type { Program } from '../../src/ir/program.ts';
import { liftPtxFile, parsePtx } from '../../src/ptx/lift/index.ts';
import { generateUnrolledKernel } from '../../bench/lift.ts';
import { emitFromPipeline } from '../../src/ptx/emit/index.ts';
import { verify } from './helpers.ts';
import { ROOT } from './paths.ts';

function ptxFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) ptxFiles(path, out);
    else if (name.endsWith('.ptx')) out.push(path);
  }
  return out;
}

/** Small values for every 32-bit kernel param (loop bounds stay short), the emitter's own when it says. */
function paramsFor(text: string): Map<string, number> {
  const params = new Map<string, number>();
  try {
    for (const f of parsePtx(text, 'p.ptx').functions) {
      for (const p of f.params) if (p.elements === undefined && /32$/.test(p.type)) params.set(p.name, 2);
    }
  } catch {
    // unparseable: the lift will say so
  }
  const meta = /arefcheck-meta (\{.*\})/.exec(text)?.[1];
  if (meta) {
    const m = JSON.parse(meta) as { params?: { name: string; value: number }[] };
    for (const p of m.params ?? []) params.set(p.name, Math.min(p.value, 4));
  }
  return params;
}

interface Source {
  readonly name: string;
  readonly text: string;
  readonly params: ReadonlyMap<string, number>;
}

const fileSources: Source[] = ptxFiles(ROOT).map((path) => {
  const text = readFileSync(path, 'utf8');
  return { name: relative(ROOT, path), text, params: paramsFor(text) };
});

/** Kernels of arefcheck's PTX emitter and of the benchmark generator: more PTX styles to mutate. */
const generated: Source[] = [
  ...(['stream', 'gemm'] as const).map((kernel) => {
    const { ptx } = emitFromPipeline({ depth: 2, pending: 1, consumers: 1, iterations: 3, emit: { kernel } });
    return { name: `emitted-${kernel}.ptx`, text: ptx, params: paramsFor(ptx) };
  }),
  { name: 'bench-6.ptx', text: generateUnrolledKernel(6), params: new Map<string, number>() },
];

const sources: Source[] = [...fileSources, ...generated];

type Outcome = { kind: 'program'; programs: Program[] } | { kind: 'input-error'; message: string };

/** Lift, allowing only a Program or an InputError as the outcome. */
function outcome(text: string, name: string, params: ReadonlyMap<string, number>): Outcome {
  try {
    return { kind: 'program', programs: liftPtxFile(text, name, { params, maxSteps: 100_000 }).map((k) => k.program) };
  } catch (e) {
    if (e instanceof InputError) return { kind: 'input-error', message: e.format() };
    throw e;
  }
}

const MUTATIONS = ['deleteLine', 'duplicateLine', 'swapLines', 'deleteToken', 'duplicateToken', 'swapOperands'] as const;
type Mutation = { readonly kind: (typeof MUTATIONS)[number]; readonly a: number; readonly b: number };

const mutationArb: fc.Arbitrary<Mutation> = fc.record({ kind: fc.constantFrom(...MUTATIONS), a: fc.nat(), b: fc.nat() });

/** Lines that carry code (mutating DWARF byte lists tests little). */
function codeLines(lines: readonly string[]): number[] {
  const out: number[] = [];
  lines.forEach((l, i) => {
    if (/\S/.test(l) && !/^\.b(8|16|32|64)\s/.test(l.trim())) out.push(i);
  });
  return out;
}

export function mutate(text: string, muts: readonly Mutation[]): string {
  const lines = text.split('\n');
  for (const m of muts) {
    const code = codeLines(lines);
    if (code.length === 0) break;
    const i = code[m.a % code.length] ?? 0;
    const j = code[m.b % code.length] ?? 0;
    const line = lines[i] ?? '';
    switch (m.kind) {
      case 'deleteLine':
        lines.splice(i, 1);
        break;
      case 'duplicateLine':
        lines.splice(i, 0, line);
        break;
      case 'swapLines':
        lines[i] = lines[j] ?? '';
        lines[j] = line;
        break;
      case 'deleteToken':
      case 'duplicateToken': {
        const toks = line.split(/(\s+|,|;|\[|\]|\{|\})/).filter((t) => t !== '');
        if (toks.length === 0) break;
        const k = m.b % toks.length;
        if (m.kind === 'deleteToken') toks.splice(k, 1);
        else toks.splice(k, 0, toks[k] ?? '');
        lines[i] = toks.join('');
        break;
      }
      case 'swapOperands': {
        const parts = line.split(',');
        if (parts.length < 2) break;
        const x = m.a % parts.length;
        const y = m.b % parts.length;
        const px = parts[x] ?? '';
        parts[x] = parts[y] ?? '';
        parts[y] = px;
        lines[i] = parts.join(',');
        break;
      }
    }
  }
  return lines.join('\n');
}

describe('lifter robustness', () => {
  it('finds the repository PTX files (nvcc, Triton, the bench generator is separate)', () => {
    const names = sources.map((s) => s.name);
    expect(names).toContain('test/ptx/fixtures/triton-3.6-gemm-tma-3stage-128x128x64-w4.ptx');
    expect(names).toContain('test/fixtures/cuda/ws_ring_ok.ptx');
  });

  it.each(sources.map((s) => [s.name, s] as const))('lifts %s (or refuses it as input) without crashing', (_name, s) => {
    const r = outcome(s.text, s.name, s.params);
    expect(['program', 'input-error']).toContain(r.kind);
  });

  it.each(generated.map((s) => [s.name, s] as const))('lifts the generated %s to a program', (_name, s) => {
    const r = outcome(s.text, s.name, s.params);
    expect(r.kind).toBe('program');
  });

  it('1,000 mutated PTX files: a Program or an InputError, nothing else', () => {
    const seen = { program: 0, 'input-error': 0 };
    fc.assert(
      fc.property(fc.integer({ min: 0, max: sources.length - 1 }), fc.array(mutationArb, { minLength: 1, maxLength: 3 }), (si, muts) => {
        const s = sources[si];
        if (!s) return;
        const r = outcome(mutate(s.text, muts), s.name, s.params);
        seen[r.kind]++;
        if (r.kind === 'input-error') expect(r.message).toMatch(/^\S+(:\d+:\d+)?: error: |^error: /);
      }),
      { numRuns: Number(process.env['PTX_MUTATION_RUNS'] ?? 1000), ...(process.env['PTX_MUTATION_SEED'] ? { seed: Number(process.env['PTX_MUTATION_SEED']) } : { seed: 20260501 }) },
    );
    // both outcomes occur: the mutations are neither all harmless nor all fatal
    expect(seen.program).toBeGreaterThan(50);
    expect(seen['input-error']).toBeGreaterThan(50);
  });

  // `arefcheck verify kernel.ptx` exits 0, 1, 2 or 3: the checker accepts every lifted program
  it('150 mutated kernels through the checker: a verdict or an InputError', async () => {
        const verdicts = new Set<string>();
    fc.assert(
      fc.property(fc.integer({ min: 0, max: sources.length - 1 }), fc.array(mutationArb, { minLength: 1, maxLength: 2 }), (si, muts) => {
        const s = sources[si];
        if (!s) return;
        const r = outcome(mutate(s.text, muts), s.name, s.params);
        if (r.kind !== 'program') return;
        for (const p of r.programs) {
          try {
            verdicts.add(verify(p, { maxStates: 5_000, maxMs: 2_000 }).verdict);
          } catch (e) {
            if (!(e instanceof InputError)) throw e;
          }
        }
      }),
      { numRuns: 150, seed: 20260502 },
    );
    expect(verdicts.has('verified')).toBe(true);
    expect(verdicts.has('violation')).toBe(true);
  });
});
