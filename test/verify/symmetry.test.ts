// Symmetry reduction (semantics/symmetry.ts): roles with the same code are interchangeable, and
// the explorer stores one state per orbit. These tests check the assumption itself on the
// semantics (an exchange of such roles maps every transition to a transition), that the chosen
// representative is a member of the orbit and the same for every member, and that runs with and
// without symmetry give the same verdicts, kinds and counterexample lengths, with traces that
// replay in the full semantics.
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { check, replayActionIndices, traceIndices, type CheckResult } from '../../checker/index.ts';
import { arbProgram } from '../../src/arbitraries.ts';
import type { Program } from '../../src/ir/program.ts';
import { parseProgramText } from '../../src/lang/load.ts';
import { printProgram } from '../../src/lang/printer.ts';
import { pipelineProgram } from '../../src/pipeline.ts';
import { verifyProgram, type Report } from '../../src/verify.ts';
import { packedModelOfMachine, type PackedProgramModel } from '../../src/verify/model.ts';
import { compileMachine, type Action } from '../../semantics/index.ts';
import { permuteRoles, permuteWords } from '../../semantics/permute.ts';

const cooperative = (depth: number, pending: number, consumers: number, iterations: number): Program =>
  pipelineProgram({ depth, pending, consumers, iterations, level: 'mbarrier', cooperative: true });

const modelOf = (p: Program): PackedProgramModel => packedModelOfMachine(compileMachine(p));

/** The program's text with one substitution (a seeded bug). */
function seeded(p: Program, from: string, to: string): Program {
  const text = printProgram(p);
  expect(text).toContain(from);
  return parseProgramText(text.replace(from, to), 'seeded.aref');
}

function permutationsOf(xs: readonly number[]): number[][] {
  if (xs.length <= 1) return [xs.slice()];
  return xs.flatMap((x, i) => permutationsOf([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]));
}

/** Every renaming of the model's roles that permutes its first class (identity elsewhere). */
function classPermutations(model: PackedProgramModel): Int32Array[] {
  const cls = model.symmetry!.classes[0]!;
  return permutationsOf(cls).map((order) => {
    const perm = Int32Array.from(model.machine.roles, (_, r) => r);
    cls.forEach((old, i) => (perm[old] = order[i]!));
    return perm;
  });
}

const key = (w: Int32Array): string => w.join(',');

/** A random run of `steps` actions from the initial state (choices drawn by fast-check). */
function walk(model: PackedProgramModel, choices: readonly number[]): Int32Array[] {
  let w = model.initialStates()[0]!;
  const seen = [w];
  const actions: Action[] = [];
  for (const c of choices) {
    actions.length = 0;
    model.actions(w, actions);
    if (actions.length === 0) break;
    w = model.nextState(w, actions[c % actions.length]!);
    seen.push(w);
  }
  return seen;
}

describe('which roles are interchangeable', () => {
  it('cooperative consumers are one class; consumers taking turns, and roles differing in one op, are none', () => {
    expect(modelOf(cooperative(3, 1, 3, 6)).symmetry?.classes).toEqual([[1, 2, 3]]);
    expect(modelOf(pipelineProgram({ depth: 3, pending: 1, consumers: 3, iterations: 6, level: 'mbarrier' })).symmetry).toBeUndefined();
    // consumer1 alone skips its proxy fence: not the same code
    const text = printProgram(cooperative(2, 1, 2, 4));
    const at = text.indexOf('role consumer1');
    const oneDiffers = parseProgramText(text.slice(0, at) + text.slice(at).replace('      fence.proxy.async\n', ''), 'x.aref');
    expect(modelOf(oneDiffers).symmetry).toBeUndefined();
  });

  it('roles written at different lines with the same code are one class; roles of one warpgroup are not', () => {
    const role = (name: string): string => `role ${name} warps 4:\n  wait full[0], 0\n  read buf[0] expect 0\n  arrive empty[0]\n`;
    const head = 'buffer buf[1] bytes 1024\nmbarrier full[1] count 1\nmbarrier empty[1] count 2\nrole producer warps 1:\n  tma.load buf[0] -> full[0], 1024 value 0\n  arrive.expect_tx full[0], 1024\n';
    const program = parseProgramText(`${head}${role('a')}\n${role('b')}`, 'two.aref');
    expect(modelOf(program).symmetry?.classes).toEqual([[1, 2]]);
    expect(modelOf({ ...program, warpgroups: [['a', 'b']] }).symmetry).toBeUndefined();
  });
});

