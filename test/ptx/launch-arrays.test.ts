// Launch arrays on a real kernel (../shared/corpus, skipped where absent): fast.cu M11 reads its
// tile schedule from an int array the host passes (`int* schedule`, parameter 6), stores it to
// shared memory and loops until an entry is -1. Each entry was unknown data and the branch on it
// was refused; now each is a launch value, the whole array one value of the sweep.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { liftKernelWithFacts } from '../../src/ptx/lift/index.ts';
import { parsePtx } from '../../src/ptx/parse/parser.ts';
import { verifyProgram } from '../../src/verify.ts';
import { root } from '../cli/spawn.ts';

const CORPUS = join(root, '..', 'shared', 'corpus');
const FILE = join(CORPUS, 'fastcu_matmul_1_12.ptx');
const here = existsSync(FILE);

describe.skipIf(!here)('fast.cu M11: a tile schedule in a launch array (needs ../shared/corpus)', () => {
  const text = here ? readFileSync(FILE, 'utf8') : '';
  const module = here ? parsePtx(text, 'fastcu.ptx') : undefined;
  const kernel = /\.entry\s+(_ZN3M1114matmulKernel11\w+)/.exec(text)?.[1] ?? '';
  // the defaults' lift runs every schedule entry (128 tiles, each hung and let past): once for both tests
  let lifted: ReturnType<typeof liftKernelWithFacts> | undefined;
  const atDefaults = (): ReturnType<typeof liftKernelWithFacts> => (lifted ??= liftKernelWithFacts(module!, { kernel }));

  it('lifts with the schedule a launch array: 128 entries read, each 1 by default', { timeout: 120_000 }, () => {
    const { facts } = atDefaults();
    const entries = facts.launch.filter((l) => l.v.element !== undefined);
    expect(entries).toHaveLength(128);
    expect(new Set(entries.map((l) => `${l.v.key.replace(/\[\d+\]$/, '')}=${l.value}`))).toEqual(new Set([`${kernel}_param_6=1`]));
  });

  it('with K below one k-block (the default) the consumers wait for a stage no copy fills, as in M9 and M10', () => {
    const { program } = atDefaults();
    const r = verifyProgram(program, { stopAtFirst: true, maxMs: 60_000 });
    expect(r.verdict).toBe('violation');
    expect(r.violations.map((v) => v.kind)).toEqual(['deadlock']);
  }, 60_000);

  it('given a one-tile schedule ([*] = -1, entry 0 = tile 0) and K = 128, the consumers release the peer CTA\'s stage before its producer waited (M8\'s finding)', () => {
    const params = new Map<string, number>([[`6[*]:s32`, -1], ['6[0]:u32', 0], ['2', 128]]);
    const { program, facts } = liftKernelWithFacts(module!, { kernel, params });
    expect(facts.launch.filter((l) => l.v.element !== undefined).every((l) => l.given)).toBe(true);
    const r = verifyProgram(program, { stopAtFirst: true, maxMs: 60_000 });
    expect(r.verdict).toBe('violation');
    expect(r.violations[0]?.kind).toBe('protocol');
    expect(r.violations[0]?.message).toMatch(/before any wait observed the completion of phase 0 \(PTX §9\.7\.13\.15\.4; synccheck: "Missing wait"\)/);
  }, 60_000);
});
