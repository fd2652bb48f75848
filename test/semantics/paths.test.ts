// The readable path (immer drafts, used by the interpreter) and the fast path (plain copies,
// used by the checker) apply the same rules; the packed encoding round-trips.
import fc from 'fast-check';
import { produce } from 'immer';
import { describe, expect, it } from 'vitest';
import { arbPipelineParams, arbProgram } from '../../src/arbitraries.ts';
import { pipelineProgram } from '../../src/pipeline.ts';
import { cloneState, enabledActions, executeAction, roleBlockedReason, start, SettleLimitError, type MachineState } from '../../semantics/index.ts';
import { roleCanMove } from '../../semantics/step.ts';
import { StatePacker } from '../../semantics/pack.ts';

const plain = (s: MachineState): unknown => JSON.parse(JSON.stringify(s));

// random programs of every op family, and pipelines at both levels (long runs through the async units)
const programs = fc.oneof(
  arbProgram(),
  fc.tuple(arbPipelineParams(), fc.constantFrom('aref' as const, 'mbarrier' as const)).map(([p, level]) => pipelineProgram({ ...p, level })),
);

describe('two implementations of the same rules', () => {
  it('immer produce and clone-then-mutate give equal states, and pack/unpack is the identity', () => {
    fc.assert(
      fc.property(programs, fc.array(fc.nat(), { minLength: 1, maxLength: 120 }), (program, choices) => {
        let booted;
        try {
          booted = start(program);
        } catch (e) {
          if (e instanceof SettleLimitError) return;
          throw e;
        }
        const { machine, state } = booted;
        const packer = new StatePacker(machine);
        let s: MachineState = state;
        for (const c of choices) {
          expect(plain(packer.decode(packer.encode(s)))).toEqual(plain(s));
          // the explorer's cheap enabledness test agrees with the rules' explanations
          for (let r = 0; r < machine.roles.length; r++) {
            const reason = roleBlockedReason(machine, s, r);
            if (r < s.roles.length && (s.roles[r]?.pc ?? 0) < (machine.roles[r]?.code.length ?? 0) && !s.violation)
              expect(roleCanMove(machine, s, r)).toBe(reason === undefined);
          }
          const actions = enabledActions(machine, s);
          if (actions.length === 0) break;
          const a = actions[c % actions.length]!;
          const viaImmer = produce(s, (d) => executeAction(machine, d, a));
          const viaClone = cloneState(s);
          executeAction(machine, viaClone, a);
          expect(plain(viaClone)).toEqual(plain(viaImmer));
          s = viaClone;
        }
      }),
      { numRuns: 150 },
    );
  });
});
