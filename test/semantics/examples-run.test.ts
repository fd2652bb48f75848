// `arefcheck run` on the bundled examples ends as expected on every one of 200 seeds.
import { describe, expect, it } from 'vitest';
import { loadProgramFile } from '../../src/lang/index.ts';
import { randomRun } from '../../src/interp/run.ts';

const outcomes = (file: string): Set<string> => {
  const program = loadProgramFile(file);
  const seen = new Set<string>();
  for (let seed = 0; seed < 200; seed++) {
    const o = randomRun(program, { seed }).outcome;
    seen.add(o.kind === 'error' ? `error:${o.violation.kind}` : o.kind);
  }
  return seen;
};

describe('random runs over 200 seeds', () => {
  it('a correct double-buffered pipeline always finishes, at both levels', () => {
    expect(outcomes('examples/double-buffer.aref')).toEqual(new Set(['finished']));
    expect(outcomes('examples/double-buffer-mbar.aref')).toEqual(new Set(['finished']));
  });
  it('D = P always gets stuck', () => {
    expect(outcomes('examples/depth-equals-pending.aref')).toEqual(new Set(['stuck']));
  });
  it('releasing before wgmma.wait is a race on every seed: the producer always rewrites the slot (K > D)', () => {
    expect(outcomes('examples/early-release-mbar.aref')).toEqual(new Set(['error:race']));
  });
});
