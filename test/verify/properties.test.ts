// Property status (issue 12.4): every report says, per property, whether it was checked, is
// vacuous (cannot fail on this input, and why) or does not apply. A property that cannot fail is
// never reported as checked, and a kernel with nothing to synchronize does not get a bare "verified".
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseProgramText } from '../../src/lang/load.ts';
import { liftPtxFile } from '../../src/ptx/lift/index.ts';
import { verifyProgram, type Report } from '../../src/verify.ts';
import { formatReportText } from '../../src/verify/format-text.ts';
import { reportToSarif } from '../../src/verify/sarif.ts';
import { ROOT } from '../../scripts/regen-traces.ts';
import { arefcheck } from '../cli/spawn.ts';

const statusOf = (r: Report): Record<string, string> => Object.fromEntries(r.properties.map((p) => [p.kind, p.status]));
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

describe('property status', () => {
  it('the double buffer checks deadlock, race, fifo and protocol; refinement only once lowered', () => {
    const program = parseProgramText(read('examples/double-buffer.aref'), 'double-buffer.aref');
    expect(statusOf(verifyProgram(program))).toEqual({
      deadlock: 'checked', race: 'checked', fifo: 'checked', protocol: 'checked', termination: 'vacuous', refinement: 'not applicable',
    });
    expect(statusOf(verifyProgram(program, { level: 'mbarrier' }))['refinement']).toBe('checked');
    expect(statusOf(verifyProgram(program, { level: 'both' }))['refinement']).toBe('checked');
  });

  it('lifted PTX carries no expectations: fifo is vacuous, with the reason', () => {
    const [lifted] = liftPtxFile(read('test/fixtures/cuda/ws_ring_ok.ptx'), 'ws_ring_ok.ptx', { params: new Map([['2', 4]]) });
    const report = verifyProgram(lifted!.program);
    expect(report.verdict).toBe('verified');
    const fifo = report.properties.find((p) => p.kind === 'fifo');
    expect(fifo).toEqual({ kind: 'fifo', status: 'vacuous', reason: expect.stringMatching(/no read carries an expected value/) });
    expect(statusOf(report)).toMatchObject({ deadlock: 'checked', race: 'checked', protocol: 'checked' });
  });

  // libcu++ cuda::barrier: arrive returns a token, wait blocks on it (the Programming Guide's producer/consumer)
  it('a wait on an arrival token can block: deadlock is checked, and a token wait that never completes deadlocks', () => {
    const tokens = (count: number): string => `mbarrier bar[1] count ${count}
role a warps 1:
  arrive bar[0], 32 -> t
  wait bar[0], token t
role b warps 1:
  arrive bar[0], 32 -> t
  wait bar[0], token t
`;
    const ok = verifyProgram(parseProgramText(tokens(64), 'tokens.aref'));
    expect(ok.verdict).toBe('verified');
    expect(statusOf(ok)['deadlock']).toBe('checked');
    const hang = verifyProgram(parseProgramText(tokens(96), 'tokens-hang.aref'));
    expect(hang.violations.map((v) => v.kind)).toContain('deadlock');
  });

  it('a program that only writes its own slot cannot race: race is vacuous', () => {
    const program = parseProgramText(`buffer S[1] bytes 64
role a warps 1:
  write S[0], 1
  read S[0] expect 1
`, 'own.aref');
    expect(statusOf(verifyProgram(program))).toMatchObject({ race: 'vacuous', deadlock: 'vacuous', protocol: 'vacuous', fifo: 'checked' });
  });

  // two copies one role issues into one buffer are two agents: they race unless ordered
  const copies = (body: string): string => `buffer P[1] bytes 1024
mbarrier bar[2] count 1
role prefetcher warps 1:
${body}`;
  const copy = (b: number): string => `  arrive.expect_tx bar[${b}], 1024\n  tma.load P[0] -> bar[${b}], 1024\n`;
  const wait = (b: number): string => `  wait bar[${b}], 0\n`;

  it('one copy into a buffer nothing else touches cannot race: race is vacuous', () => {
    const r = verifyProgram(parseProgramText(copies(copy(0) + wait(0)), 'one.aref'));
    expect(statusOf(r)['race']).toBe('vacuous');
    // what it landed is never read: lost data, and the report says nothing reads P at all
    expect(r.violations[0]?.message).toBe('at the end P[0] holds data a TMA copy landed that nobody read (lost data) (nothing in the program reads P: a write-only scratch buffer, so what lands there cannot reach a value the kernel uses)');
  });

  it('two copies of one role into one buffer are checked, and race when in flight together', () => {
    const racing = verifyProgram(parseProgramText(copies(copy(0) + copy(1) + wait(0) + wait(1)), 'two.aref'));
    expect(statusOf(racing)['race']).toBe('checked');
    expect(racing.violations[0]?.message).toMatch(/^prefetcher: race on P\[0\]: tma.load into it by prefetcher while a TMA copy into it .* has not landed/);
    // nothing reads P: the report says the lost write cannot reach a value the kernel uses
    expect(racing.violations[0]?.message).toMatch(/\(nothing in the program reads P: a write-only scratch buffer/);
    // with a reader of P, the same race without that word
    const read = verifyProgram(parseProgramText(copies(`${copy(0) + copy(1) + wait(0) + wait(1)}  read P[0]\n`), 'read.aref'));
    expect(read.violations[0]?.message).toMatch(/has not landed$/);
    // the second copy issued once the first landed (its wait passed): ordered, no race
    const ordered = verifyProgram(parseProgramText(copies(`${copy(0) + wait(0) + copy(1) + wait(1)}  read P[0]\n`), 'ordered.aref'));
    expect(ordered.violations.filter((v) => v.kind === 'race')).toEqual([]);
  });

  it('a kernel with no synchronization says so in text, JSON and SARIF instead of a bare verified', () => {
    const r = arefcheck('verify', 'test/ptx/fixtures/no-sync.ptx', '--param', '2=1024');
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(
      '○ vacuous  test/ptx/fixtures/no-sync.ptx at the mbarrier level for one launch assignment (launch values not given take defaults): nothing to check, the program has no synchronization (every property is vacuous)',
    );
    expect(r.stdout).toMatch(/^ {2}vacuous: deadlock \(no operation can block/m);
    expect(r.stdout).not.toMatch(/checked:/);
    const json = JSON.parse(arefcheck('verify', 'test/ptx/fixtures/no-sync.ptx', '--param', '2=1024', '--json').stdout) as { vacuous?: boolean; properties: { status: string }[] };
    expect(json.vacuous).toBe(true);
    expect(json.properties.every((p) => p.status !== 'checked')).toBe(true);
    const [lifted] = liftPtxFile(read('test/ptx/fixtures/no-sync.ptx'), 'no-sync.ptx', { params: new Map([['2', 1024]]) });
    const sarif = JSON.stringify(reportToSarif(verifyProgram(lifted!.program), 'no-sync.ptx'));
    expect(sarif).toMatch(/"text":"deadlock: vacuous \(no operation can block/);
  });

  it('the text report lists every property', () => {
    const program = parseProgramText(read('examples/double-buffer.aref'), 'double-buffer.aref');
    const text = formatReportText(verifyProgram(program), { color: false, program: 'double-buffer.aref' });
    expect(text).toMatch(/^ {2}checked: deadlock, race, fifo, protocol$/m);
    expect(text).toMatch(/^ {2}vacuous: termination \(every loop bound is fixed before the loop starts, so every run is finite\)$/m);
    expect(text).toMatch(/^ {2}not applicable: refinement \(no aref program to refine: the program was not lowered from one\)$/m);
  });
});
