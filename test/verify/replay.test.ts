// Counterexample files and replay, as a library: every violation the checker reports, written as
// a trace file and read back, replays through the reference semantics to the same kind, and a
// trace cut short or pointed at the wrong program does not.
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readItfIndices } from '../../checker/index.ts';
import { arbPipelineParams, arbProgram } from '../../src/arbitraries.ts';
import { InputError } from '../../src/diag.ts';
import { programLevel, type Program } from '../../src/ir/program.ts';
import { loadProgramFile } from '../../src/lang/load.ts';
import { pipelineProgram } from '../../src/pipeline.ts';
import { verifyProgram, type Report } from '../../src/verify.ts';
import { replayTrace } from '../../src/verify/replay.ts';
import { readTraceJson, violationLevels, violationToTraceJson, type TraceFile } from '../../src/verify/trace-json.ts';

const paramsOf = (p: Program): Record<string, number> => Object.fromEntries(p.params.map((x) => [x.name, x.value]));

/** Through the file format: what `verify --trace-out` writes and `replay` reads. */
function traceFileOf(report: Report, i: number, program: Program, literal = false): TraceFile {
  const json = violationToTraceJson(report, i, 'prog.aref', { params: paramsOf(program), literal });
  return readTraceJson(JSON.stringify(json, null, 2), 'trace.json');
}

/** Every violation of `report` replays to its kind; the trace without its last step does not. */
function expectAllReplay(program: Program, report: Report, literal = false): number {
  report.violations.forEach((v, i) => {
    const trace = traceFileOf(report, i, program, literal);
    const result = replayTrace(program, trace);
    expect(result.reached, `${v.kind}: ${v.message}\nreplay: ${result.message}`).toBe(v.kind);
    expect(result.reproduced).toBe(true);
    expect(result.steps.map((s) => s.action)).toEqual(v.trace.map((t) => t.action));
    if (trace.actionIndices.length > 0 && v.kind !== 'termination') {
      const cut = replayTrace(program, { ...trace, actionIndices: trace.actionIndices.slice(0, -1) });
      expect(cut.reproduced, `a shortest ${v.kind} trace cut by one step still reaches it`).toBe(false);
    }
  });
  return report.violations.length;
}

describe('trace files', () => {
  const program = loadProgramFile('examples/early-release-mbar.aref');
  const report = verifyProgram(program);

  it('are ITF-shaped: meta, vars, one state per step plus the initial one, readable by the checker', () => {
    const json = violationToTraceJson(report, 0, 'examples/early-release-mbar.aref', { params: paramsOf(program), literal: false });
    expect(json['#meta']).toMatchObject({ tool: 'arefcheck', format: 'ITF', kind: 'race', level: 'mbarrier', program: 'examples/early-release-mbar.aref', params: { K: 8 }, literal: false });
    expect(json['#meta'].loc).toMatchObject({ line: 16 });
    expect(json.vars).toEqual(['changes']);
    expect(json.states).toHaveLength(report.violations[0]!.trace.length + 1);
    expect(json.states[0]!['#meta']).toEqual({ index: 0, initialIndex: 0 });
    expect(json.states[3]!['#meta']).toMatchObject({ index: 3, actor: 'producer', action: 'tma.load S[0] -> full[0], 16384 value 0' });
    const itf = readItfIndices(JSON.parse(JSON.stringify(json)));
    expect(itf.actionIndices).toEqual(report.violations[0]!.actionIndices);
  });

  it('read back to what replay needs', () => {
    const trace = traceFileOf(report, 0, program);
    expect(trace).toEqual({
      kind: 'race',
      level: 'mbarrier',
      params: { K: 8 },
      literal: false,
      actionIndices: report.violations[0]!.actionIndices,
      message: report.violations[0]!.message,
      program: 'prog.aref',
    });
  });

  it('take their action indices from the states when "#meta" has none', () => {
    const json = JSON.parse(JSON.stringify(violationToTraceJson(report, 0, 'x.aref', { params: {}, literal: false }))) as { '#meta': Record<string, unknown> };
    delete json['#meta']['actionIndices'];
    expect(readTraceJson(JSON.stringify(json), 't.json').actionIndices).toEqual(report.violations[0]!.actionIndices);
  });

  it('know the level of each violation of a report at both levels', () => {
    const both = verifyProgram(pipelineProgram({ depth: 3, pending: 0, consumers: 2, iterations: 6, level: 'aref' }), { level: 'both' });
    expect(both.violations.map((v) => v.kind)).toEqual(['fifo', 'refinement', 'protocol']);
    expect(violationLevels(both)).toEqual(['aref', 'mbarrier', 'mbarrier']);
  });

  const malformed: Array<[string, string, RegExp, number]> = [
    ['not JSON', '{ "#meta": { "kind": "race", }', /trailing comma/, 1],
    ['no #meta', '{\n  "states": []\n}', /no "#meta" object/, 1],
    ['no kind', '{ "#meta": { "level": "aref", "actionIndices": [] } }', /no "kind"/, 1],
    ['a bad level', '{ "#meta": {\n "kind": "race",\n "level": "ptx", "actionIndices": [] } }', /level must be aref or mbarrier, found 'ptx'/, 3],
    ['a negative index', '{ "#meta": { "kind": "race", "level": "aref",\n\n  "actionIndices": [0, -1] } }', /actionIndices\[1\] must be a non-negative integer, found -1/, 3],
    ['a fractional index', '{ "#meta": { "kind": "race", "level": "aref", "actionIndices": [1.5] } }', /must be a non-negative integer, found 1.5/, 1],
    ['another tool', '{ "#meta": { "tool": "quint", "kind": "race", "level": "aref", "actionIndices": [] } }', /not a trace written by arefcheck/, 1],
    ['a loop past the end', '{ "#meta": { "kind": "termination", "level": "aref", "actionIndices": [0], "loopStart": 5 } }', /loop starts at state 5 but the trace has only 2 states/, 1],
    [
      'states that disagree',
      '{ "#meta": { "kind": "race", "level": "aref", "actionIndices": [0, 1] },\n "states": [ {"#meta": {"index": 0}}, {"#meta": {"actionIndex": 0}},\n {"#meta": {"actionIndex": 2}} ] }',
      /states\[2\]\["#meta"\]\.actionIndex is 2 but "#meta"\.actionIndices\[1\] is 1/,
      3,
    ],
    ['params not integers', '{ "#meta": { "kind": "race", "level": "aref", "actionIndices": [], "params": { "K": "8" } } }', /params\.K must be an integer/, 1],
  ];
  it.each(malformed)('reject %s with file:line', (_what, text, message, line) => {
    let error: unknown;
    try {
      readTraceJson(text, 'bad.json');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputError);
    const e = error as InputError;
    expect(e.message).toMatch(message);
    expect(e.loc).toMatchObject({ file: 'bad.json', line });
  });
});

