// Steps as arrows: who talks to whom, with what label; the lifelines and the closing note.
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbProgram } from '../../src/arbitraries.ts';
import { stepMessages } from '../../src/learn/messages.ts';
import { recordIndices, recordRandomRun } from '../../src/learn/record.ts';
import { buildSequence } from '../../src/learn/sequence.ts';
import { start } from '../../semantics/index.ts';
import { machineOf, seededRun, seededSequence } from './helpers.ts';

describe('stepMessages', () => {
  it('aref ops: put, get and consumed go from the role to the slot, with σ after the step', () => {
    const { machine, state } = machineOf('examples/double-buffer.aref', { K: 2 });
    // put A[0], put A[1], get A[0], mma.issue A[0], wgmma.wait 1 (retire first), ...
    const steps = recordIndices(machine, state, [0, 0, 0, 0, 0]);
    if (!steps) throw new Error('the script does not fit');
    const msgs = steps.flatMap((s) => stepMessages(machine, s));
    expect(msgs.slice(0, 3).map((m) => [m.from, m.to, m.label])).toEqual([
      [{ kind: 'role', role: 0 }, { kind: 'slot', slot: 0 }, '1. put 0 → ⟨0, 1, 0⟩'],
      [{ kind: 'role', role: 0 }, { kind: 'slot', slot: 1 }, '2. put 1 → ⟨1, 1, 0⟩'],
      [{ kind: 'role', role: 1 }, { kind: 'slot', slot: 0 }, '3. get = 0 expect 0 → ⟨0, 0, 0⟩'],
    ]);
    expect(msgs[3]).toMatchObject({ from: { kind: 'role', role: 1 }, to: { kind: 'wgmma', role: 1 }, label: '4. mma.issue A[0] (reads 0)', dashed: false });
    expect(msgs.every((m) => !m.failed)).toBe(true);
  });

  it('a TMA landing is two dashed arrows: the value into the slot, complete_tx on the barrier (with the phase it completes)', () => {
    const { machine, state } = machineOf('examples/early-release-mbar.aref');
    // wait empty[0], arrive.expect_tx full[0], tma.load S[0], then the landing (the only TMA action is after the producer's next wait)
    const steps = recordIndices(machine, state, [0, 0, 0, 1]);
    const land = steps?.[3];
    if (!land) throw new Error('the script does not fit');
    expect(land.action.kind).toBe('land');
    const msgs = stepMessages(machine, land);
    expect(msgs.map((m) => [m.from.kind, m.to, m.label, m.dashed])).toEqual([
      ['tma', { kind: 'slot', slot: 0 }, '4. lands value 0', true],
      ['tma', { kind: 'barrier', barrier: 0 }, '4. complete_tx 16384 → phase 1 pending 1/1 tx 0', true],
    ]);
    const wait = stepMessages(machine, steps[0]!)[0];
    expect(wait?.label).toBe('1. wait parity 1 passes (phase 0)');
    expect(wait?.to).toEqual({ kind: 'barrier', barrier: 2 }); // empty[0]: full[0..1] come first
  });

  it('named barriers: arrivals count threads in, the completing one says so, a waiter leaves released', () => {
    const { machine, run } = seededRun('examples/gallery/m14-elected-arrive-ok.aref', 2, { K: 2 });
    const labels = run.steps.flatMap((s) => stepMessages(machine, s)).filter((m) => m.to.kind === 'named').map((m) => m.label.replace(/^\d+\. /, ''));
    expect(labels.slice(0, 3)).toEqual(['bar.sync 1, 64 → 32 threads in', 'bar.sync 1, 64 → complete, every waiter released', 'bar.sync 1, 64 (released)']);
  });

  it('fence.proxy.async is a role talking to itself', () => {
    const { machine, run } = seededRun('examples/gallery/m13-missing-proxy-fence-ok.aref', 2);
    const fences = run.steps.flatMap((s) => stepMessages(machine, s)).filter((m) => m.label.endsWith('fence.proxy.async'));
    expect(fences.length).toBeGreaterThan(0);
    for (const f of fences) expect(f.to).toEqual(f.from);
  });

  it('marks the step that produced the violation, and only that one', () => {
    const { machine, run } = seededRun('examples/early-release-mbar.aref', 3);
    const failed = run.steps.flatMap((s) => stepMessages(machine, s)).filter((m) => m.failed);
    expect(failed.map((m) => m.step)).toEqual([run.steps.length]);
    expect(failed[0]?.label).toMatch(/tma\.load S\[0\] value 2/);
  });
});

