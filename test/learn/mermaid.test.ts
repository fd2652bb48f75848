// Mermaid text: golden files for the examples, escaping, and a line grammar every output obeys.
// Regenerate the goldens after an intended change: npx vitest run test/learn -u
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbProgram } from '../../src/arbitraries.ts';
import { mermaidText, sequenceToMermaid } from '../../src/learn/mermaid.ts';
import { recordRandomRun } from '../../src/learn/record.ts';
import { buildSequence } from '../../src/learn/sequence.ts';
import { start } from '../../semantics/index.ts';
import { seededSequence } from './helpers.ts';

const ID = '[a-z]+\\d*';
const LINE = new RegExp(
  [
    '^sequenceDiagram$',
    '^  %% [^\\n]*$',
    `^  participant ${ID} as [^#;\\n]+$`,
    `^  ${ID}(->>|-->>|-x|--x)${ID}: [^#;\\n]*(#\\d+;[^#;\\n]*)*$`,
    `^  Note over ${ID}(,${ID})?: [^#;\\n]*(#\\d+;[^#;\\n]*)*$`,
  ].join('|'),
);

function expectGrammar(text: string): void {
  const lines = text.split('\n');
  expect(lines.pop()).toBe('');
  for (const line of lines) expect(line).toMatch(LINE);
}

describe('sequenceToMermaid', () => {
  it('the early release race (seed 3) matches its golden', async () => {
    const text = sequenceToMermaid(seededSequence('examples/early-release-mbar.aref', 3));
    expectGrammar(text);
    await expect(text).toMatchFileSnapshot('./golden/early-release-mbar.seed3.mmd');
  });

  it('the D = P deadlock (seed 1) matches its golden', async () => {
    const text = sequenceToMermaid(seededSequence('examples/depth-equals-pending.aref', 1));
    expectGrammar(text);
    await expect(text).toMatchFileSnapshot('./golden/depth-equals-pending.seed1.mmd');
  });

  it('a finished run of the double buffer (K = 2, seed 2) matches its golden', async () => {
    const text = sequenceToMermaid(seededSequence('examples/double-buffer.aref', 2, { K: 2 }));
    expectGrammar(text);
    await expect(text).toMatchFileSnapshot('./golden/double-buffer.K2.seed2.mmd');
  });

  it('writes a participant per lifeline and one arrow per message, the verdict last', () => {
    const d = seededSequence('examples/depth-equals-pending.aref', 1);
    const lines = sequenceToMermaid(d).trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('  participant '))).toHaveLength(d.lifelines.length);
    expect(lines.filter((l) => /^  \w+-/.test(l))).toHaveLength(d.items.filter((x) => x.kind === 'message').length);
    expect(lines[lines.length - 1]).toBe(
      '  Note over r0,r1: stuck after 5 steps: nothing can move<br/>producer put A[0] needs E = 1#59; σ(A[0]) = ⟨0, 0, 0⟩ (line 12)<br/>consumer get A[0] needs F = 1#59; σ(A[0]) = ⟨0, 0, 0⟩ (line 16)',
    );
  });

  it('escapes what ends Mermaid text (# and ;) as entity codes, and joins lines', () => {
    expect(mermaidText('a; b # c\nd')).toBe('a#59; b #35; c d');
    expect(mermaidText('plain ⟨0, 1, 0⟩ → phase 1')).toBe('plain ⟨0, 1, 0⟩ → phase 1');
  });

  it('draws the violating step with a cross and async units dashed', () => {
    const text = sequenceToMermaid(seededSequence('examples/early-release-mbar.aref', 3));
    expect(text).toContain('  r0-xtma: 19. tma.load S[0] value 2, 16384 B on full[0]\n');
    expect(text).toContain('  tma-->>s0: 5. lands value 0\n');
    expect(text.match(/-x|--x/g)).toHaveLength(1);
  });

  it('every random program’s run is written in the grammar (property)', () => {
    fc.assert(
      fc.property(arbProgram(), fc.integer({ min: 0, max: 1000 }), (program, seed) => {
        const { machine, state } = start(program);
        const run = recordRandomRun(machine, state, seed, 60);
        expectGrammar(sequenceToMermaid(buildSequence(machine, run.steps, run.ending, { caption: 'random; #1' })));
      }),
      { numRuns: 60 },
    );
  });
});
