// A CTA must not exit while another CTA of its cluster still arrives on its barriers or accesses its
// shared memory (src/ptx/lift/cta-exit.ts). Until 2026-12-02 that was not modelled: the multicast
// ring without CUTLASS's producer tail (test/fixtures/cuda/cluster_ring_no_tail.cu) verified.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { num } from '../../src/ir/expr.ts';
import type { Op, Program, Ref, Role, Stmt } from '../../src/ir/program.ts';
import { explainCtaExit, withCtaExits } from '../../src/ptx/lift/cta-exit.ts';
import { liftPtxFile, type LiftFacts } from '../../src/ptx/lift/index.ts';
import { verifyPtx } from '../../src/api.ts';
import { verifyProgram } from '../../src/verify.ts';
import { replayTrace } from '../../src/verify/replay.ts';
import { readTraceJson } from '../../src/verify/trace-json.ts';
import { goldenOf, ROOT, type GalleryEntry } from '../../scripts/regen-traces.ts';
import { kinds, opText, ops, verify } from './helpers.ts';
import { CUDA_DIR, read } from './paths.ts';

const K4 = { '2': 4 };

function lift(name: string, params: Record<string, number>): { program: Program; facts: LiftFacts } {
  // named as from the repository root, so that the golden trace's locations are the same everywhere
  const [only, ...rest] = liftPtxFile(read(`${CUDA_DIR}${name}.ptx`), `test/fixtures/cuda/${name}.ptx`, { params: new Map(Object.entries(params)) });
  if (!only || rest.length > 0) throw new Error('expected one kernel');
  return only;
}

const isExitOp = (op: Op): boolean => 'target' in op && /^cta\d+_(alive|exit)$/.test(op.target.name);
function withoutExits(p: Program): Program {
  const strip = (body: readonly Stmt[]): Stmt[] =>
    body.flatMap((s): Stmt[] => (s.kind === 'op' ? (isExitOp(s.op) ? [] : [s]) : s.kind === 'for' ? [{ ...s, body: strip(s.body) }] : [{ ...s, then: strip(s.then), else: strip(s.else) }]));
  return { ...p, resources: p.resources.filter((r) => !/^cta\d+_(alive|exit)$/.test(r.name)), roles: p.roles.map((r) => ({ ...r, body: strip(r.body) })) };
}