describe('the symmetry holds in the semantics', () => {
  const cases = [cooperative(2, 1, 3, 5), cooperative(3, 0, 2, 6), seeded(cooperative(2, 1, 3, 5), 'A_empty[2] count 3', 'A_empty[2] count 1')];

  it('an exchange of interchangeable roles maps the successors of a state onto those of the exchanged state', () => {
    for (const program of cases) {
      const model = modelOf(program);
      const perms = classPermutations(model);
      const permute = (w: Int32Array, perm: Int32Array): Int32Array => model.packer.canonicalPhases(model.packer.encode(permuteRoles(model.machine, model.packer.decode(w), perm)));
      const successors = (w: Int32Array): string[] => {
        const actions: Action[] = [];
        model.actions(w, actions);
        return actions.map((a) => key(model.nextState(w, a))).sort();
      };
      fc.assert(
        fc.property(fc.array(fc.nat(), { maxLength: 40 }), fc.nat(), (choices, pick) => {
          const states = walk(model, choices);
          const s = states[pick % states.length]!;
          const perm = perms[pick % perms.length]!;
          const t = permute(s, perm);
          // the exchanged state's successors are the exchanged successors
          expect(successors(t)).toEqual(successors(s).map((x) => key(permute(Int32Array.from(x.split(',').map(Number)), perm))).sort());
          // the same invariant verdicts and end
          for (const inv of model.invariants) expect(inv.check(t) === undefined).toBe(inv.check(s) === undefined);
          expect(model.isFinal(t)).toBe(model.isFinal(s));
        }),
        { numRuns: 60, seed: 9 },
      );
    }
  });

  it('the exchange on packed words is the readable exchange, packed', () => {
    for (const program of [...cases, cooperative(2, 2, 3, 4)]) {
      const model = modelOf(program);
      const perms = classPermutations(model);
      fc.assert(
        fc.property(fc.array(fc.nat(), { maxLength: 40 }), fc.nat(), (choices, pick) => {
          const states = walk(model, choices);
          const s = states[pick % states.length]!;
          const perm = perms[pick % perms.length]!;
          expect(key(permuteWords(model.machine, model.packer.layout, s, perm))).toBe(key(model.packer.encode(permuteRoles(model.machine, model.packer.decode(s), perm))));
        }),
        { numRuns: 80, seed: 13 },
      );
    }
    // generated programs with a role doubled: the twins may issue copies, stores and groups of their own
    let exchanged = 0;
    fc.assert(
      fc.property(arbProgram(), fc.nat(), fc.array(fc.nat(), { maxLength: 40 }), fc.nat(), (program, which, choices, pick) => {
        const role = program.roles[which % program.roles.length]!;
        const model = modelOf({ ...program, roles: [...program.roles, { ...role, name: `${role.name}_twin` }] });
        if (!model.symmetry) return;
        exchanged++;
        const perms = classPermutations(model);
        const states = walk(model, choices);
        const s = states[pick % states.length]!;
        const perm = perms[pick % perms.length]!;
        expect(key(permuteWords(model.machine, model.packer.layout, s, perm))).toBe(key(model.packer.encode(permuteRoles(model.machine, model.packer.decode(s), perm))));
      }),
      { numRuns: 300, seed: 14 },
    );
    expect(exchanged).toBeGreaterThan(100);
  });

  it('the representative is a member of the orbit, and the same for every member', () => {
    for (const program of cases) {
      const model = modelOf(program);
      const perms = classPermutations(model);
      const permute = (w: Int32Array, perm: Int32Array): Int32Array => model.packer.encode(permuteRoles(model.machine, model.packer.decode(w), perm));
      fc.assert(
        fc.property(fc.array(fc.nat(), { maxLength: 40 }), fc.nat(), (choices, pick) => {
          const states = walk(model, choices);
          const s = states[pick % states.length]!;
          const orbit = new Set(perms.map((p) => key(permute(s, p))));
          const rep = key(model.canonical!(s));
          expect(orbit.has(rep)).toBe(true);
          for (const p of perms) expect(key(model.canonical!(permute(s, p)))).toBe(rep);
        }),
        { numRuns: 60, seed: 10 },
      );
    }
  });
});

/** What must not change with symmetry: verdict, kinds and the length of each shortest counterexample (kinds in any order: which is met first may change). */
function outcome(r: Report): string {
  return JSON.stringify({ verdict: r.verdict, limit: r.limit?.reason, kinds: r.violations.map((v) => `${v.kind}:${v.trace.length - 1}`).sort() });
}

