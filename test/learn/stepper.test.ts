// The stepper's conversation, driven by scripts and by a simulated terminal; the state panel.
// Regenerate the goldens after an intended change: npx vitest run test/learn -u
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/diag.ts';
import { arefStatus, barrierText, formatEnabled, formatStatePanel } from '../../src/learn/panel.ts';
import { recordRandomRun } from '../../src/learn/record.ts';
import { Session } from '../../src/learn/session.ts';
import { chainSources, lineSource, runStepper, scriptSource, type CommandSource } from '../../src/learn/stepper.ts';
import { machineOf, plain } from './helpers.ts';

async function converse(file: string, input: CommandSource, params: Record<string, number> = {}, seed = 7): Promise<{ code: number; text: string; session: Session }> {
  const { machine, state } = machineOf(file, params);
  const session = new Session(machine, state);
  let text = '';
  const sourceLines = readFileSync(file, 'utf8').split('\n');
  const code = await runStepper(session, input, (t) => (text += t), { seed, c: plain, sourceLines });
  return { code, text, session };
}

/** A terminal that types these lines, then Ctrl-D. */
function terminal(lines: readonly string[]): CommandSource {
  const queue = [...lines];
  return lineSource(async () => queue.shift(), true);
}

describe('runStepper', () => {
  it('takes numbered actions and prints each step as `run` does; the input ending early exits 3', async () => {
    const { code, text, session } = await converse('examples/double-buffer.aref', scriptSource('1 1 1'));
    expect(code).toBe(3);
    expect(session.steps.map((s) => s.text)).toEqual(['put A[0], 0', 'put A[1], 1', 'get A[0] expect 0']);
    expect(text).toContain('> 1\n   1  producer               put A[0], 0  │ σ(A[0]) = ⟨0, 1, 0⟩\n');
    expect(text).toMatch(/stopped before the end: the input ended after 3 steps\n$/);
  });

  it('undoes, and `s` shows the state after the undo', async () => {
    const { text, session } = await converse('examples/double-buffer.aref', scriptSource('1 u s'));
    expect(session.steps).toHaveLength(0);
    expect(text).toContain('undid step 1: producer put A[0], 0');
    const panels = text.split('state after 0 steps:');
    expect(panels).toHaveLength(3); // at the start, and after the undo
    expect(panels[2]).toContain('A[0]      σ = ⟨⊥, 0, 1⟩  empty');
  });

  it('ends with the verdict and its exit code: the D = P deadlock is stuck (1)', async () => {
    // put, get, mma.issue, retire, wgmma.wait 1: then nothing can move
    const { code, text } = await converse('examples/depth-equals-pending.aref', scriptSource('1 1 1 1 1'));
    expect(code).toBe(1);
    expect(text).toContain('stuck after 5 steps: nothing can move\n  producer put A[0] needs E = 1; σ(A[0]) = ⟨0, 0, 0⟩ (line 12)\n  consumer get A[0] needs F = 1; σ(A[0]) = ⟨0, 0, 0⟩ (line 16)\n');
  });

  it('a run that finishes exits 0, also when the script quits at the end', async () => {
    const run = (script: string): Promise<{ code: number; text: string }> => converse('examples/double-buffer.aref', scriptSource(script), { K: 1 });
    // K = 1: put, get, mma.issue, wgmma.wait 1, retire, wgmma.wait 0, consumed
    const all = await run('1 1 1 1 1 1 1');
    expect(all.text).toContain('finished: every role completed (7 steps)');
    expect(all.code).toBe(0);
    expect((await run('1 1 1 1 1 1 1 q')).code).toBe(0);
    expect((await run('1 1 q')).code).toBe(3);
  });

  it('r takes the steps the seeded scheduler of `arefcheck run` takes', async () => {
    const { machine, state } = machineOf('examples/early-release-mbar.aref');
    const reference = recordRandomRun(machine, state, 11, 1000).steps.slice(0, 12).map((s) => s.text);
    const { session } = await converse('examples/early-release-mbar.aref', scriptSource(Array(12).fill('r').join(' ')), {}, 11);
    expect(session.steps.map((s) => s.text)).toEqual(reference);
  });

  it('names a drawn seed the first time r is used, and only then', async () => {
    const { machine, state } = machineOf('examples/double-buffer.aref');
    let text = '';
    await runStepper(new Session(machine, state), scriptSource('1 r r'), (t) => (text += t), { seed: 42, c: plain, announceSeed: true });
    expect(text.match(/r: random choices with seed 42 \(--seed 42 repeats them\)/g)).toHaveLength(1);
    expect(text.indexOf('r: random choices')).toBeGreaterThan(text.indexOf('> r'));
  });

  it('in a script, a choice that is not enabled is bad input naming the step', async () => {
    await expect(converse('examples/double-buffer.aref', scriptSource('1 9'))).rejects.toThrow(new InputError("step 2: '9' is not an enabled action: choose 1..2"));
    await expect(converse('examples/double-buffer.aref', scriptSource('1 x'))).rejects.toThrow("step 2: unknown command 'x' (? lists the commands)");
    // the depth-equals-pending run has ended after 5 steps: a 6th choice does not fit
    await expect(converse('examples/depth-equals-pending.aref', scriptSource('1 1 1 1 1 1'))).rejects.toThrow(/^step 6: '1': the run has ended/);
  });

  it('at a terminal, a mistake is answered and asked again; q quits before the end with 3', async () => {
    const { code, text, session } = await converse('examples/double-buffer.aref', terminal(['9', 'x', '', '?', '1 1', 'q']));
    expect(code).toBe(3);
    expect(session.steps).toHaveLength(2);
    expect(text).toContain("'9' is not an enabled action: choose 1..1");
    expect(text).toContain("unknown command 'x'");
    expect(text).toContain('  u   undo the last step');
    expect(text).toContain('quit after 2 steps, before the run ended');
    expect(text).not.toContain('> 1'); // a terminal echoes what is typed itself
  });

  it('a script, then the terminal', async () => {
    const { session } = await converse('examples/double-buffer.aref', chainSources(scriptSource('1'), terminal(['1', 'q'])));
    expect(session.steps.map((s) => s.actor)).toEqual(['producer', 'producer']);
  });
});

