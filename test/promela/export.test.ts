// The Promela export without SPIN: what the model holds, what is refused, the CLI command, and
// reading pan's report. The agreement with arefcheck under SPIN is spin-agreement.test.ts.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toPromela as checkedToPromela } from '../../src/api.ts';
import { InputError } from '../../src/diag.ts';
import { parseProgramText } from '../../src/lang/load.ts';
import { toPromela } from '../../src/promela/export.ts';
import { panErrorKind, readPanOutput } from '../../src/promela/pan-output.ts';
import { ROOT } from '../../scripts/regen-traces.ts';
import { arefcheck, expectUsageError } from '../cli/spawn.ts';

const load = (file: string) => parseProgramText(readFileSync(join(ROOT, file), 'utf8'), file);

describe('toPromela', () => {
  it('writes one proctype per role, the units, the monitor and init; deterministic', () => {
    const program = load('examples/gallery/m6-early-release.aref');
    const model = toPromela(program);
    expect(model.level).toBe('mbarrier');
    expect(model.text.match(/^proctype role_\d+\(\)/gm)).toHaveLength(program.roles.length);
    expect(model.text).toMatch(/^proctype units\(\)/m);
    expect(model.text).toMatch(/^proctype monitor\(\)/m);
    expect(model.text).toMatch(/^init \{/m);
    expect(model.text).toContain('/* line 26: wgmma.issue */');
    expect(toPromela(program).text).toBe(model.text);
  });

  it('an aref program: its own level has no copies; the mbarrier level is lowered and carries the refinement monitor', () => {
    const program = load('examples/double-buffer.aref');
    const aref = toPromela(program);
    expect(aref.level).toBe('aref');
    expect(aref.layout.tmaFlights).toBe(0);
    expect(aref.text).not.toMatch(/REFINEMENT/);
    const mbar = toPromela(program, { level: 'mbarrier' });
    expect(mbar.text).toMatch(/inline refineGet/);
    expect(mbar.text).toMatch(/assert\(viol != REFINEMENT\)/);
    expect(mbar.text).toMatch(/proctype units/);
  });

  it('folds parameters in and takes overrides; the group capacity is what a role really holds', () => {
    const program = load('examples/gallery/m6-early-release-ok.aref');
    expect(toPromela(program).text).toMatch(/l0 < 4 ->/);
    expect(toPromela(program, { params: new Map([['K', 9]]) }).text).toMatch(/l0 < 9 ->/);
    // issue, commit, wait 1: at most 2 groups held at once
    expect(toPromela(program).layout.mmaGroups).toBe(2);
    expect(toPromela(program, { groups: 5 }).layout.mmaGroups).toBe(5);
  });

  it('refuses what pan could not run as the checker does: a divisor that is not a constant, the aref level of an mbarrier program', () => {
    const divides = parseProgramText('param K = 4\nbuffer S[2] bytes 64\nrole r warps 1:\n  for k in 1..K:\n    read S[4 / k % 2]\n', 'div.aref');
    expect(() => toPromela(divides)).toThrow(InputError);
    expect(() => toPromela(divides)).toThrow(/right operand that is not a constant/);
    expect(() => toPromela(load('examples/gallery/m6-early-release.aref'), { level: 'aref' })).toThrow(/cannot be exported at the aref level/);
  });

  it('the library entry point checks its options', () => {
    const program = load('examples/double-buffer.aref');
    expect(() => checkedToPromela(program, { level: 'mbarier' as 'mbarrier' })).toThrow(/level must be aref or mbarrier/);
    expect(() => checkedToPromela(program, { groups: 0 })).toThrow(/groups must be a positive integer/);
    expect(() => checkedToPromela(program, { bogus: 1 } as object)).toThrow(/unknown option 'bogus'/);
    expect(checkedToPromela(program, { params: { K: 3 } }).text).toMatch(/l0 < 3 ->/);
  });
});

describe('reading pan', () => {
  const tail = (errors: number): string => `State-vector 284 byte, depth reached 69, errors: ${errors}\n      329 states, stored\n      138 states, matched\n      467 transitions (= stored+matched)\n`;

  it('names each class from its assertion, deadlock from the monitor', () => {
    expect(panErrorKind('assertion violated (viol!=1) (at depth 67)')).toBe('race');
    expect(panErrorKind('assertion violated (viol!=5) (at depth 3)')).toBe('refinement');
    expect(panErrorKind('assertion violated ((viol!=0)||(rolesDone==3)) (at depth 9)')).toBe('deadlock');
    const r = readPanOutput(`pan:1: assertion violated (viol!=3) (at depth 6)\npan:2: assertion violated ((viol!=0)||(rolesDone==2)) (at depth 8)\n${tail(7)}`);
    expect(r).toMatchObject({ verdict: 'violation', kinds: ['deadlock', 'protocol'], errors: 7, states: 329, transitions: 467, stateVectorBytes: 284 });
    expect(readPanOutput(tail(0))).toMatchObject({ verdict: 'verified', kinds: [] });
  });

  it('a search cut short is inconclusive; an error the model never makes is refused', () => {
    expect(readPanOutput(`error: max search depth too small\n${tail(0)}`)).toMatchObject({ verdict: 'inconclusive' });
    expect(() => readPanOutput(`pan:1: invalid end state (at depth 4)\n${tail(1)}`)).toThrow(/does not make/);
  });
});

describe('arefcheck export', () => {
  it('writes the model to stdout or to -o, with the command to check it', () => {
    const out = arefcheck('export', '--promela', 'examples/double-buffer.aref', '--level', 'mbarrier');
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/^\/\* arefcheck export --promela: examples\/double-buffer\.aref at the mbarrier level/);
    const file = join(mkdtempSync(join(tmpdir(), 'arefcheck-export-')), 'model.pml');
    const wrote = arefcheck('export', '--promela', 'examples/double-buffer.aref', '-o', file);
    expect(wrote.status, wrote.stderr).toBe(0);
    expect(wrote.stderr).toMatch(/spin -a .*model\.pml && gcc -O2 -DSAFETY -DVECTORSZ=\d+ -o pan pan\.c && \.\/pan -E -c0/);
    expect(readFileSync(file, 'utf8')).toMatch(/proctype role_0/);
  });

  it('bad input: one line, exit 2', () => {
    expectUsageError(arefcheck('export', 'examples/double-buffer.aref'), /name the format: --promela/);
    expectUsageError(arefcheck('export', '--promela', 'examples/double-buffer.aref', '--param', 'K=any'), /'any'.*verify/);
    expectUsageError(arefcheck('export', '--promela', 'examples/double-buffer.aref', '-o', '/nonexistent/dir/m.pml'), /cannot write \/nonexistent\/dir\/m\.pml/);
    expectUsageError(arefcheck('export', '--promela', 'test/fixtures/malformed/missing-colon.aref'), /missing-colon\.aref:\d+:\d+/);
  });
});
