// The reduction's claim that a role's enabled commit or async wait commutes with its own unit's
// retirements (ample.ts `role`: r's group lists leave its touch), checked on every reachable state
// of programs that keep wgmma groups and TMA stores outstanding: both orders stay enabled and reach
// one state. And the claim pays: a consumer at its commit is a set alone, without its unit.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Action, MachineState } from '../../semantics/index.ts';
import { currentOp } from '../../semantics/step.ts';
import { parseProgramText } from '../../src/lang/load.ts';
import { programModel, type ProgramModel } from '../../src/verify/model.ts';
import { ROOT } from '../../scripts/regen-traces.ts';
import { enabled } from './persistence.ts';

const GROUP_OPS: ReadonlySet<string> = new Set(['wgmma.commit', 'wgmma.wait', 'bulk.commit', 'bulk.wait']);
const key = (model: ProgramModel, s: MachineState): string => `${model.encode(s).join(',')}|${s.violation?.kind ?? ''}`;

/** Role r's current op commits or waits on a unit's groups (an issue with its own commit too). */
function atGroupOp(model: ProgramModel, s: MachineState, r: number): boolean {
  const op = currentOp(model.machine, s, r)?.op;
  return op !== undefined && (GROUP_OPS.has(op.kind) || (op.kind === 'wgmma.issue' && op.commit === true));
}

/** The retirement action of the unit that retires role r's groups, if enabled in s. */
function retirementOf(model: ProgramModel, acts: readonly Action[], r: number): Action | undefined {
  const partners = model.machine.mmaPartners[r] ?? [r];
  return acts.find((a) => a.kind === 'retire' && (a.unit === 'store' ? a.role === r : partners.includes(a.role)));
}

/** Over every state reachable (up to `limit`): the pairs checked and the first that does not commute. */
function checkPairs(model: ProgramModel, limit = 20_000): { pairs: number; units: Set<string>; breach?: string } {
  const seen = new Set<string>();
  const stack = model.initialStates();
  let pairs = 0;
  const units = new Set<string>();
  while (stack.length > 0 && seen.size < limit) {
    const s = stack.pop()!;
    if (s.violation) continue;
    const acts = enabled(model, s);
    for (const a of acts) {
      if (a.kind !== 'role' || !atGroupOp(model, s, a.role)) continue;
      const u = retirementOf(model, acts, a.role);
      if (u?.kind === 'retire') {
        pairs++;
        units.add(`${u.unit} ${model.machine.roles[a.role]?.name}`);
        const sa = model.nextState(s, a);
        const su = model.nextState(s, u);
        const ua = enabled(model, su).find((x) => x.kind === 'role' && x.role === a.role);
        const au = enabled(model, sa).find((x) => x.kind === 'retire' && x.role === u.role && x.unit === u.unit);
        const name = `${model.formatAction(a)} / ${model.formatAction(u)}`;
        if (!ua || (!au && !sa.violation)) return { pairs, units, breach: `${name}: one disables the other` };
        const first = key(model, model.nextState(su, ua));
        const second = sa.violation ? key(model, sa) : key(model, model.nextState(sa, au!));
        if (first.split('|')[1] !== second.split('|')[1] || (!sa.violation && first !== second)) return { pairs, units, breach: `${name}: do not commute` };
      }
    }
    for (const a of acts) {
      const n = model.nextState(s, a);
      const k = key(model, n);
      if (!seen.has(k)) {
        seen.add(k);
        stack.push(n);
      }
    }
  }
  return { pairs, units };
}

const load = (file: string) => parseProgramText(readFileSync(join(ROOT, file), 'utf8'), file);
const files = [
  ...['double-buffer-mbar', 'early-release-mbar', 'depth-equals-pending'].map((f) => `examples/${f}.aref`),
  ...readdirSync(join(ROOT, 'test/fixtures/programs'))
    .filter((f) => f.startsWith('warpgroup-') || f.startsWith('fence-') || f.startsWith('group-'))
    .map((f) => `test/fixtures/programs/${f}`),
  ...readdirSync(join(ROOT, 'examples/gallery'))
    .filter((f) => f.endsWith('.aref'))
    .map((f) => `examples/gallery/${f}`),
];

describe("a role's commit and enabled async wait commute with its unit's retirements", () => {
  it.each(files)('%s', (file) => {
    const { breach } = checkPairs(programModel(load(file)));
    expect(breach).toBeUndefined();
  });

  it('is not vacuous: both units, and both roles of a split warpgroup, meet their retirements', () => {
    const { pairs, units } = checkPairs(programModel(load('test/fixtures/programs/group-overlap.aref')));
    expect(pairs).toBeGreaterThan(100);
    expect([...units].sort()).toEqual(['mma lead', 'mma rest', 'store epilogue']);
  });

  it('the reduction uses it: a consumer at its commit with a group outstanding is a set alone', () => {
    const model = programModel(load('examples/double-buffer-mbar.aref'));
    const consumer = model.machine.roles.findIndex((r) => r.name === 'consumer');
    let found = 0;
    const seen = new Set<string>();
    const stack = model.initialStates();
    while (stack.length > 0) {
      const s = stack.pop()!;
      const acts = enabled(model, s);
      const chosen = model.ample?.(s, acts) ?? acts.map((_, i) => i);
      const at = currentOp(model.machine, s, consumer)?.op.kind;
      if (at === 'wgmma.commit' && retirementOf(model, acts, consumer) && chosen.length === 1 && acts[chosen[0]!]?.kind === 'role') found++;
      for (const i of chosen) {
        const n = model.nextState(s, acts[i]!);
        const k = key(model, n);
        if (!n.violation && !seen.has(k)) {
          seen.add(k);
          stack.push(n);
        }
      }
    }
    expect(found).toBeGreaterThan(0);
  });
});
