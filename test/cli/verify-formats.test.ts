// The report's text, trace-file and SARIF forms, as functions: what a person and a CI see.
import { describe, expect, it } from 'vitest';
import { loadProgramFile } from '../../src/lang/load.ts';
import { verifyProgram, type Report } from '../../src/verify.ts';
import { formatReportText, formatStats } from '../../src/verify/format-text.ts';
import { readTraceJson, violationToTraceJson } from '../../src/verify/trace-json.ts';
import { reportToSarif } from '../../src/verify/sarif.ts';

/** A termination report by hand: the program model never produces one (its states count steps). */
const lasso: Report = {
  verdict: 'violation',
  level: 'aref',
  violations: [
    {
      kind: 'termination',
      message: 'a cycle of 2 steps from depth 1 can repeat forever under weak fairness (acting in it: spinner)',
      trace: [
        { step: 1, actor: 'spinner', action: 'put A[0], 0', changes: ['σ(A[0]) = ⟨0, 1, 0⟩'], loc: { file: 'spin.aref', line: 4, col: 5 } },
        { step: 2, actor: 'spinner', action: 'get A[0]', changes: ['σ(A[0]) = ⟨0, 0, 0⟩'], loc: { file: 'spin.aref', line: 5, col: 5 } },
        { step: 3, actor: 'spinner', action: 'consumed A[0]', changes: ['σ(A[0]) = ⟨0, 0, 1⟩'], loc: { file: 'spin.aref', line: 6, col: 5 } },
      ],
      actionIndices: [0, 0, 0],
      loopStart: 1,
    },
  ],
  stats: { states: 3, transitions: 3, ms: 1, statesPerSecond: 3000, bytesPerState: 100, maxDepth: 3 },
  properties: [{ kind: 'termination', status: 'checked' }],
};

describe('text report', () => {
  it('marks where a termination lasso starts repeating', () => {
    const lines = formatReportText(lasso, { color: false, program: 'spin.aref' }).split('\n');
    const mark = lines.findIndex((l) => l.includes('↻ cycle'));
    expect(lines[mark]).toBe('  ↻ cycle: steps 2–3 return to the state after step 1 and repeat forever');
    expect(lines[mark - 1]).toMatch(/^ {5}1 {2}spinner {2}put A\[0\], 0/);
    expect(lines[mark + 1]).toMatch(/^ {5}2 {2}spinner {2}get A\[0\]/);
  });

  it('prints the stats line with thousands separators', () => {
    expect(formatStats({ states: 1234567, transitions: 2000, ms: 1500, statesPerSecond: 823045, bytesPerState: 64, maxDepth: 9 })).toBe(
      'states 1,234,567 · transitions 2,000 · 1,500 ms · 823,045 states/s · 64 B/state',
    );
  });

  it('colours the verdict only when asked', () => {
    const report = verifyProgram(loadProgramFile('examples/double-buffer.aref', new Map([['K', 2]])));
    expect(formatReportText(report, { color: true, program: 'x' })).toMatch(/\x1b\[3\dm/);
    expect(formatReportText(report, { color: false, program: 'x' })).not.toMatch(/\x1b\[/);
  });
});

describe('trace file of a lasso', () => {
  it('keeps the loop start as ITF "loop" and reads it back', () => {
    const json = violationToTraceJson(lasso, 0, 'spin.aref', { params: {}, literal: false });
    expect(json.loop).toBe(1);
    expect(json['#meta'].loopStart).toBe(1);
    expect(readTraceJson(JSON.stringify(json), 't.json')).toMatchObject({ kind: 'termination', loopStart: 1, actionIndices: [0, 0, 0] });
  });
});

describe('SARIF', () => {
  it('one result per violation at its source line, the trace as a code flow', () => {
    const report = verifyProgram(loadProgramFile('examples/early-release-mbar.aref'));
    const sarif = reportToSarif(report, 'examples/early-release-mbar.aref') as {
      version: string;
      runs: Array<{ tool: { driver: { rules: Array<{ id: string }> } }; results: Array<{ ruleId: string; locations: Array<{ physicalLocation: { region: { startLine: number } } }>; codeFlows: Array<{ threadFlows: Array<{ locations: unknown[] }> }> }> }>;
    };
    expect(sarif.version).toBe('2.1.0');
    const [run] = sarif.runs;
    // every rule is described (GitHub shows a rule's help even for kinds this run did not find)
    expect(run!.tool.driver.rules.map((r) => r.id)).toEqual(['deadlock', 'race', 'fifo', 'protocol', 'termination', 'refinement']);
    expect(run!.results.map((r) => r.ruleId)).toEqual(['race']);
    expect(run!.results[0]!.locations[0]!.physicalLocation.region.startLine).toBe(16);
    expect(run!.results[0]!.codeFlows[0]!.threadFlows[0]!.locations).toHaveLength(14);
  });

  it('no results for a verified program; inconclusive is a warning notification', () => {
    const program = loadProgramFile('examples/double-buffer.aref');
    const ok = reportToSarif(verifyProgram(program), 'x.aref') as { runs: Array<{ results: unknown[] }> };
    expect(ok.runs[0]!.results).toEqual([]);
    const cut = reportToSarif(verifyProgram(program, { maxStates: 5 }), 'x.aref') as {
      runs: Array<{ results: unknown[]; invocations: Array<{ toolExecutionNotifications: Array<{ level: string; message: { text: string } }> }> }>;
    };
    expect(cut.runs[0]!.results).toEqual([]);
    expect(cut.runs[0]!.invocations[0]!.toolExecutionNotifications[0]).toMatchObject({ level: 'warning', message: { text: expect.stringMatching(/^inconclusive: state limit reached/) } });
  });

  it('marks the repeating steps of a lasso', () => {
    const sarif = reportToSarif(lasso, 'spin.aref') as { runs: Array<{ results: Array<{ codeFlows: Array<{ threadFlows: Array<{ locations: Array<{ kinds?: string[] }> }> }> }> }> };
    expect(sarif.runs[0]!.results[0]!.codeFlows[0]!.threadFlows[0]!.locations.map((l) => l.kinds)).toEqual([undefined, ['cycle'], ['cycle']]);
  });
});