describe('the state panel', () => {
  it('names what ⟨_, F, E⟩ means and which parity a wait passes', () => {
    expect([arefStatus(1, 0), arefStatus(0, 1), arefStatus(0, 0)]).toEqual(['full', 'empty', 'borrowed']);
    const { machine, state } = machineOf('examples/double-buffer-mbar.aref');
    expect(barrierText(state, 0)).toBe('phase 0 pending 1/1 tx 0; wait parity 1 passes, parity 0 blocks');
    const session = new Session(machine, state);
    // wait empty[0], arrive.expect_tx, tma.load, then the landing completes phase 0 of full[0]
    for (const i of [0, 0, 0, 1]) session.step(i);
    expect(barrierText(session.state, 0)).toBe('phase 1 pending 1/1 tx 0; wait parity 0 passes, parity 1 blocks');
  });

  it('mbarrier level, mid-run: barriers, slots with copies in flight, roles with lines and waits (golden)', async () => {
    const file = 'examples/double-buffer-mbar.aref';
    const { machine, state } = machineOf(file);
    const session = new Session(machine, state);
    // the producer starts both copies; S[0] lands (S[1] is still in flight); the consumer waits, issues and commits
    for (let i = 0; i < 10; i++) session.step(0);
    const sourceLines = readFileSync(file, 'utf8').split('\n');
    const text = [...formatStatePanel(machine, session.state, session.steps.length, { c: plain, sourceLines }), ...formatEnabled(machine, session.state, session.enabled(), plain)].join('\n');
    await expect(`${text}\n`).toMatchFileSnapshot('./golden/double-buffer-mbar.panel.txt');
    expect(text).toContain('1 group outstanding (reads of S[0])');
    expect(text).toMatch(/S\[1\]\s+⊥; TMA in flight: value 1, complete_tx 16384 on full\[1\]/);
  });

  it('aref level: σ per slot and a blocked role’s reason', () => {
    const { machine, state } = machineOf('examples/depth-equals-pending.aref');
    const session = new Session(machine, state);
    for (let i = 0; i < 5; i++) session.step(0);
    const text = formatStatePanel(machine, session.state, 5, { c: plain }).join('\n');
    expect(text).toBe(
      [
        'state after 5 steps:',
        '  A[0]      σ = ⟨0, 0, 0⟩  borrowed',
        '  producer  line 12  [k = 1]',
        '            next: put A[0], 1 (cannot move: put A[0] needs E = 1; σ(A[0]) = ⟨0, 0, 0⟩)',
        '  consumer  line 16  [k = 1]',
        '            next: get A[0] expect 1 (cannot move: get A[0] needs F = 1; σ(A[0]) = ⟨0, 0, 0⟩)',
        '            no wgmma group outstanding',
      ].join('\n'),
    );
  });
});
