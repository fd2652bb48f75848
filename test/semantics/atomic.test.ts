// Shared-memory atomics (`atomic S[s]`, the lifter's atom/red on shared memory): two atomics on
// one slot need no order between them (the PTX memory model makes atomics morally strong), while
// a plain read or write, a TMA copy or an async read must be ordered after every one of them, and
// an atomic after every plain access. Each rule is shown found (a seeded race, its kind and a
// shortest trace) and not found (the ordered twin).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseProgramText } from '../../src/lang/load.ts';
import { printProgram } from '../../src/lang/printer.ts';
import { programToJson, programFromJson } from '../../src/lang/json.ts';
import { toPromela } from '../../src/promela/export.ts';
import { verifyProgram, type Report } from '../../src/verify.ts';
import { goldenOf, ROOT, type GalleryEntry } from '../../scripts/regen-traces.ts';
import { InputError } from '../../src/diag.ts';
import { replayTrace } from '../../src/verify/replay.ts';
import { readTraceJson } from '../../src/verify/trace-json.ts';

const program = (text: string) => parseProgramText(text, 'atomic.aref');
const verify = (text: string, extra: Parameters<typeof verifyProgram>[1] = {}): Report => verifyProgram(program(text), extra);
const race = (r: Report): string | undefined => r.violations.find((v) => v.kind === 'race')?.message;

/** Two roles touch S[0], then both arrive on done[0]; the checker reads after the wait. */
const pair = (first: string, second: string, count = 2): string => `buffer S[1] bytes 4
mbarrier done[1] count ${count}
role a warps 1:
  ${first}
  arrive done[0], 1
role b warps 1:
  ${second}
  arrive done[0], 1
role c warps 1:
  wait done[0], 0
  read S[0]
`;

describe('atomics', () => {
  it('two unordered atomics do not race; two unordered writes do (the difference bites)', () => {
    const atomics = verify(pair('atomic S[0]', 'atomic S[0]'));
    expect(atomics.verdict).toBe('verified');
    expect(race(verify(pair('write S[0]', 'write S[0]')))).toMatch(/write-after-write/);
  });

  it('a plain access and an atomic, unordered, race in either order', () => {
    // b's atomic is not ordered after a's write, nor after a's read
    const w = verify(pair('write S[0]', 'atomic S[0]'));
    const r = verify(pair('read S[0]', 'atomic S[0]'));
    expect([race(w), race(r)].every((m) => m !== undefined)).toBe(true);
    expect([w, r].flatMap((x) => x.violations.map((v) => v.message)).join('\n')).toMatch(/(atomic by \w+ is not ordered after the previous write|is not ordered after the atomic by \w+|atomic by \w+ is not ordered after the read)/);
  });

  it('a read ordered after one of two atomics only races with the other: the golden trace', () => {
    const file = 'test/fixtures/programs/atomic-unordered-read.aref';
    const p = parseProgramText(readFileSync(join(ROOT, file), 'utf8'), file);
    const report = verifyProgram(p);
    expect(report.violations.map((v) => v.kind)).toEqual(['race']);
    expect(report.violations[0]?.message).toMatch(/read by reader is not ordered after the atomic by b \(read-after-write\)/);
    const entry: GalleryEntry = { name: 'atomic-unordered-read', file, bugClass: 0, twin: false, expected: 'race', alsoReported: [], level: 'mbarrier', program: p };
    const golden = goldenOf(entry, report);
    expect(golden.text).toBe(readFileSync(join(ROOT, 'traces/atomic-unordered-read.txt'), 'utf8'));
    const json = readFileSync(join(ROOT, 'traces/atomic-unordered-read.json'), 'utf8');
    expect(golden.json).toBe(json);
    const replayed = replayTrace(p, readTraceJson(json, 'traces/atomic-unordered-read.json'));
    expect([replayed.reached, replayed.reproduced]).toEqual(['race', true]);
    // shortest: both atomics, a's arrive, the wait, the read
    expect(report.violations[0]?.trace.length).toBe(5);
    // its twin, with both arrivals, is verified (test/fixtures/programs/atomic-counter.aref)
    const ok = parseProgramText(readFileSync(join(ROOT, 'test/fixtures/programs/atomic-counter.aref'), 'utf8'), 'atomic-counter.aref');
    expect(verifyProgram(ok).verdict).toBe('verified');
  });

  it('a TMA copy into a slot after an atomic needs the atomic ordered before it and a proxy fence', () => {
    const copy = (fence: boolean): string => `buffer S[1] bytes 128
mbarrier go[1] count 1
mbarrier full[1] count 1
role a warps 1:
  atomic S[0]
${fence ? '  fence.proxy.async\n' : ''}  arrive go[0], 1
role p warps 1:
  wait go[0], 0
  arrive.expect_tx full[0], 128
  tma.load S[0] -> full[0], 128
  wait full[0], 0
  read S[0]
`;
    expect(race(verify(copy(false)))).toMatch(/by the async proxy after an atomic by a with no fence.proxy.async/);
    expect(verify(copy(true)).verdict).toBe('verified');
  });

  it('a wgmma reading a slot after an atomic needs a proxy fence after it', () => {
    const mma = (fence: boolean): string => `buffer S[1] bytes 128
role c warps 4:
  atomic S[0]
${fence ? '  fence.proxy.async\n' : ''}  mma.issue S[0]
  wgmma.wait 0
`;
    expect(race(verify(mma(false)))).toMatch(/async proxy after an atomic by c/);
    expect(verify(mma(true)).verdict).toBe('verified');
  });

  it('reduction and symmetry change no verdict or kind on these programs', () => {
    const texts = [pair('atomic S[0]', 'atomic S[0]'), pair('atomic S[0]', 'atomic S[0]', 1), pair('read S[0]', 'atomic S[0]'), pair('write S[0]', 'atomic S[0]')];
    for (const t of texts) {
      const full = verify(t, { reduction: false, symmetry: false });
      for (const other of [verify(t), verify(t, { reduction: false }), verify(t, { symmetry: false })]) {
        expect(other.verdict).toBe(full.verdict);
        expect(other.violations.map((v) => v.kind).sort()).toEqual(full.violations.map((v) => v.kind).sort());
      }
    }
  });

  it('prints, parses and round-trips through JSON; Promela export refuses it with its place', () => {
    const p = program(pair('atomic S[0]', 'atomic S[0]'));
    const text = printProgram(p);
    expect(text).toMatch(/^ {2}atomic S\[0\]$/m);
    expect(printProgram(parseProgramText(text, 'again.aref'))).toBe(text);
    expect(printProgram(programFromJson(programToJson(p), 'p.json'))).toBe(text);
    let err: unknown;
    try {
      toPromela(p);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toMatch(/'atomic' .* has no Promela model/);
    expect((err as InputError).loc?.line).toBe(4);
  });
});
