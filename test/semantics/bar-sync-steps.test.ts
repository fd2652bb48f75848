// Who arrives last at a bar.sync must not split states. When the last arriver passed at once and the
// others arrived, waited and left, the progress counter (one step or two) kept every history of
// arrival orders apart (FlashAttention-3's consumer warpgroups meet at named barriers every k-block:
// its graph grew about 5x per k-block, 382,588 states at 4 k-blocks; 19,614 once every role's
// bar.sync took two steps). Now every arriver is released alike and leaves in a step of its own.
import { describe, expect, it } from 'vitest';
import { parseProgramText } from '../../src/lang/load.ts';
import { verifyProgram } from '../../src/verify.ts';

/** Two roles meet at bar.sync 1 K times, with a local write between meetings so they drift apart. */
const meetings = (k: number): string =>
  [
    `param K = ${k}`,
    'buffer A[1] bytes 16',
    'buffer B[1] bytes 16',
    'role X warps 1:',
    '  for k in 0..K:',
    '    write A[0]',
    '    bar.sync 1, 64',
    'role Y warps 1:',
    '  for k in 0..K:',
    '    write B[0]',
    '    bar.sync 1, 64',
  ].join('\n');

const states = (k: number): number => verifyProgram(parseProgramText(meetings(k), 'meet.aref'), { reduction: false }).stats.states;

describe('bar.sync progress', () => {
  it('grows linearly in the number of meetings, whoever arrives last', () => {
    const [s4, s8, s16] = [states(4), states(8), states(16)];
    // the same number of states per meeting at every size: the arrival order of past meetings is forgotten
    expect(s8 - s4).toBe(4 * ((s16 - s8) / 8));
    expect(s16 - s8).toBe(2 * (s8 - s4));
  });
});
