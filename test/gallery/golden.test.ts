// The bug gallery (examples/gallery) against its committed counterexamples (traces/): every bug
// program is reported with the kind its header expects and a trace byte-for-byte equal to the
// golden, every twin is verified, every trace is as short as a plain BFS says is possible, and
// every golden replays to its violation through the reference interpreter.
// Regenerate the goldens after an intended change: node --import tsx scripts/regen-traces.ts
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseProgramText } from '../../src/lang/load.ts';
import { verifyProgram, type Report } from '../../src/verify.ts';
import { replayTrace } from '../../src/verify/replay.ts';
import { readTraceJson } from '../../src/verify/trace-json.ts';
import { galleryEntries, goldenOf, goldenPaths, ROOT, verifyEntry, type GalleryEntry } from '../../scripts/regen-traces.ts';
import { shallowestViolations } from './bfs-depths.ts';

const entries = galleryEntries();
const bugs = entries.filter((e) => !e.twin);
const twins = entries.filter((e) => e.twin);

const reports = new Map<string, Report>();
function reportOf(entry: GalleryEntry): Report {
  let r = reports.get(entry.name);
  if (!r) {
    r = verifyEntry(entry);
    reports.set(entry.name, r);
  }
  return r;
}

const readRepoFile = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

describe('the gallery', () => {
  it('has one bug program per class M1–M14, each with its twin', () => {
    expect(new Set(bugs.map((e) => e.bugClass))).toEqual(new Set(Array.from({ length: 14 }, (_, i) => i + 1)));
    expect(twins.map((e) => e.name).sort()).toEqual(bugs.map((e) => `${e.name}-ok`).sort());
  });

  it('headers: a bug expects a violation kind, a twin expects verified', () => {
    for (const e of bugs) expect(['deadlock', 'race', 'fifo', 'protocol', 'termination'], e.file).toContain(e.expected);
    for (const e of twins) expect(e.expected, e.file).toBe('verified');
  });
});

describe.each(bugs.map((e) => [e.name, e] as const))('bug %s', (_name, entry) => {
  it(`is reported as ${entry.expected}, with exactly the kinds its header lists`, () => {
    const report = reportOf(entry);
    expect(report.verdict).toBe('violation');
    expect(new Set(report.violations.map((v) => v.kind))).toEqual(new Set([entry.expected, ...entry.alsoReported]));
  });

  it('has the committed counterexample (traces/*.json and *.txt)', () => {
    const golden = goldenOf(entry, reportOf(entry));
    const paths = goldenPaths(entry);
    expect(golden.json).toBe(readRepoFile(paths.json));
    expect(golden.text).toBe(readRepoFile(paths.text));
  });

  it('every trace is as long as the shallowest violating state of its kind (BFS depth)', () => {
    const depths = shallowestViolations(entry.program);
    const report = reportOf(entry);
    expect(new Set(depths.keys())).toEqual(new Set(report.violations.map((v) => v.kind)));
    for (const v of report.violations) expect(v.trace.length, v.kind).toBe(depths.get(v.kind));
  });

  it('the committed trace replays to its violation', () => {
    const path = goldenPaths(entry).json;
    const trace = readTraceJson(readRepoFile(path), path);
    const result = replayTrace(entry.program, trace);
    expect(result.reached).toBe(entry.expected);
    expect(result.reproduced).toBe(true);
  });

  if (entry.level === 'aref') {
    it('lowered to the mbarrier level, it shows the same kind', () => {
      const lowered = verifyProgram(entry.program, { level: 'mbarrier' });
      expect(lowered.violations.map((v) => v.kind)).toContain(entry.expected);
    });
  }
});

describe.each(twins.map((e) => [e.name, e] as const))('twin %s', (_name, entry) => {
  it('is verified', () => {
    const report = reportOf(entry);
    expect(report.violations.map((v) => `${v.kind}: ${v.message}`)).toEqual([]);
    expect(report.verdict).toBe('verified');
  });

  if (entry.level === 'aref') {
    it('lowered to the mbarrier level, it is verified (refinement included)', () => {
      expect(verifyProgram(entry.program, { level: 'mbarrier' }).verdict).toBe('verified');
    });
  }
});

describe('proxy fences with two slots (a former false alarm)', () => {
  // A later fence.proxy.async by the producer must not erase what the consumer learned of the
  // first fence after a write (semantics/named.ts keeps one fence event per role and write).
  const file = 'test/fixtures/programs/fence-two-slots.aref';
  it('a fence before every arrive: verified', () => {
    const program = parseProgramText(readRepoFile(file), file);
    expect(verifyProgram(program).verdict).toBe('verified');
  });
  it('the same without the fence: a race', () => {
    const text = readRepoFile(file).replace('    fence.proxy.async\n', '');
    const report = verifyProgram(parseProgramText(text, file));
    expect(report.violations.map((v) => v.kind)).toEqual(['race']);
    expect(report.violations[0]!.message).toMatch(/no fence.proxy.async/);
  });
});
