// The DOT state graph: the same states the checker counts, ends marked, a golden for D = P.
// Regenerate the golden after an intended change: npx vitest run test/learn -u
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbProgram } from '../../src/arbitraries.ts';
import { InputError } from '../../src/diag.ts';
import { exploreStateGraph, stateGraphToDot } from '../../src/learn/state-graph.ts';
import { verifyProgram } from '../../src/verify.ts';
import { compileMachine } from '../../semantics/index.ts';
import type { Program } from '../../src/ir/program.ts';
import { machineOf } from './helpers.ts';

/** States the checker stores for `program` (it stops early only at a violation when asked to). */
// the full graph: the learning view draws every interleaving, so compare with no reduction
const checkerStates = (program: Program): number => verifyProgram(program, { stopAtFirst: false, reduction: false }).stats.states;

describe('exploreStateGraph', () => {
  it('reaches exactly the states the checker counts, on the examples (K = 2)', () => {
    for (const file of ['examples/double-buffer.aref', 'examples/depth-equals-pending.aref', 'examples/early-release-mbar.aref', 'examples/double-buffer-mbar.aref']) {
      const { machine, program } = machineOf(file, { K: 2 });
      expect(exploreStateGraph(machine, 10_000).states.length).toBe(checkerStates(program));
    }
  });

  it('reaches exactly the states the checker counts, on random programs (property)', () => {
    fc.assert(
      fc.property(arbProgram({ maxRoles: 2, maxStatements: 3 }), (program) => {
        let states: number;
        try {
          states = exploreStateGraph(compileMachine(program), 3000).states.length;
        } catch (e) {
          if (e instanceof InputError) return; // too big to draw: not this test's business
          throw e;
        }
        expect(states).toBe(checkerStates(program));
      }),
      { numRuns: 40 },
    );
  });

  it('refuses a graph larger than asked, as bad input', () => {
    const { machine } = machineOf('examples/double-buffer.aref', { K: 2 });
    expect(() => exploreStateGraph(machine, 10)).toThrow(new InputError('the state graph has more than 10 states: draw a smaller instance (--param) or raise --max-states'));
  });
});

describe('stateGraphToDot', () => {
  it('the D = P deadlock with K = 2 matches its golden: one stuck state, two interleavings into it', async () => {
    const { machine } = machineOf('examples/depth-equals-pending.aref', { K: 2 });
    const graph = exploreStateGraph(machine, 100);
    const dot = stateGraphToDot(machine, graph, 'depth-equals-pending K=2');
    expect(dot.match(/stuck: nothing can move/g)).toHaveLength(1);
    expect(graph.edges.filter((e) => e.to === graph.states.length - 1)).toHaveLength(2);
    await expect(dot).toMatchFileSnapshot('./golden/depth-equals-pending.K2.dot');
  });

  it('marks finished states and violations, and escapes quotes', () => {
    const fine = machineOf('examples/double-buffer.aref', { K: 1 });
    const dot = stateGraphToDot(fine.machine, exploreStateGraph(fine.machine, 100), 'say "hi"');
    expect(dot).toContain('label="say \\"hi\\"";');
    expect(dot.match(/\\lfinished\\l"/g)).toHaveLength(1);
    const race = machineOf('examples/early-release-mbar.aref', { K: 3 });
    const raceDot = stateGraphToDot(race.machine, exploreStateGraph(race.machine, 1000), 'race');
    expect(raceDot).toMatch(/\\lrace: producer: race on S\[0\]/);
  });
});
