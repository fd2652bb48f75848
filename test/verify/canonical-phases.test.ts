// Barrier phases stored canonical (StatePacker.canonicalPhases: phase n ≥ 2 as 2 + (n & 1)):
// exact, because the rules and the reduction read a phase only by its parity and by distances.
// Checked on states of real explorations where phases pass 3: the enabled actions, every
// successor and the ample set of a state are those of its canonical form. The reports still
// show the run's phases: they equal those of the readable model, which never forgets a phase.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { arbPipelineParams } from '../../src/arbitraries.ts';
import type { Program } from '../../src/ir/program.ts';
import { parseProgramText } from '../../src/lang/load.ts';
import { lowerProgram } from '../../src/lower.ts';
import { pipelineProgram } from '../../src/pipeline.ts';
import { verifyProgram } from '../../src/verify.ts';
import { modelOfMachine, packedModelOfMachine } from '../../src/verify/model.ts';
import { rawResult } from '../../src/verify/raw-trace.ts';
import { buildReport } from '../../src/verify/report.ts';
import { AmpleSets } from '../../semantics/ample.ts';
import { BAR_PHASE } from '../../semantics/layout.ts';
import { cloneState, compileMachine, enabledActions, executeAction, initialState, settleAll, type Machine, type MachineState } from '../../semantics/index.ts';
import { StatePacker } from '../../semantics/pack.ts';

const ROOT = join(import.meta.dirname, '../..');
const file = (path: string, k: number): Program => parseProgramText(readFileSync(join(ROOT, path), 'utf8'), path, new Map([['K', k]]));

type Canon = (packer: StatePacker, machine: Machine, words: Int32Array) => Int32Array;
const canonical: Canon = (packer, _, words) => packer.canonicalPhases(words);
/** A seeded lossy form: past phase 1 every phase is 2 (the parity is lost). */
const lossy: Canon = (packer, machine, words) => {
  for (let b = 0; b < machine.barrierCount; b++) {
    const at = packer.layout.bar(b) + BAR_PHASE;
    if (words[at]! >= 2) words[at] = 2;
  }
  return words;
};

/**
 * Depth-first (to reach late phases soon) over up to `limit` states of `program`; at each state whose canonical form differs,
 * compare the state and its canonical form: enabled actions, successors (canonical, but for a
 * violation's message, whose text names the phase) and the ample set. Returns how many states
 * differed from their canonical form, and the first disagreement.
 */
function compare(program: Program, limit: number, canon: Canon): { differing: number; disagreement?: string } {
  const machine = compileMachine(program);
  const packer = new StatePacker(machine);
  const ample = new AmpleSets(machine);
  const ampleOther = new AmpleSets(machine);
  const message = packer.layout.violation + 1;
  const key = (s: MachineState): string => Array.from(canon(packer, machine, packer.encode(s)), (x, i) => (i === message ? 0 : x)).join(',');
  const seen = new Set<string>();
  const stack = [settleAll(machine, initialState(machine))];
  let differing = 0;
  for (let i = 0; stack.length > 0 && seen.size < limit; i++) {
    const s = stack.pop()!;
    const k = key(s);
    if (seen.has(k)) continue;
    seen.add(k);
    const raw = packer.encode(s);
    const c = packer.decode(canon(packer, machine, raw.slice()));
    const actions = enabledActions(machine, s);
    if (!raw.every((x, j) => x === packer.encode(c)[j])) {
      differing++;
      const theirs = enabledActions(machine, c);
      if (JSON.stringify(theirs) !== JSON.stringify(actions)) return { differing, disagreement: `enabled actions differ at state ${i}` };
      if (!s.violation && JSON.stringify(ample.choose(s, actions)) !== JSON.stringify(ampleOther.choose(c, theirs))) return { differing, disagreement: `ample sets differ at state ${i}` };
      for (const a of actions) {
        const next = cloneState(s);
        executeAction(machine, next, a);
        const fromCanon = cloneState(c);
        executeAction(machine, fromCanon, a);
        if (key(next) !== key(fromCanon)) return { differing, disagreement: `successors differ at state ${i}, action ${JSON.stringify(a)}` };
        if (next.violation?.kind !== fromCanon.violation?.kind) return { differing, disagreement: `violations differ at state ${i}` };
      }
    }
    if (s.violation) continue;
    for (const a of actions) {
      const next = cloneState(s);
      executeAction(machine, next, a);
      stack.push(next);
    }
  }
  return { differing };
}