describe('the multicast ring of a 2-CTA cluster (CUTLASS\'s producer tail)', () => {
  it('with the tail: verified; every role of both CTAs ends with the exit, the remote arrives read the peer\'s lifetime slot first', () => {
    const { program, facts } = lift('cluster_ring_ok', K4);
    expect(facts.ctaExits?.map((e) => [e.cta, e.alive, e.exit])).toEqual([[0, 'cta0_alive', 'cta0_exit'], [1, 'cta1_alive', 'cta1_exit']]);
    // each CTA's first role waits for the others and writes the slot: the exit
    const own = (r: Role): string => `cta${r.name.slice(-1)}_`;
    expect(program.roles.map((r) => [r.name, ops(r.body).slice(-3).map(opText).filter((t) => t.includes(own(r)))])).toEqual([
      ['warp0_cta0', ['arrive cta0_exit[0] 1', 'wait cta0_exit[0] 0', 'write cta0_alive[0]']],
      ['warp1_cta0', ['arrive cta0_exit[0] 1']],
      ['warp0_cta1', ['arrive cta1_exit[0] 1', 'wait cta1_exit[0] 0', 'write cta1_alive[0]']],
      ['warp1_cta1', ['arrive cta1_exit[0] 1']],
    ]);
    const consumer = ops(program.roles.find((r) => r.name === 'warp1_cta0')?.body ?? []).map(opText);
    const remote = consumer.flatMap((t, i) => (t === 'arrive empty_c1[0] 1' || t === 'arrive empty_c1[1] 1' ? [consumer[i - 1]] : []));
    expect(remote.length).toBe(4);
    expect(new Set(remote)).toEqual(new Set(['read cta1_alive[0]']));
    expect(verify(program).verdict).toBe('verified');
  });

  it('without the tail (K = 1): a CTA may exit before the peer consumer\'s remote arrive (a race on its lifetime slot; the golden trace)', () => {
    const file = 'test/fixtures/cuda/cluster_ring_no_tail.ptx';
    const { program } = lift('cluster_ring_no_tail', { '2': 1 });
    const report = verifyProgram(program);
    expect(kinds(report)).toEqual(['race']);
    const v = report.violations[0];
    expect(v?.message).toMatch(/^warp1_cta[01]: race on cta[01]_alive\[0\]: read by warp1_cta[01] is not ordered after the write it may read \(read-after-write\)$/);
    // the last step is the consumer's read of the exited CTA's slot, right before its remote arrive
    const last = v?.trace.at(-1);
    expect(last?.action).toMatch(/^read cta[01]_alive\[0\]$/);
    const entry: GalleryEntry = { name: 'cta-exit-no-tail', file, bugClass: 0, twin: false, expected: 'race', alsoReported: [], level: 'mbarrier', program };
    const golden = goldenOf(entry, report);
    expect(golden.text).toBe(readFileSync(join(ROOT, 'traces/cta-exit-no-tail.txt'), 'utf8'));
    const json = readFileSync(join(ROOT, 'traces/cta-exit-no-tail.json'), 'utf8');
    expect(golden.json).toBe(json);
    const replayed = replayTrace(program, readTraceJson(json, 'traces/cta-exit-no-tail.json'));
    expect([replayed.reached, replayed.reproduced]).toEqual(['race', true]);
  });

  it('the same program with the exit operations taken out verifies: they are what finds it', () => {
    const { program } = lift('cluster_ring_no_tail', K4);
    expect(verify(withoutExits(program)).verdict).toBe('verified');
  });

  it('at the defaults (K = 1, the tail waits once per stage) too, and the report says what the race means', () => {
    const r = verifyPtx(read(`${CUDA_DIR}cluster_ring_no_tail.ptx`), { file: 'cluster_ring_no_tail.ptx' });
    expect(r.verdict).toBe('violation');
    expect(r.violations[0]?.message).toMatch(/CTA [01] may exit before another CTA's arrive on its barriers/);
    expect(r.notes?.join('\n')).toMatch(/CTA 0, CTA 1 are touched by another CTA of the cluster/);
    expect(verifyPtx(read(`${CUDA_DIR}cluster_ring_ok.ptx`), { file: 'cluster_ring_ok.ptx' }).verdict).toBe('verified');
  });
});

describe('explainCtaExit', () => {
  const exits = [{ cta: 0, alive: 'cta0_alive', exit: 'cta0_exit' }];
  it('says what a race on the lifetime slot means, and where a deadlocked role waits at the end', () => {
    expect(explainCtaExit('race on cta0_alive[0]: …', exits)).toMatch(/— CTA 0 may exit before another CTA's arrive/);
    expect(explainCtaExit('warp0_cta0 waits cta0_exit[0] parity 0; …', exits)).toMatch(/\(cta0_exit\[0\]: the end of CTA 0, where its first role waits for its other roles to finish\)$/);
    expect(explainCtaExit('race on smem_0[0]: …', exits)).toBe('race on smem_0[0]: …');
  });
});

describe('distributed shared memory: the Programming Guide\'s histogram', () => {
  it('remote atomics (96 bins, half in each CTA) ordered before the exit by the final cluster.sync: verified', () => {
    const { program, facts } = lift('guide_hist_ok', { '1': 96 });
    expect(facts.ctaExits?.map((e) => e.cta)).toEqual([1]);
    expect(facts.remoteAccesses?.length).toBeGreaterThan(0);
    expect(verify(program).verdict).toBe('verified');
  });
});

// the pass on hand-made roles: where the lifetime reads and the tails go (the exactness argument of cta-exit.ts)
describe('withCtaExits', () => {
  const ref = (name: string, i = 0): Ref => ({ name, index: num(i) });
  const st = (op: Op): Stmt => ({ kind: 'op', op });
  const role = (name: string, body: Op[]): Role => ({ name, warps: 1, body: body.map(st) });
  const text = (r: Role): string[] => ops(r.body).map(opText);
  const names = (base: string): string => base;
  // buffers and barriers of two CTAs
  const ctaOf = new Map([['S_c0', 0], ['S_c1', 1], ['b_c0', 0], ['b_c1', 1]]);
  const write = (t: string, i = 0): Op => ({ kind: 'write', target: ref(t, i) });
  const arrive = (t: string): Op => ({ kind: 'arrive', target: ref(t), count: num(1) });

  it('no role touches another CTA: nothing changes, nothing is added', () => {
    const r = withCtaExits([role('a', [write('S_c0'), arrive('b_c0')]), role('b', [write('S_c1')])], [0, 1], ctaOf, names);
    expect([r.resources, r.exits, r.roles.map(text)]).toEqual([[], [], [['write S_c0[0]', 'arrive b_c0[0] 1'], ['write S_c1[0]']]]);
  });

  it('a remote arrive gets the read right before it, a run of remote accesses one right after it; the CTA touched gets its exit', () => {
    const r = withCtaExits(
      [role('a', [write('S_c1'), write('S_c1', 1), arrive('b_c0'), arrive('b_c1')]), role('b0', [{ kind: 'wait', target: ref('b_c1'), parity: num(0) }]), role('b1', [write('S_c1', 2)])],
      [0, 1, 1],
      ctaOf,
      names,
    );
    expect(r.roles.map(text)).toEqual([
      ['write S_c1[0]', 'write S_c1[1]', 'read cta1_alive[0]', 'arrive b_c0[0] 1', 'read cta1_alive[0]', 'arrive b_c1[0] 1'],
      // CTA 1's first role waits for all of CTA 1's roles, then exits
      ['wait b_c1[0] 0', 'arrive cta1_exit[0] 1', 'wait cta1_exit[0] 0', 'write cta1_alive[0]'],
      ['write S_c1[2]', 'arrive cta1_exit[0] 1'],
    ]);
    expect(r.exits).toEqual([{ cta: 1, alive: 'cta1_alive', exit: 'cta1_exit' }]);
    expect(r.resources).toEqual([{ kind: 'buffer', name: 'cta1_alive', slots: 1, bytes: 4 }, { kind: 'mbarrier', name: 'cta1_exit', size: 1, count: 2 }]);
  });

  it('one read stands for a run of accesses and the remote arrive right after it; a run at the end gets its read', () => {
    const r = withCtaExits([role('a', [{ kind: 'atomic', target: ref('S_c1') }, arrive('b_c1'), write('S_c1')]), role('b', [])], [0, 1], ctaOf, names);
    expect(text(r.roles[0] as Role)).toEqual(['atomic', 'read cta1_alive[0]', 'arrive b_c1[0] 1', 'write S_c1[0]', 'read cta1_alive[0]']);
  });

  it('a CTA with no role gets no exit (it initialised nothing the others use)', () => {
    const r = withCtaExits([role('a', [arrive('b_c1')])], [0], ctaOf, names);
    expect([r.exits, r.roles.map(text)]).toEqual([[], [['arrive b_c1[0] 1']]]);
  });
});
