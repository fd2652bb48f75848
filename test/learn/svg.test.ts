// The hand-laid SVG: golden files, labels that fit between their lifelines, wrapped notes,
// escaped text, balanced elements.
// Regenerate the goldens after an intended change: npx vitest run test/learn -u
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Lifeline, SequenceItem } from '../../src/learn/sequence.ts';
import { layoutColumns, sequenceToSvg, textWidth, wrapText, xmlText } from '../../src/learn/svg.ts';
import { seededSequence } from './helpers.ts';

/** Every element opened is closed, in order (the SVG has no text that looks like a tag: it is escaped). */
function expectBalanced(svg: string): void {
  const stack: string[] = [];
  for (const m of svg.matchAll(/<(\/?)([a-zA-Z]+)[^>]*?(\/?)>/g)) {
    const [, close, name = '', selfClose] = m;
    if (selfClose) continue;
    if (close) expect(stack.pop()).toBe(name);
    else stack.push(name);
  }
  expect(stack).toEqual([]);
}

describe('sequenceToSvg', () => {
  it('the early release race (seed 3) matches its golden', async () => {
    const svg = sequenceToSvg(seededSequence('examples/early-release-mbar.aref', 3));
    expectBalanced(svg);
    await expect(svg).toMatchFileSnapshot('./golden/early-release-mbar.seed3.svg');
  });

  it('the D = P deadlock (seed 1) matches its golden', async () => {
    const svg = sequenceToSvg(seededSequence('examples/depth-equals-pending.aref', 1));
    expectBalanced(svg);
    await expect(svg).toMatchFileSnapshot('./golden/depth-equals-pending.seed1.svg');
  });

  it('draws each lifeline’s box twice, one arrow per message (the violating one with the cross), and escapes text', () => {
    const d = seededSequence('examples/early-release-mbar.aref', 3);
    const svg = sequenceToSvg(d);
    const messages = d.items.filter((x) => x.kind === 'message');
    expect(svg.match(/<rect [^>]*rx="4"/g)).toHaveLength(2 * d.lifelines.length);
    expect(svg.match(/marker-end="url\(#head\)"/g)).toHaveLength(messages.length - 1);
    expect(svg.match(/marker-end="url\(#cross\)"/g)).toHaveLength(1);
    expect(sequenceToSvg({ ...d, caption: 'x < y & z' })).toContain('<title>x &lt; y &amp; z</title>');
  });

  it('escapes XML text', () => {
    expect(xmlText('a < b && c > "d"')).toBe('a &lt; b &amp;&amp; c &gt; &quot;d&quot;');
  });
});

describe('layoutColumns', () => {
  const arbLayout = fc
    .integer({ min: 1, max: 8 })
    .chain((n) =>
      fc.record({
        names: fc.array(fc.string({ minLength: 1, maxLength: 20 }), { minLength: n, maxLength: n }),
        arrows: fc.array(fc.record({ from: fc.nat(n - 1), to: fc.nat(n - 1), label: fc.string({ maxLength: 80 }) }), { maxLength: 30 }),
      }),
    );

  it('spaces the lifelines so that every label fits between its two ends (property)', () => {
    fc.assert(
      fc.property(arbLayout, ({ names, arrows }) => {
        const lifelines: Lifeline[] = names.map((name, i) => ({ id: `l${i}`, name, kind: 'role' }));
        const items: SequenceItem[] = arrows.map((a) => ({ kind: 'message', from: `l${a.from}`, to: `l${a.to}`, label: a.label, dashed: false, failed: false }));
        const cols = layoutColumns(lifelines, items);
        for (let i = 1; i < cols.x.length; i++) {
          // neighbouring boxes do not overlap
          expect((cols.x[i] ?? 0) - (cols.x[i - 1] ?? 0)).toBeGreaterThanOrEqual(((cols.boxW[i] ?? 0) + (cols.boxW[i - 1] ?? 0)) / 2);
        }
        for (const a of arrows) {
          const span = Math.abs((cols.x[a.to] ?? 0) - (cols.x[a.from] ?? 0));
          if (a.from !== a.to) expect(span).toBeGreaterThanOrEqual(textWidth(a.label));
          else {
            // a self-arrow's label sits right of its loop: room up to the next lifeline or the edge
            const room = a.from + 1 < cols.x.length ? (cols.x[a.from + 1] ?? 0) - (cols.x[a.from] ?? 0) : cols.width - (cols.x[a.from] ?? 0);
            expect(room).toBeGreaterThanOrEqual(textWidth(a.label));
          }
        }
        expect(cols.width).toBeGreaterThanOrEqual((cols.x[cols.x.length - 1] ?? 0) + (cols.boxW[cols.boxW.length - 1] ?? 0) / 2);
      }),
    );
  });
});

describe('wrapText', () => {
  it('keeps every line within the width and every word, in order (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z⟨⟩]{1,12}$/), { maxLength: 30 }), fc.integer({ min: 12, max: 60 }), (words, width) => {
        const lines = wrapText(words.join(' '), width);
        for (const l of lines) expect([...l].length).toBeLessThanOrEqual(width);
        expect(lines.join(' ').split(' ').filter((w) => w !== '')).toEqual(words);
      }),
    );
  });

  it('cuts a word longer than a line', () => {
    expect(wrapText('abcdefghij kl', 4)).toEqual(['abcd', 'efgh', 'ij', 'kl']);
  });
});
