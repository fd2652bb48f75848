// A sequence diagram as Mermaid `sequenceDiagram` text (GitHub renders it in ```mermaid blocks).
import type { SequenceDiagram } from './sequence.ts';

/**
 * Message and note text runs to the end of the line and may not hold `#` or `;` (Mermaid's
 * lexer stops there); both have entity codes that Mermaid decodes back.
 */
export function mermaidText(text: string): string {
  // one pass: the `;` of a code just written must not be escaped again
  return text.replace(/\r?\n/g, ' ').replace(/[#;]/g, (ch) => (ch === '#' ? '#35;' : '#59;'));
}

function arrow(dashed: boolean, failed: boolean): string {
  if (failed) return dashed ? '--x' : '-x';
  return dashed ? '-->>' : '->>';
}

export function sequenceToMermaid(d: SequenceDiagram): string {
  const lines = ['sequenceDiagram', `  %% ${d.caption.replace(/\r?\n/g, ' ')}`];
  for (const l of d.lifelines) lines.push(`  participant ${l.id} as ${mermaidText(l.name)}`);
  const first = d.lifelines[0]?.id;
  const last = d.lifelines[d.lifelines.length - 1]?.id;
  const span = first === last ? first : `${first},${last}`;
  for (const item of d.items) {
    if (item.kind === 'message') lines.push(`  ${item.from}${arrow(item.dashed, item.failed)}${item.to}: ${mermaidText(item.label)}`);
    else if (span !== undefined) lines.push(`  Note over ${span}: ${item.lines.map(mermaidText).join('<br/>')}`);
  }
  return `${lines.join('\n')}\n`;
}
