// The reduction's premise checked directly (persistence.ts): on generated programs, rings of every
// bug class and a lifted Gluon kernel, each ample subset met on the reduced graph is persistent up
// to a bounded lookahead. Comparing verdicts (reduction.test.ts) sees a wrong subset only when it
// changes an outcome; this sees the wrong dependence itself. It bites: a subset that ignores
// dependence is caught, and so was the footprint bug of por-future-copy.aref before its fix.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { liftPtx } from '../../src/api.ts';
import { arbProgram } from '../../src/arbitraries.ts';
import { evalExpr, type Env } from '../../src/ir/expr.ts';
import { programLevel, type Expr, type Op, type Program, type Role, type Stmt } from '../../src/ir/program.ts';
import { unrollRole } from '../../src/unroll.ts';
import { parseProgramText } from '../../src/lang/load.ts';
import { lowerProgram } from '../../src/lower.ts';
import { programModel } from '../../src/verify/model.ts';
import { ROOT } from '../../scripts/regen-traces.ts';
import { arbRing, ringText } from '../oracle/rings.ts';
import { readPtx } from '../ptx/gluon-cases.ts';
import { firstBreach, subsetsChecked } from './persistence.ts';

const fixture = (file: string) => parseProgramText(readFileSync(join(ROOT, file), 'utf8'), file);

/** Every expression replaced by its value where the op runs (undefined when one cannot be evaluated). */
function constantOp(op: Op, env: Env): Op | undefined {
  const isExpr = (x: unknown): x is Expr => typeof x === 'object' && x !== null && ['num', 'var', 'un', 'bin'].includes((x as { kind?: string }).kind ?? '');
  const walk = (x: unknown): unknown => {
    if (isExpr(x)) return { kind: 'num', value: evalExpr(x, env) };
    if (Array.isArray(x)) return x.map(walk);
    if (typeof x === 'object' && x !== null) return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, walk(v)]));
    return x;
  };
  try {
    return walk(op) as Op;
  } catch {
    return undefined;
  }
}

/** The program with each role's body unrolled into its op sequence, operands constant. */
function straightLine(p: Program): Program | undefined {
  const roles: Role[] = [];
  for (let r = 0; r < p.roles.length; r++) {
    let ops;
    try {
      ops = unrollRole(p, r, 400);
    } catch {
      return undefined;
    }
    const body: Stmt[] = [];
    for (const u of ops) {
      const op = constantOp(u.op, u.env);
      if (!op) return undefined;
      body.push({ kind: 'op', op });
    }
    roles.push({ ...p.roles[r]!, body });
  }
  return { ...p, roles };
}

