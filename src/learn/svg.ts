// A sequence diagram as a small standalone SVG, laid out here (no browser, no fonts measured):
// text is monospace, so a label's width is its length times one advance. Columns widen until
// every arrow's label fits between its two lifelines; notes wrap to the diagram's width.
import type { Lifeline, SequenceDiagram, SequenceItem } from './sequence.ts';

const FONT_SIZE = 12;
/** advance of a 12 px monospace glyph (DejaVu Sans Mono: 0.602 em), rounded up */
const CHAR_W = 7.3;
const LINE_H = 16;
const MARGIN = 16;
const BOX_H = 28;
const BOX_PAD = 10;
const MIN_BOX_W = 72;
const MIN_GAP = 24;
const LABEL_PAD = 24;
const ROW_H = 30;
const SELF_W = 28;
const SELF_H = 14;

const COLORS = {
  role: { fill: '#dbe8fb', stroke: '#3b6fb6' },
  unit: { fill: '#fdf0cf', stroke: '#b08a1e' },
  resource: { fill: '#e0f2e4', stroke: '#3b8a4f' },
  ink: '#222222',
  lifeline: '#9aa0a6',
  failed: '#c5221f',
  note: { ok: '#e6f4ea', bad: '#fce8e6', info: '#fff8d6', stroke: '#999999' },
} as const;

/** a white outline under message labels, so the lifelines they cross do not cut through the glyphs */
const HALO = ' stroke="#ffffff" stroke-width="3" paint-order="stroke"';

/** Width of a label in pixels: its characters times the monospace advance. */
export const textWidth = (text: string): number => Math.ceil([...text].length * CHAR_W);

export function xmlText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Greedy word wrap to `width` characters; a word longer than a line is cut. */
export function wrapText(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    let w = word;
    while ([...w].length > width) {
      if (line) out.push(line);
      line = '';
      out.push([...w].slice(0, width).join(''));
      w = [...w].slice(width).join('');
    }
    const candidate = line ? `${line} ${w}` : w;
    if ([...candidate].length > width && line) {
      out.push(line);
      line = w;
    } else {
      line = candidate;
    }
  }
  if (line || out.length === 0) out.push(line);
  return out;
}

export interface Columns {
  readonly x: readonly number[];
  readonly boxW: readonly number[];
  readonly width: number;
}

/** Lifeline centres: wide enough for the boxes, then for every label (short spans first). */
export function layoutColumns(lifelines: readonly Lifeline[], items: readonly SequenceItem[]): Columns {
  // even widths keep every box edge on a whole pixel
  const boxW = lifelines.map((l) => 2 * Math.ceil(Math.max(MIN_BOX_W, textWidth(l.name) + 2 * BOX_PAD) / 2));
  const gaps = boxW.slice(1).map((w, i) => Math.ceil(((boxW[i] ?? 0) + w) / 2) + MIN_GAP);
  let tail = 0; // room right of the last lifeline (a self-arrow's label there)
  const index = new Map(lifelines.map((l, i) => [l.id, i]));
  const spans: { lo: number; hi: number; need: number }[] = [];
  for (const item of items) {
    if (item.kind !== 'message') continue;
    const a = index.get(item.from) ?? 0;
    const b = index.get(item.to) ?? 0;
    const need = textWidth(item.label) + LABEL_PAD;
    if (a === b) {
      if (a < gaps.length) spans.push({ lo: a, hi: a + 1, need: need + SELF_W });
      else tail = Math.max(tail, need + SELF_W);
    } else {
      spans.push({ lo: Math.min(a, b), hi: Math.max(a, b), need });
    }
  }
  spans.sort((p, q) => p.hi - p.lo - (q.hi - q.lo));
  for (const s of spans) {
    let have = 0;
    for (let i = s.lo; i < s.hi; i++) have += gaps[i] ?? 0;
    if (have >= s.need) continue;
    const each = Math.ceil((s.need - have) / (s.hi - s.lo));
    for (let i = s.lo; i < s.hi; i++) gaps[i] = (gaps[i] ?? 0) + each;
  }
  const x: number[] = [];
  let at = MARGIN + Math.ceil((boxW[0] ?? 0) / 2);
  for (let i = 0; i < lifelines.length; i++) {
    x.push(at);
    at += gaps[i] ?? 0;
  }
  const lastX = x[x.length - 1] ?? MARGIN;
  const width = lastX + Math.max(Math.ceil((boxW[boxW.length - 1] ?? 0) / 2), tail) + MARGIN;
  return { x, boxW, width };
}