describe('replay', () => {
  it('confirms the examples’ violations and names what the deadlock waits for', () => {
    const deadlocked = loadProgramFile('examples/depth-equals-pending.aref');
    const report = verifyProgram(deadlocked, { level: 'both' });
    expect(expectAllReplay(deadlocked, report)).toBe(2);
    const mbar = replayTrace(deadlocked, traceFileOf(report, 1, deadlocked));
    expect(mbar).toMatchObject({ level: 'mbarrier', lowered: true, reached: 'deadlock' });
    expect(mbar.message).toMatch(/producer waits A_empty\[0\] parity 0/);
  });

  it('says at which step a trace does not fit the program', () => {
    const program = loadProgramFile('examples/early-release-mbar.aref');
    const trace = traceFileOf(verifyProgram(program), 0, program);
    const bad = { ...trace, actionIndices: [...trace.actionIndices.slice(0, 4), 7, ...trace.actionIndices.slice(5)] };
    expect(() => replayTrace(program, bad)).toThrow(InputError);
    expect(() => replayTrace(program, bad)).toThrow(/step 5 takes action #7 but only actions #0\.\.#\d are enabled/);
    const other = loadProgramFile('examples/double-buffer-mbar.aref');
    const result = replayTrace(other, trace);
    expect(result.reproduced).toBe(false);
    expect(result.reached).toBe('running');
  });

  it('refuses an aref-level trace on an mbarrier-level program', () => {
    const trace: TraceFile = { kind: 'deadlock', level: 'aref', params: {}, literal: false, actionIndices: [] };
    expect(() => replayTrace(loadProgramFile('examples/double-buffer-mbar.aref'), trace)).toThrow(/trace is at the aref level but the program is at the mbarrier level/);
  });

  it('does not confirm a termination lasso that does not close', () => {
    const program = loadProgramFile('examples/double-buffer.aref');
    const trace: TraceFile = { kind: 'termination', level: 'aref', params: {}, literal: false, actionIndices: [0, 0, 0], loopStart: 1 };
    const result = replayTrace(program, trace);
    expect(result.reproduced).toBe(false);
    expect(result.message).toMatch(/not the state at the start of the cycle \(state 1\): no lasso/);
    expect(replayTrace(program, { ...trace, loopStart: undefined } as unknown as TraceFile).message).toMatch(/needs "loopStart"/);
  });

  it('a trace that runs to the end of a correct program is not a violation', () => {
    const program = loadProgramFile('examples/double-buffer.aref', new Map([['K', 1]]));
    // the only schedule: put, get, mma.issue, wgmma.wait 1, retire, wgmma.wait 0, consumed
    const result = replayTrace(program, { kind: 'deadlock', level: 'aref', params: {}, literal: false, actionIndices: [0, 0, 0, 0, 0, 0, 0] });
    expect(result.reached).toBe('finished');
    expect(result.reproduced).toBe(false);
  });

  it('every violation of a random pipeline replays to its kind, at each level', () => {
    let replayed = 0;
    fc.assert(
      fc.property(arbPipelineParams(), fc.constantFrom('aref' as const, 'mbarrier' as const, 'both' as const), (params, level) => {
        const iterations = Math.min(params.iterations, 5);
        const program = pipelineProgram({ ...params, iterations, level: 'aref' });
        const report = verifyProgram(program, { level, maxStates: 50_000 });
        replayed += expectAllReplay(program, report);
        if (params.depth <= params.pending && params.consumers === 1 && iterations > params.depth) {
          expect(report.violations.map((v) => v.kind)).toContain('deadlock');
        }
      }),
      { numRuns: 40, seed: 20240601 },
    );
    expect(replayed).toBeGreaterThan(10);
  });

  it('every violation of a random program replays to its kind (and under the literal consumed rule)', () => {
    let replayed = 0;
    const kinds = new Set<string>();
    fc.assert(
      fc.property(arbProgram({ maxRoles: 2, maxStatements: 3 }), fc.boolean(), (program, literal) => {
        const report = verifyProgram(program, { maxStates: 5_000, literal });
        for (const v of report.violations) kinds.add(v.kind);
        replayed += expectAllReplay(program, report, literal);
        expect(violationLevels(report).every((l) => l === programLevel(program))).toBe(true);
      }),
      { numRuns: 150, seed: 7 },
    );
    expect(replayed).toBeGreaterThan(30);
    // the random programs reach more than one kind of violation, so the judge is exercised
    expect(kinds.size).toBeGreaterThan(2);
  });
});