describe('buildSequence', () => {
  it('orders the lifelines: first role, TMA, slots, barriers, then the wgmma unit and its role', () => {
    const d = seededSequence('examples/early-release-mbar.aref', 3);
    expect(d.lifelines.map((l) => l.name)).toEqual(['producer', 'TMA', 'S[0]', 'S[1]', 'full[0]', 'full[1]', 'empty[0]', 'empty[1]', 'wgmma (consumer)', 'consumer']);
    expect(d.lifelines.map((l) => l.kind)).toEqual(['role', 'unit', 'resource', 'resource', 'resource', 'resource', 'resource', 'resource', 'unit', 'role']);
  });

  it('ends with the verdict: a bad note for a deadlock with each role’s reason, a good one when finished', () => {
    const stuck = seededSequence('examples/depth-equals-pending.aref', 1);
    const last = stuck.items[stuck.items.length - 1];
    expect(last).toEqual({
      kind: 'note',
      tone: 'bad',
      lines: ['stuck after 5 steps: nothing can move', 'producer put A[0] needs E = 1; σ(A[0]) = ⟨0, 0, 0⟩ (line 12)', 'consumer get A[0] needs F = 1; σ(A[0]) = ⟨0, 0, 0⟩ (line 16)'],
    });
    const fine = seededSequence('examples/double-buffer.aref', 2, { K: 2 });
    expect(fine.items[fine.items.length - 1]).toMatchObject({ kind: 'note', tone: 'ok', lines: [expect.stringMatching(/^finished: every role completed/)] });
  });

  it('marks where a termination cycle starts', () => {
    const { machine, run } = seededRun('examples/double-buffer.aref', 1, { K: 2 });
    const d = buildSequence(machine, run.steps, { kind: 'cycle', loopStart: 2, message: 'm' }, { caption: 'c', loopStart: 2 });
    const notes = d.items.flatMap((x, i) => (x.kind === 'note' ? [i] : []));
    // the cycle note comes after the arrows of steps 1 and 2, before those of step 3
    expect(notes[0]).toBe(2);
    expect(d.items[notes[0]!]).toMatchObject({ tone: 'info', lines: [`the cycle starts here: steps 3..${run.steps.length} repeat forever`] });
  });

  it('on random programs: every arrow joins two lifelines, every role has one, steps appear in order (property)', () => {
    fc.assert(
      fc.property(arbProgram(), fc.integer({ min: 0, max: 1000 }), (program, seed) => {
        const { machine, state } = start(program);
        const run = recordRandomRun(machine, state, seed, 100);
        const d = buildSequence(machine, run.steps, run.ending, { caption: 'p' });
        const ids = new Set(d.lifelines.map((l) => l.id));
        expect(ids.size).toBe(d.lifelines.length);
        for (let r = 0; r < machine.roles.length; r++) expect(ids.has(`r${r}`)).toBe(true);
        const arrows = d.items.flatMap((x) => (x.kind === 'message' ? [x] : []));
        for (const a of arrows) expect(ids.has(a.from) && ids.has(a.to)).toBe(true);
        const numbers = arrows.map((a) => Number(/^(\d+)\. /.exec(a.label)?.[1]));
        expect(numbers).toEqual([...numbers].sort((x, y) => x - y));
        // every step draws at least one arrow
        expect(new Set(numbers).size).toBe(run.steps.length);
        expect(d.items[d.items.length - 1]?.kind).toBe('note');
      }),
      { numRuns: 60 },
    );
  });
});