function boxes(lifelines: readonly Lifeline[], cols: Columns, y: number): string[] {
  return lifelines.map((l, i) => {
    const c = COLORS[l.kind];
    const w = cols.boxW[i] ?? MIN_BOX_W;
    const x = cols.x[i] ?? 0;
    return (
      `<rect x="${x - w / 2}" y="${y}" width="${w}" height="${BOX_H}" rx="4" fill="${c.fill}" stroke="${c.stroke}"/>` +
      `<text x="${x}" y="${y + BOX_H / 2 + 4}" text-anchor="middle">${xmlText(l.name)}</text>`
    );
  });
}

const MARKERS = [
  `<marker id="head" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="${COLORS.ink}"/></marker>`,
  `<marker id="cross" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="10" markerHeight="10" orient="auto"><path d="M1,1 L9,9 M9,1 L1,9" stroke="${COLORS.failed}" stroke-width="2"/></marker>`,
];

export function sequenceToSvg(d: SequenceDiagram): string {
  const cols = layoutColumns(d.lifelines, d.items);
  const index = new Map(d.lifelines.map((l, i) => [l.id, i]));
  const left = MARGIN;
  const right = cols.width - MARGIN;
  const noteChars = Math.max(20, Math.floor((right - left - 2 * BOX_PAD) / CHAR_W));

  const body: string[] = [];
  let y = MARGIN + BOX_H + 12;
  for (const item of d.items) {
    if (item.kind === 'note') {
      y += 14;
      const lines = item.lines.flatMap((l) => wrapText(l, noteChars));
      const h = lines.length * LINE_H + 10;
      body.push(`<rect x="${left}" y="${y}" width="${right - left}" height="${h}" fill="${COLORS.note[item.tone]}" stroke="${COLORS.note.stroke}"/>`);
      lines.forEach((line, i) => body.push(`<text x="${left + BOX_PAD}" y="${y + 5 + (i + 1) * LINE_H - 4}">${xmlText(line)}</text>`));
      y += h;
      continue;
    }
    const a = cols.x[index.get(item.from) ?? 0] ?? 0;
    const b = cols.x[index.get(item.to) ?? 0] ?? 0;
    const stroke = item.failed ? COLORS.failed : COLORS.ink;
    const dash = item.dashed ? ' stroke-dasharray="5,3"' : '';
    const marker = item.failed ? 'url(#cross)' : 'url(#head)';
    const ink = item.failed ? ` fill="${COLORS.failed}"` : '';
    y += ROW_H;
    if (a === b) {
      body.push(`<path d="M${a},${y - 8} h${SELF_W} v${SELF_H} h${-SELF_W}" fill="none" stroke="${stroke}"${dash} marker-end="${marker}"/>`);
      body.push(`<text x="${a + SELF_W + 6}" y="${y - 4}"${ink}${HALO}>${xmlText(item.label)}</text>`);
      y += SELF_H;
    } else {
      body.push(`<line x1="${a}" y1="${y}" x2="${b}" y2="${y}" stroke="${stroke}"${dash} marker-end="${marker}"/>`);
      body.push(`<text x="${(a + b) / 2}" y="${y - 5}" text-anchor="middle"${ink}${HALO}>${xmlText(item.label)}</text>`);
    }
  }
  y += 18;
  const top = MARGIN;
  const height = y + BOX_H + MARGIN;
  const lifelines = d.lifelines.map((_, i) => {
    const x = cols.x[i] ?? 0;
    return `<line x1="${x}" y1="${top + BOX_H}" x2="${x}" y2="${y}" stroke="${COLORS.lifeline}" stroke-dasharray="2,3"/>`;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${cols.width}" height="${height}" viewBox="0 0 ${cols.width} ${height}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="${FONT_SIZE}" fill="${COLORS.ink}">`,
    `<title>${xmlText(d.caption)}</title>`,
    `<defs>${MARKERS.join('')}</defs>`,
    `<rect width="${cols.width}" height="${height}" fill="#ffffff"/>`,
    ...lifelines,
    ...boxes(d.lifelines, cols, top),
    ...boxes(d.lifelines, cols, y),
    ...body,
    '</svg>',
    '',
  ].join('\n');
}