describe('every ample subset is persistent (bounded lookahead)', () => {
  it('on 1,500 rings of every bug class and 300 generated programs at their own and the lowered level (seeded)', () => {
    const breaches: string[] = [];
    let subsets = 0;
    for (const r of fc.sample(arbRing, { seed: 41, numRuns: 1500 })) {
      const b = firstBreach(programModel(parseProgramText(ringText(r), 'ring.aref')), 400);
      subsets += subsetsChecked;
      if (b) breaches.push(`ring ${JSON.stringify(r)}: ${b}`);
    }
    let lowered = 0;
    for (const p of fc.sample(arbProgram({ maxNesting: 2, maxStatements: 3, maxRoles: 3 }), { seed: 42, numRuns: 300 })) {
      const b = firstBreach(programModel(p), 400);
      subsets += subsetsChecked;
      if (b) breaches.push(`program: ${b}`);
      if (programLevel(p) !== 'aref') continue;
      let low;
      try {
        low = lowerProgram(p);
      } catch {
        continue; // not in the lowering's fragment
      }
      lowered++;
      const bl = firstBreach(programModel(low), 400);
      subsets += subsetsChecked;
      if (bl) breaches.push(`lowered program: ${bl}`);
    }
    expect(breaches).toEqual([]);
    // a floor against a vacuous run: 1,739 subsets (2026-11-26, unrolled positions; 2,000+ before:
    // each lookahead of 400 states covers fewer reduced states as the reduction improves)
    expect(subsets, 'ample subsets checked').toBeGreaterThan(1500);
    expect(lowered).toBeGreaterThan(20);
  }, 300_000);

  it('on the regression fixture and the lifted Gluon two-consumer kernel (mutant 2)', () => {
    expect(firstBreach(programModel(fixture('test/fixtures/programs/por-future-copy.aref')))).toBeUndefined();
    const [kernel] = liftPtx(readPtx('two_consumer_ws_m2'), { file: 'two_consumer_ws_m2.ptx' });
    if (!kernel) throw new Error('no kernel lifted');
    expect(firstBreach(programModel(kernel.program), 3000)).toBeUndefined();
    expect(subsetsChecked).toBeGreaterThan(100);
  }, 120_000);

  // Found by a seeded campaign once a retirement's touch left out the group lists: the analysis made
  // for {consumer0's wgmma unit, the producer} (the unit retires nothing there, so consumer0 is held
  // at its second wgmma.wait 1) was reused for {the producer} alone, where the unit retires and
  // consumer0 reaches its release of empty[0]: "arrive empty[0], 1 violates (protocol) before wait
  // empty[0], parity 0 but not after it". The analysis key now names such units (ample.ts analysisKey).
  it('a wgmma unit in the set holds its role at a wait ahead: that analysis is not reused for a set without the unit', () => {
    const ring = { depth: 2, iterations: 3, consumers: 2, pending: 1, wgmma: true, epilogue: false, mutation: 'count-low' } as const;
    expect(firstBreach(programModel(parseProgramText(ringText(ring), 'ring.aref')), 400)).toBeUndefined();
    expect(subsetsChecked).toBeGreaterThan(10);
  });

  // unrolled, a role's code is one straight line, as in lifted PTX, so the reduction bounds roles
  // outside a set by their horizon (semantics/horizon.ts): on about half of these rings that changes
  // the reduced graph (measured when the horizons landed)
  it('on rings and generated programs unrolled to straight-line code, as lifted PTX is', () => {
    const breaches: string[] = [];
    let programs = 0;
    let subsets = 0;
    const texts = fc.sample(arbRing, { seed: 43, numRuns: 100 }).map((r) => ({ what: `ring ${JSON.stringify(r)}`, p: parseProgramText(ringText(r), 'ring.aref') }));
    const generated = fc.sample(arbProgram({ maxNesting: 2, maxStatements: 3, maxRoles: 3 }), { seed: 44, numRuns: 200 }).map((p) => ({ what: 'program', p }));
    for (const { what, p } of [...texts, ...generated]) {
      const straight = straightLine(p);
      if (!straight) continue;
      programs++;
      const b = firstBreach(programModel(straight), 400);
      subsets += subsetsChecked;
      if (b) breaches.push(`${what} unrolled: ${b}`);
    }
    expect(breaches).toEqual([]);
    expect(programs).toBeGreaterThan(150);
    // a floor against a vacuous run: 993 subsets (2026-11-25); smaller reduced graphs mean fewer
    // states within each lookahead, so the count falls as the reduction improves
    expect(subsets, 'ample subsets checked').toBeGreaterThan(900);
  }, 300_000);

  it('bites: a subset that ignores dependence (the first enabled action) is not persistent', () => {
    const found = readdirSync(join(ROOT, 'examples/gallery'))
      .filter((f) => f.endsWith('.aref'))
      .map((f) => {
        const model = programModel(fixture(`examples/gallery/${f}`));
        return firstBreach({ ...model, ample: (_s: unknown, actions: readonly unknown[]) => (actions.length > 1 ? [0] : undefined) });
      })
      .filter((b) => b !== undefined);
    expect(found.length).toBeGreaterThan(0);
    expect(found[0]).toMatch(/do not commute|disables|violates/);
  });
});
