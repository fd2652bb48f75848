// The whole reachable state graph of a tiny program, as Graphviz DOT: every state the checker's
// model reaches (breadth first, the checker's own encoding deciding which states are equal),
// labelled with what a learner looks at (σ per aref slot, barrier phases, where each role is),
// and every transition labelled with its action. Ends are coloured: finished, stuck, violation.
import { InputError } from '../diag.ts';
import { modelOfMachine } from '../verify/model.ts';
import { actorName, barrierShort, currentOp, flightSlots, describeAction, isFinished, NO_VALUE, type Action, type Machine, type MachineState } from '../../semantics/index.ts';

export interface StateGraph {
  readonly states: readonly MachineState[];
  readonly edges: readonly { readonly from: number; readonly to: number; readonly label: string }[];
}

/** Breadth-first over the checker's model; refuses programs with more than `maxStates` states. */
export function exploreStateGraph(machine: Machine, maxStates: number): StateGraph {
  const model = modelOfMachine(machine);
  const states: MachineState[] = [];
  const index = new Map<string, number>();
  const edges: { from: number; to: number; label: string }[] = [];
  const add = (s: MachineState): number => {
    const key = model.encode(s).join(',');
    const known = index.get(key);
    if (known !== undefined) return known;
    if (states.length >= maxStates) throw new InputError(`the state graph has more than ${maxStates} states: draw a smaller instance (--param) or raise --max-states`);
    index.set(key, states.length);
    states.push(s);
    return states.length - 1;
  };
  for (const s of model.initialStates()) add(s);
  for (let i = 0; i < states.length; i++) {
    const s = states[i];
    if (!s) continue;
    const actions: Action[] = [];
    model.actions(s, actions);
    for (const a of actions) {
      const label = `${actorName(machine, s, a)}: ${describeAction(machine, s, a)}`;
      edges.push({ from: i, to: add(model.nextState(s, a)), label });
    }
  }
  return { states, edges };
}

const show = (v: number | undefined): string => (v === undefined || v === NO_VALUE ? '⊥' : String(v));

/** A state in a few short lines. */
export function stateLines(m: Machine, s: MachineState): string[] {
  const lines: string[] = [];
  for (let a = 0; a < m.arefSlotCount; a++) lines.push(`σ(${m.slotNames[a]}) = ⟨${show(s.slotValue[a])}, ${s.arefF[a]}, ${s.arefE[a]}⟩`);
  for (let b = 0; b < m.barrierCount; b++) lines.push(`${m.barrierNames[b]}: ${barrierShort(s, b)}`);
  for (let slot = m.arefSlotCount; slot < m.slotCount; slot++) lines.push(`${m.slotNames[slot]} = ${show(s.slotValue[slot])}`);
  if (s.tma.length > 0) lines.push(`TMA in flight: ${s.tma.map((t) => `${flightSlots(m, t)} ← ${show(t.value)}`).join(', ')}`);
  m.roles.forEach((role, r) => {
    const rs = s.roles[r];
    const instr = currentOp(m, s, r);
    const vars = rs && role.varNames.length > 0 ? ` [${role.varNames.map((v, i) => `${v}=${rs.vars[i]}`).join(' ')}]` : '';
    const where = instr ? `at line ${instr.loc?.line ?? '?'}${vars}` : 'done';
    const groups = rs ? rs.mmaGroups.filter((g) => !g.retired).length + (rs.mmaOpen.length > 0 ? 1 : 0) : 0;
    lines.push(`${role.name} ${where}${groups > 0 ? `, ${groups} wgmma outstanding` : ''}`);
  });
  if (s.violation) lines.push(`${s.violation.kind}: ${s.violation.message}`);
  return lines;
}

const dotText = (text: string): string => text.replace(/\\/g, '\\\\').replace(/"/g, '\\"');

export function stateGraphToDot(m: Machine, g: StateGraph, caption: string): string {
  const out = [
    'digraph states {',
    `  label="${dotText(caption)}";`,
    '  labelloc=t;',
    '  node [shape=box, fontname="DejaVu Sans Mono", fontsize=10];',
    '  edge [fontname="DejaVu Sans Mono", fontsize=9];',
  ];
  const outgoing = new Set(g.edges.map((e) => e.from));
  g.states.forEach((s, i) => {
    const end = s.violation ? [] : outgoing.has(i) ? [] : [isFinished(m, s) ? 'finished' : 'stuck: nothing can move'];
    const label = [`#${i}`, ...stateLines(m, s), ...end].map(dotText).join('\\l');
    let style = i === 0 ? ', penwidth=2' : '';
    if (s.violation) style += ', style=filled, fillcolor="#fce8e6"';
    else if (end[0] === 'finished') style += ', style=filled, fillcolor="#e6f4ea"';
    else if (end.length > 0) style += ', style=filled, fillcolor="#f4c7c3"';
    out.push(`  s${i} [label="${label}\\l"${style}];`);
  });
  for (const e of g.edges) out.push(`  s${e.from} -> s${e.to} [label="${dotText(e.label)}"];`);
  out.push('}');
  return `${out.join('\n')}\n`;
}
