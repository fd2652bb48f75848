// The report as SARIF 2.1.0 (the format code-scanning CI reads): one result per violation at its
// source line, its trace as a code flow; an inconclusive run is a tool notification, not a result.
import type { Loc } from '../ir/program.ts';
import type { Report } from './report.ts';
import { violationLevels } from './trace-json.ts';

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';

/** The property kinds of DESIGN.md, as SARIF rules. */
export const RULES: Readonly<Record<string, string>> = {
  deadlock: 'A reachable state where some role has not finished and nothing can move.',
  race: 'Two accesses to one buffer slot, at least one a write, not ordered by happens-before.',
  fifo: 'A consumer iteration reads something other than the value its producer iteration wrote.',
  protocol: 'Misuse the rules forbid (consumed on a slot not borrowed, arrive past the expected count, a missed phase, …).',
  termination: 'A cycle that can repeat forever under weak fairness: some role never finishes.',
  refinement: 'An execution of the mbarrier-level program that no execution of the aref-level program allows.',
};

interface SarifLocation {
  readonly physicalLocation: { readonly artifactLocation: { readonly uri: string }; readonly region?: { readonly startLine: number; readonly startColumn: number } };
}

function location(loc: Loc | undefined, programFile: string): SarifLocation {
  const uri = loc?.file ?? programFile;
  return loc
    ? { physicalLocation: { artifactLocation: { uri }, region: { startLine: loc.line, startColumn: loc.col } } }
    : { physicalLocation: { artifactLocation: { uri } } };
}

/** Thread-flow locations kept per result (the last steps, the ones that lead to the violation); the trace file has them all. */
export const MAX_FLOW_STEPS = 1000;

export function reportToSarif(report: Report, programFile: string, toolVersion?: string): object {
  const levels = violationLevels(report);
  const kinds = [...new Set(report.violations.map((v) => v.kind))];
  const results = report.violations.map((v, i) => ({
    ruleId: v.kind,
    level: 'error',
    message: { text: v.message },
    locations: [location(v.loc, programFile)],
    properties: {
      level: levels[i],
      traceSteps: v.trace.length,
      ...(v.trace.length > MAX_FLOW_STEPS ? { flowFromStep: v.trace.length - MAX_FLOW_STEPS + 1 } : { actionIndices: v.actionIndices }),
      ...(v.loopStart !== undefined ? { loopStart: v.loopStart } : {}),
    },
    codeFlows: [
      {
        threadFlows: [
          {
            locations: v.trace.slice(-MAX_FLOW_STEPS).map((t) => ({
              executionOrder: t.step,
              location: { ...location(t.loc, programFile), message: { text: `${t.actor}: ${t.action}${t.changes.length > 0 ? ` (${t.changes.join('; ')})` : ''}` } },
              ...(v.loopStart !== undefined && t.step > v.loopStart ? { kinds: ['cycle'] } : {}),
            })),
          },
        ],
      },
    ],
  }));
  const notifications = [
    ...(report.limit ? [{ level: 'warning', message: { text: `inconclusive: ${report.limit.message}` } }] : []),
    ...report.properties
      .filter((p) => p.status !== 'checked')
      .map((p) => ({ level: 'note', message: { text: `${p.kind}: ${p.status}${p.reason ? ` (${p.reason})` : ''}` } })),
    ...(report.notes ?? []).map((text) => ({ level: 'note', message: { text } })),
  ];
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'arefcheck',
            ...(toolVersion ? { version: toolVersion } : {}),
            rules: kinds.map((id) => ({ id, shortDescription: { text: RULES[id] ?? id } })),
          },
        },
        invocations: [{ executionSuccessful: true, ...(notifications.length > 0 ? { toolExecutionNotifications: notifications } : {}) }],
        results,
        properties: { verdict: report.verdict, level: report.level, stats: report.stats, properties: report.properties },
      },
    ],
  };
}