/** Each counterexample replays in the full semantics (no symmetry) to a state of its kind. */
function expectReplays(program: Program, r: Report): void {
  const model = modelOf(program);
  for (const v of r.violations) {
    const steps = replayActionIndices(model, v.actionIndices);
    const last = steps[steps.length - 1]!.state;
    if (v.kind === 'deadlock') {
      const actions: Action[] = [];
      model.actions(last, actions);
      expect(actions.length, v.message).toBe(0);
      expect(model.isFinal(last)).toBe(false);
    } else {
      // the report may add to the message (a buffer nothing reads): it starts with the state's own
      const own = model.invariants.find((i) => i.kind === v.kind)!.check(last);
      expect(own, v.kind).toBeDefined();
      expect(v.message.startsWith(own!), v.message).toBe(true);
    }
  }
}

describe('orbits', () => {
  it('without reduction the states stored are exactly the orbits of the reachable states (ties settled)', () => {
    for (const program of [cooperative(2, 1, 3, 3), cooperative(3, 0, 3, 3), cooperative(2, 2, 2, 5)]) {
      const model = modelOf(program);
      const perms = classPermutations(model);
      // every reachable state, breadth-first, and its orbit's least encoding over all exchanges
      const seen = new Set<string>();
      const orbits = new Set<string>();
      const queue = [model.initialStates()[0]!];
      const actions: Action[] = [];
      while (queue.length > 0) {
        const w = queue.pop()!;
        const k = key(w);
        if (seen.has(k)) continue;
        seen.add(k);
        orbits.add(perms.map((p) => key(permuteWords(model.machine, model.packer.layout, w, p))).sort()[0]!);
        actions.length = 0;
        model.actions(w, actions);
        if (model.invariants.some((inv) => inv.check(w) !== undefined)) continue;
        for (const a of actions) queue.push(model.nextState(w, a));
      }
      const sym = verifyProgram(program, { reduction: false, symmetry: true });
      const plain = verifyProgram(program, { reduction: false, symmetry: false });
      expect(plain.stats.states).toBe(seen.size);
      expect(sym.stats.states).toBe(orbits.size);
      expect(orbits.size).toBeLessThan(seen.size);
    }
  });

  it('a state is in the orbit of each of its exchanges and of no state with other positions', () => {
    const model = modelOf(cooperative(2, 1, 5, 4));
    const perms = classPermutations(model);
    const permute = (w: Int32Array, perm: Int32Array): Int32Array => model.packer.encode(permuteRoles(model.machine, model.packer.decode(w), perm));
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 30 }), fc.nat(), fc.nat(), (choices, pick, other) => {
        const states = walk(model, choices);
        const s = states[pick % states.length]!;
        expect(model.sameOrbit!(permute(s, perms[pick % perms.length]!), s)).toBe(true);
        const t = states[other % states.length]!;
        // states of one run differ in progress (steps), so no exchange turns one into another
        if (key(t) !== key(s)) expect(model.sameOrbit!(t, s)).toBe(false);
      }),
      { numRuns: 40, seed: 12 },
    );
  });
});

