// The happens-before knowledge bits must not multiply states: on correct pipelines the
// reachable state count is the same whether or not the bits are part of the state's identity.
import { describe, expect, it } from 'vitest';
import { pipelineProgram } from '../../src/pipeline.ts';
import { programModel } from '../../src/verify/model.ts';
import type { MachineState } from '../../semantics/index.ts';

function countStates(program: ReturnType<typeof pipelineProgram>, key: (m: ReturnType<typeof programModel>, s: MachineState) => string): number {
  const m = programModel(program);
  let frontier = m.initialStates();
  const seen = new Set(frontier.map((s) => key(m, s)));
  while (frontier.length > 0) {
    const next: MachineState[] = [];
    for (const s of frontier) {
      const actions: Parameters<typeof m.actions>[1] = [];
      m.actions(s, actions);
      for (const a of actions) {
        const t = m.nextState(s, a);
        const k = key(m, t);
        if (!seen.has(k)) {
          seen.add(k);
          next.push(t);
        }
      }
    }
    frontier = next;
  }
  return seen.size;
}

describe('HB bits cost no states on correct pipelines', () => {
  it.each([
    [3, 1, 1, 16, 'mbarrier'],
    [4, 1, 2, 16, 'mbarrier'],
    [3, 2, 1, 16, 'aref'],
  ] as const)('D=%i P=%i C=%i K=%i %s', (depth, pending, consumers, iterations, level) => {
    const program = pipelineProgram({ depth, pending, consumers, iterations, level });
    const withBits = countStates(program, (m, s) => m.encode(s).join(','));
    const withoutBits = countStates(program, (_m, s) => JSON.stringify({ ...s, hb: null }));
    expect(withBits).toBe(withoutBits);
    expect(withBits).toBeGreaterThan(50);
  });
});