const PROGRAMS: readonly [string, () => Program][] = [
  ['double-buffer-mbar K = 12', () => file('examples/double-buffer-mbar.aref', 12)],
  ['late-parity K = 44 (a wrong parity in iteration 39)', () => file('test/fixtures/every-k/late-parity.aref', 44)],
  ['lowered family D4 P1 C2 K = 16', () => lowerProgram(pipelineProgram({ depth: 4, pending: 1, consumers: 2, iterations: 16, level: 'aref' }))],
  ['lowered family D4 P2 C1 K = 16', () => lowerProgram(pipelineProgram({ depth: 4, pending: 2, consumers: 1, iterations: 16, level: 'aref' }))],
  ['family D2 P0 C1 K = 12, mbarrier', () => pipelineProgram({ depth: 2, pending: 0, consumers: 1, iterations: 12, level: 'mbarrier' })],
  ['persistent cooperative D2 P1 C2 K = 3 T = 4', () => pipelineProgram({ depth: 2, pending: 1, consumers: 2, iterations: 3, tiles: 4, cooperative: true, level: 'mbarrier' })],
];

describe('canonical phases', () => {
  it.each(PROGRAMS)('%s: a state and its canonical form enable the same actions, reach the same states and take the same ample set', (_, make) => {
    const result = compare(make(), 4000, canonical);
    expect(result.disagreement).toBeUndefined();
    expect(result.differing).toBeGreaterThan(20); // the phases did pass 3
  });

  it('the comparison bites: a form that forgets the parity disagrees', () => {
    const results = PROGRAMS.slice(0, 2).map(([, make]) => compare(make(), 4000, lossy));
    expect(results.some((r) => r.disagreement !== undefined)).toBe(true);
  });

  it('on random members of the pipeline family, lowered (mutants included: D ≤ P deadlocks, D = 3 with C = 2 misses a phase)', () => {
    let differing = 0;
    fc.assert(
      fc.property(arbPipelineParams({ depth: { min: 1, max: 5 }, consumers: { min: 1, max: 3 }, iterations: { min: 8, max: 24 } }), fc.boolean(), (params, cooperative) => {
        const program = cooperative
          ? pipelineProgram({ ...params, cooperative, level: 'mbarrier' })
          : lowerProgram(pipelineProgram({ ...params, level: 'aref' }));
        const result = compare(program, 800, canonical);
        differing += result.differing;
        expect(result.disagreement).toBeUndefined();
      }),
      { numRuns: 25, seed: 20261126 },
    );
    expect(differing).toBeGreaterThan(1000);
  });

  it('reports name the run’s phases: the same report as the readable model’s, which keeps every phase', () => {
    const program = file('test/fixtures/every-k/late-parity.aref', 50);
    const packed = verifyProgram(program, { level: 'mbarrier', reduction: false });
    const machine = compileMachine(program);
    const readable = buildReport(machine, 'mbarrier', check(modelOfMachine(machine), { reduction: false, collapse: false }));
    expect(packed.violations.map((v) => v.kind)).toEqual(['fifo', 'race', 'protocol']);
    expect(packed.violations).toEqual(readable.violations);
    expect(packed.violations[2]?.message).toMatch(/the barrier is in phase 20, the latest phase the waiter knows of \(through happens-before\) is phase 19/);
    expect(packed.violations[0]?.trace.some((t) => t.changes.some((c) => /phase 19 /.test(c)))).toBe(true);
  });

  it('a trace whose stored states the replay does not reach is refused, not shown', () => {
    const program = file('test/fixtures/every-k/late-parity.aref', 50);
    const model = packedModelOfMachine(compileMachine(program));
    const result = check(model, { reduction: false });
    const v = result.violations[0]!;
    // the stored state after step 5 with one barrier's parity flipped
    const bad = v.trace.map((t, i) => {
      if (i !== 5) return t;
      const words = t.state.slice();
      const at = model.packer.layout.bar(0) + BAR_PHASE;
      words[at] = words[at]! ^ 1;
      return { ...t, state: words };
    });
    expect(() => rawResult(model.machine, model.packer, { ...result, violations: [{ ...v, trace: bad }] })).toThrow(/replaying step 5 on readable states does not reach the stored state/);
  });
});
