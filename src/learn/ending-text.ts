// How a run ended, in the words `arefcheck run` uses: a headline, then one line per detail.
import type { Ending } from './session.ts';

export interface EndingText {
  readonly headline: string;
  readonly details: readonly string[];
  /** a deadlock, a violation or a non-terminating cycle (not: finished, or stopped early) */
  readonly bad: boolean;
}

/** "1 step", "5 steps" */
export const stepCount = (n: number): string => `${n} step${n === 1 ? '' : 's'}`;

export function describeEnding(ending: Ending, steps: number): EndingText {
  switch (ending.kind) {
    case 'finished':
      return { headline: `finished: every role completed (${stepCount(steps)})`, details: [], bad: false };
    case 'stuck':
      return { headline: `stuck after ${stepCount(steps)}: nothing can move`, details: ending.reasons, bad: true };
    case 'violation': {
      const line = ending.line === undefined ? '' : ` (line ${ending.line})`;
      return { headline: `${ending.violation} error after ${stepCount(steps)}:`, details: [`${ending.message}${line}`], bad: true };
    }
    case 'cycle':
      return { headline: `termination: the steps after step ${ending.loopStart} repeat forever`, details: [ending.message], bad: true };
    case 'open':
      return { headline: `stopped after ${stepCount(steps)}`, details: [ending.message], bad: false };
  }
}