describe('runs with and without symmetry agree', () => {
  it('with a representative drawn at random from the orbit, traces are made concrete by matching orbits', () => {
    // the worst a representative may be: any member of the orbit, a different one each time
    const summary = (r: CheckResult<Int32Array, Action>): string =>
      JSON.stringify({ verdict: r.verdict, kinds: r.violations.map((v) => `${v.kind}:${v.trace.length - 1}`).sort() });
    let matched = 0;
    for (const program of [cooperative(2, 1, 3, 3), seeded(cooperative(2, 1, 3, 3), 'A_empty[2] count 3', 'A_empty[2] count 1'), seeded(cooperative(2, 1, 2, 4), 'A_empty[2] count 2', 'A_empty[2] count 3')]) {
      const model = modelOf(program);
      const perms = classPermutations(model);
      let seed = 7;
      const random = (): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
      const sym = model.symmetry!;
      let orbitsMatched = 0;
      const randomModel: PackedProgramModel = {
        ...model,
        canonical: (w) => model.packer.encode(permuteRoles(model.machine, model.packer.decode(w), perms[random() % perms.length]!)),
        sameOrbit: (a, b) => {
          orbitsMatched++;
          return sym.sameOrbit(a, b);
        },
      };
      for (const reduction of [true, false]) {
        const plain = check(model, { reduction, symmetry: false });
        const drawn = check(randomModel, { reduction, symmetry: true });
        expect(summary(drawn)).toBe(summary(plain));
        for (const v of drawn.violations) {
          // the trace is a run: its indices replay to its own last state
          const { initialIndex, actionIndices } = traceIndices(v.trace);
          const replayed = replayActionIndices(model, actionIndices, initialIndex);
          expect(key(replayed[replayed.length - 1]!.state)).toBe(key(v.trace[v.trace.length - 1]!.state));
        }
      }
      matched += orbitsMatched;
    }
    expect(matched).toBeGreaterThan(0);
  });

  it('on the cooperative family, D 1..4 × P 0..2 × C 2..3, with reduction on and off, and store fewer states', () => {
    let compared = 0;
    let plainStates = 0;
    let symStates = 0;
    for (const depth of [1, 2, 3, 4]) for (const pending of [0, 1, 2]) for (const consumers of [2, 3]) for (const reduction of [true, false]) {
      if (!reduction && consumers === 3 && depth > 2) continue; // full interleavings of three consumers: too many states for a test
      const program = cooperative(depth, pending, consumers, 6);
      const options = { reduction, maxStates: 400_000 };
      const plain = verifyProgram(program, { ...options, symmetry: false });
      const sym = verifyProgram(program, { ...options, symmetry: true });
      const name = `D${depth} P${pending} C${consumers} reduction ${reduction}`;
      expect(outcome(sym), name).toBe(outcome(plain));
      expectReplays(program, sym);
      compared++;
      plainStates += plain.stats.states;
      symStates += sym.stats.states;
      // without reduction the stored states are the orbits of the full graph: fewer, since some
      // reachable state tells the consumers apart. With reduction the ample sets are chosen on the
      // representatives, so a reduced graph may come out a little larger (D2 P2 C2: 41 → 52 states)
      if (!reduction && plain.verdict === 'verified') expect(sym.stats.states, name).toBeLessThan(plain.stats.states);
    }
    expect(compared).toBe(42);
    expect(symStates).toBeLessThan(plainStates / 2);
  });

  it('find the seeded bugs: an empty barrier released by one consumer of three (race), a parity flipped in both (fifo…)', () => {
    const early = seeded(cooperative(2, 1, 3, 5), 'A_empty[2] count 3', 'A_empty[2] count 1');
    const parity = seeded(cooperative(2, 0, 2, 5), 'wait A_full[j % D], (j / D) & 1', 'wait A_full[j % D], ((j / D) & 1) ^ 1').roles;
    const flipped: Program = { ...cooperative(2, 0, 2, 5), roles: parity };
    for (const program of [early, flipped]) {
      const plain = verifyProgram(program, { symmetry: false });
      const sym = verifyProgram(program, { symmetry: true });
      expect(sym.verdict).toBe('violation');
      expect(outcome(sym)).toBe(outcome(plain));
      expectReplays(program, sym);
    }
    expect(verifyProgram(early).violations.map((v) => v.kind)).toContain('race');
  });

  it('with five consumers, whose ties are past the orderings tried, the seeded bug is found and replays', () => {
    // five consumers at one position: 120 orderings, more than the 6 tried, so the representative
    // keeps their order and a trace finds its way by matching orbits
    const early = seeded(cooperative(2, 1, 5, 2), 'A_empty[2] count 5', 'A_empty[2] count 2');
    const plain = verifyProgram(early, { symmetry: false });
    const sym = verifyProgram(early, { symmetry: true });
    expect(sym.verdict).toBe('violation');
    expect(outcome(sym)).toBe(outcome(plain));
    expectReplays(early, sym);
  });

  it('on generated programs with one role doubled (same code, another name)', () => {
    let withClass = 0;
    fc.assert(
      fc.property(arbProgram(), fc.nat(), (program, pick) => {
        const role = program.roles[pick % program.roles.length]!;
        const doubled: Program = { ...program, roles: [...program.roles, { ...role, name: `${role.name}_twin` }] };
        const plain = verifyProgram(doubled, { symmetry: false, maxStates: 50_000 });
        if (plain.verdict === 'inconclusive') return;
        const model = modelOf(doubled);
        if (model.symmetry) withClass++;
        const sym = verifyProgram(doubled, { symmetry: true, maxStates: 50_000 });
        expect(outcome(sym)).toBe(outcome(plain));
        expectReplays(doubled, sym);
      }),
      { numRuns: 400, seed: 11 },
    );
    expect(withClass).toBeGreaterThan(150);
  });
});
