// The reduction's claim that a role's enabled commit or async wait commutes with its own unit's
// retirements (ample.ts `role`: r's group lists leave its touch), checked on every reachable state
// of programs that keep wgmma groups and TMA stores outstanding: both orders stay enabled and reach
// one state. And the claim pays: beside a consumer at its commit or wait, its unit's retirement is a set alone.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Action, MachineState } from '../../semantics/index.ts';
import { closesMmaGroup } from '../../semantics/footprint.ts';
import { currentOp } from '../../semantics/step.ts';
import { parseProgramText } from '../../src/lang/load.ts';
import { programModel, type ProgramModel } from '../../src/verify/model.ts';
import { ROOT } from '../../scripts/regen-traces.ts';
import { enabled, stateKey } from './persistence.ts';

/** Role r's current op commits or waits on a unit's groups (an issue with its own commit too). */
function atGroupOp(model: ProgramModel, s: MachineState, r: number): boolean {
  const op = currentOp(model.machine, s, r)?.op;
  return op !== undefined && (closesMmaGroup(op) || op.kind === 'wgmma.wait' || op.kind === 'bulk.commit' || op.kind === 'bulk.wait');
}

/** The retirement action of the unit that retires role r's groups, if enabled in s. */
function retirementOf(model: ProgramModel, acts: readonly Action[], r: number): Action | undefined {
  const partners = model.machine.mmaPartners[r] ?? [r];
  return acts.find((a) => a.kind === 'retire' && (a.unit === 'store' ? a.role === r : partners.includes(a.role)));
}

/**
 * Depth-first over the states reachable (up to `limit`) through the actions `choose` picks, calling
 * `visit` on each state without a violation with its enabled actions and those picked; `visit`
 * returning a string stops the walk with it.
 */
function walk(
  model: ProgramModel,
  choose: (s: MachineState, acts: Action[]) => readonly number[],
  visit: (s: MachineState, acts: Action[], picked: readonly number[]) => string | undefined,
  limit = 20_000,
): string | undefined {
  const seen = new Set<string>();
  const stack = model.initialStates();
  while (stack.length > 0 && seen.size < limit) {
    const s = stack.pop()!;
    if (s.violation) continue;
    const acts = enabled(model, s);
    const picked = choose(s, acts);
    const stop = visit(s, acts, picked);
    if (stop !== undefined) return stop;
    for (const i of picked) {
      const n = model.nextState(s, acts[i]!);
      const k = stateKey(model, n);
      if (!seen.has(k)) {
        seen.add(k);
        stack.push(n);
      }
    }
  }
  return undefined;
}

const every = (_s: MachineState, acts: Action[]) => acts.map((_, i) => i);

/** Over every state reachable: the pairs checked, the units and roles met, and the first pair that does not commute. */
function checkPairs(model: ProgramModel): { pairs: number; units: Set<string>; breach: string | undefined } {
  let pairs = 0;
  const units = new Set<string>();
  const breach = walk(model, every, (s, acts) => {
    for (const a of acts) {
      if (a.kind !== 'role' || !atGroupOp(model, s, a.role)) continue;
      const u = retirementOf(model, acts, a.role);
      if (u?.kind !== 'retire') continue;
      pairs++;
      units.add(`${u.unit} ${model.machine.roles[a.role]?.name}`);
      const sa = model.nextState(s, a);
      const su = model.nextState(s, u);
      const ua = enabled(model, su).find((x) => x.kind === 'role' && x.role === a.role);
      const au = enabled(model, sa).find((x) => x.kind === 'retire' && x.role === u.role && x.unit === u.unit);
      const name = `${model.formatAction(a)} / ${model.formatAction(u)}`;
      if (!ua || (!au && !sa.violation)) return `${name}: one disables the other`;
      const retiredFirst = model.nextState(su, ua);
      const roleFirst = au ? model.nextState(sa, au) : sa;
      // a violation of the role's op must come in either order; otherwise the states must agree
      if (retiredFirst.violation?.kind !== roleFirst.violation?.kind || (!sa.violation && stateKey(model, retiredFirst) !== stateKey(model, roleFirst))) return `${name}: do not commute`;
    }
    return undefined;
  });
  return { pairs, units, breach };
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

  // both ways: the commit or wait leaves its unit out (withoutGroups), and the retirement, tried
  // first (ample.ts SEED_PASSES), leaves out the consumer at or before its commit or wait
  // (unitTouch); before 2026-12-04 the second did not hold and the set was the consumer alone
  it('the reduction uses it: a consumer enabled at its commit or wait beside its unit, and the retirement is a set alone', () => {
    const model = programModel(load('examples/double-buffer-mbar.aref'));
    const consumer = model.machine.roles.findIndex((r) => r.name === 'consumer');
    let found = 0;
    const reduced = (s: MachineState, acts: Action[]) => model.ample?.(s, acts) ?? every(s, acts);
    walk(model, reduced, (s, acts, set) => {
      const retire = retirementOf(model, acts, consumer);
      const moves = acts.some((a) => a.kind === 'role' && a.role === consumer);
      if (atGroupOp(model, s, consumer) && moves && retire && set.length === 1 && acts[set[0]!] === retire) found++;
      return undefined;
    }, Infinity);
    expect(found).toBeGreaterThan(0);
  });
});
