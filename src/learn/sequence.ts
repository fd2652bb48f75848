// A run as a sequence diagram, independent of how it is drawn (mermaid.ts, svg.ts): lifelines
// for the roles, their async units and the resources the run touches; one or two arrows per
// step; a note for the verdict at the end (and for where a termination cycle starts).
import type { Machine } from '../../semantics/index.ts';
import { describeEnding } from './ending-text.ts';
import { partyId, partyName, stepMessages, type Message, type Party } from './messages.ts';
import type { Ending, StepRecord } from './session.ts';
import { pushAll } from '../util.ts';

export type LifelineKind = 'role' | 'unit' | 'resource';

export interface Lifeline {
  readonly id: string;
  readonly name: string;
  readonly kind: LifelineKind;
}

export type SequenceItem =
  | { readonly kind: 'message'; readonly from: string; readonly to: string; readonly label: string; readonly dashed: boolean; readonly failed: boolean }
  /** spans every lifeline */
  | { readonly kind: 'note'; readonly lines: readonly string[]; readonly tone: 'ok' | 'bad' | 'info' };

export interface SequenceDiagram {
  /** what was drawn (file, seed or trace), for a comment at the top */
  readonly caption: string;
  readonly lifelines: readonly Lifeline[];
  readonly items: readonly SequenceItem[];
}

export interface SequenceOptions {
  readonly caption: string;
  /** termination: a note before the step after this one marks where the cycle starts */
  readonly loopStart?: number;
}

/**
 * Left to right: the first role, the TMA unit, the data slots, the barriers, named barriers, then
 * each further role with its wgmma unit just before it (the first role's wgmma unit right after it).
 */
function rank(p: Party): readonly [number, number] {
  switch (p.kind) {
    case 'role': return p.role === 0 ? [0, 0] : [10 + 2 * p.role, 1];
    case 'wgmma': return p.role === 0 ? [0, 1] : [10 + 2 * p.role, 0];
    case 'tma': return [1, 0];
    case 'slot': return [2, p.slot];
    case 'barrier': return [3, p.barrier];
    case 'named': return [4, p.id];
  }
}

const kindOf = (p: Party): LifelineKind => (p.kind === 'role' ? 'role' : p.kind === 'tma' || p.kind === 'wgmma' ? 'unit' : 'resource');

export function buildSequence(m: Machine, steps: readonly StepRecord[], ending: Ending, options: SequenceOptions): SequenceDiagram {
  const perStep = steps.map((s) => stepMessages(m, s));
  // every role has a lifeline, even one that never moved (it may be the one that is stuck)
  const parties = new Map<string, Party>();
  for (let r = 0; r < m.roles.length; r++) parties.set(partyId({ kind: 'role', role: r }), { kind: 'role', role: r });
  for (const msgs of perStep) for (const msg of msgs) for (const p of [msg.from, msg.to]) parties.set(partyId(p), p);
  const ordered = [...parties.values()].sort((x, y) => {
    const [a0, a1] = rank(x);
    const [b0, b1] = rank(y);
    return a0 - b0 || a1 - b1;
  });
  const lifelines = ordered.map((p): Lifeline => ({ id: partyId(p), name: partyName(m, p), kind: kindOf(p) }));

  const items: SequenceItem[] = [];
  const message = (msg: Message): SequenceItem => ({ kind: 'message', from: partyId(msg.from), to: partyId(msg.to), label: msg.label, dashed: msg.dashed, failed: msg.failed });
  perStep.forEach((msgs, i) => {
    if (options.loopStart !== undefined && i === options.loopStart) items.push({ kind: 'note', lines: [`the cycle starts here: steps ${i + 1}..${steps.length} repeat forever`], tone: 'info' });
    pushAll(items, msgs.map(message));
  });
  const text = describeEnding(ending, steps.length);
  items.push({ kind: 'note', lines: [text.headline, ...text.details], tone: text.bad ? 'bad' : 'ok' });
  return { caption: options.caption, lifelines, items };
}
