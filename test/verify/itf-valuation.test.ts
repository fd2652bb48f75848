// Trace files carry full state valuations (issue 11.3, as Apalache and Quint write ITF): every state
// has every variable in `vars`, and the valuations agree with the step descriptions the checker
// writes independently ("full[0]: phase 1 pending 1/1 tx 0", "S[0] = 1") on every golden trace.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/regen-traces.ts';

interface State {
  readonly changes: readonly string[];
  readonly [key: string]: unknown;
}
interface Barrier {
  readonly phase: number;
  readonly pending: number;
  readonly expected: number;
  readonly tx: number;
}

const goldens = readdirSync(join(ROOT, 'traces')).filter((f) => f.endsWith('.json'));
let crossChecked = 0;

describe('ITF trace files carry full valuations', () => {
  it.each(goldens)('%s: every state has every variable, and the valuations match the described changes', (file) => {
    const trace = JSON.parse(readFileSync(join(ROOT, 'traces', file), 'utf8')) as { vars: string[]; states: State[] };
    expect(trace.vars).toEqual(['changes', 'roles', 'slots', 'barriers', 'inFlight', 'groups']);
    let checked = 0;
    for (const state of trace.states) {
      for (const v of trace.vars) expect(state, `${v} in every state`).toHaveProperty(v);
      const barriers = state['barriers'] as Record<string, Barrier>;
      const slots = state['slots'] as Record<string, { value: number | string }>;
      for (const change of state.changes) {
        const bar = /^(\S+): phase (\d+) pending (\d+)\/(\d+) tx (-?\d+)/.exec(change);
        if (bar) {
          expect(barriers[bar[1]!], change).toMatchObject({ phase: Number(bar[2]), pending: Number(bar[3]), expected: Number(bar[4]), tx: Number(bar[5]) });
          checked++;
        }
        const slot = /^(\S+\[\d+\]) = (-?\d+)$/.exec(change);
        if (slot) {
          expect(slots[slot[1]!]?.value, change).toBe(Number(slot[2]));
          checked++;
        }
        const sigma = /^σ\((\S+)\) = ⟨(⊥|-?\d+), (\d), (\d)⟩/.exec(change);
        if (sigma) {
          expect(slots[sigma[1]!], change).toEqual({ value: sigma[2] === '⊥' ? '⊥' : Number(sigma[2]), F: Number(sigma[3]), E: Number(sigma[4]) });
          checked++;
        }
        const flight = /^TMA in flight: (\d+)$/.exec(change);
        if (flight) {
          expect((state['inFlight'] as unknown[]).length, change).toBe(Number(flight[1]));
          checked++;
        }
      }
    }
    crossChecked += checked;
  });

  it('the cross-check is not vacuous', () => {
    expect(crossChecked).toBeGreaterThan(100);
  });
});
