// The report as SARIF 2.1.0 (the format code-scanning CI reads): one result per violation at its
// source line, its trace as a code flow; an inconclusive run is a tool notification, not a result.
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Loc } from '../ir/program.ts';
import type { Report } from './report.ts';
import { violationLevels } from './trace-json.ts';

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';

/** The property kinds of DESIGN.md, as SARIF rules: one line, then what it means and how to fix it. */
export const RULES: Readonly<Record<string, { readonly short: string; readonly full: string; readonly help: string }>> = {
  deadlock: {
    short: 'A reachable state where some role has not finished and nothing can move.',
    full: 'Every role that has not finished waits on a barrier, a slot or a wgmma group that no other party can ever release: the kernel hangs on this schedule.',
    help: 'Look at the blocked waits the result points to and the last steps of the trace: a wrong parity, an expect_tx byte count larger than the copies deliver, an init count above the arrivals, or a ring shallower than the prefetch distance are the usual causes.',
  },
  race: {
    short: 'Two accesses to one buffer slot, at least one a write, not ordered by happens-before.',
    full: 'A write and another access to the same shared-memory slot (or an access while a TMA copy, wgmma or TMA store on it is still in flight) with no happens-before order between them: the kernel can read or overwrite data that is not ready.',
    help: 'Order the accesses: wait on the full barrier before reading, release the slot (arrive on the empty barrier) only after wgmma.wait_group retired the wgmma that reads it, and put fence.proxy.async between generic writes and async-proxy reads.',
  },
  fifo: {
    short: 'A consumer iteration reads something other than the value its producer iteration wrote.',
    full: 'The value a read, get or wgmma expects is not the one in the slot: data was lost, read stale, duplicated or reordered.',
    help: 'Check the slot index (k mod D) and the phase parity of each wait: an off-by-one slot or a parity that does not flip every D iterations reads another iteration\'s data.',
  },
  protocol: {
    short: 'Misuse the rules forbid (consumed on a slot not borrowed, arrive past the expected count, a missed phase, …).',
    full: 'An operation the PTX or aref rules leave undefined or forbid: a double init, an arrive past the expected count or before the previous phase was observed, a wait whose parity names a phase two or more behind, bytes left outstanding at exit.',
    help: 'The message names the rule; docs/semantics.md gives each rule with the PTX ISA section it comes from.',
  },
  termination: {
    short: 'A cycle that can repeat forever under weak fairness: some role never finishes.',
    full: 'A reachable cycle of states in which every party that stays enabled acts: the kernel can run forever without finishing.',
    help: 'The trace ends with the cycle (from loopStart): look for a loop whose exit depends on a value the cycle never changes.',
  },
  refinement: {
    short: 'An execution of the mbarrier-level program that no execution of the aref-level program allows.',
    full: 'The mbarrier-level implementation does something its aref-level specification cannot: the lowering is wrong.',
    help: 'Compare the step where the monitor fails with the aref rule it should implement (put/get/consumed).',
  },
};

/** Where the tool is documented (SARIF tool.driver.informationUri). */
export const INFORMATION_URI = 'https://www.npmjs.com/package/arefcheck';

export interface SarifOptions {
  readonly toolVersion?: string;
  /**
   * Make file URIs relative to this folder (the repository root, as code scanning wants them),
   * with uriBaseId SRCROOT; files outside it keep their path.
   */
  readonly root?: string;
}

interface ArtifactLocation {
  readonly uri: string;
  readonly uriBaseId?: string;
}

interface SarifLocation {
  readonly physicalLocation: { readonly artifactLocation: ArtifactLocation; readonly region: { readonly startLine: number; readonly startColumn?: number } };
}

/** A file URI: relative to the root when it is inside it, percent-encoded segment by segment. */
function artifact(file: string, root: string | undefined): ArtifactLocation {
  const abs = resolve(file);
  const rel = root === undefined ? undefined : relative(resolve(root), abs);
  const inside = rel !== undefined && rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  const path = inside ? rel : file;
  const uri = path.split(sep).map(encodeURIComponent).join('/');
  return inside ? { uri, uriBaseId: 'SRCROOT' } : { uri: isAbsolute(path) ? pathToFileURL(path).href : uri };
}

/** Every result has a region: the operation's line, or line 1 of the program when there is none. */
function location(loc: Loc | undefined, programFile: string, root: string | undefined): SarifLocation {
  return {
    physicalLocation: {
      artifactLocation: artifact(loc?.file ?? programFile, root),
      region: loc ? { startLine: loc.line, startColumn: loc.col } : { startLine: 1 },
    },
  };
}

/** Thread-flow locations kept per result (the last steps, the ones that lead to the violation); the trace file has them all. */
export const MAX_FLOW_STEPS = 1000;

const RULE_IDS = Object.keys(RULES);

export function reportToSarif(report: Report, programFile: string, options: SarifOptions = {}): object {
  const { root } = options;
  const levels = violationLevels(report);
  const results = report.violations.map((v, i) => ({
    ruleId: v.kind,
    ruleIndex: RULE_IDS.indexOf(v.kind),
    level: 'error',
    message: { text: v.message },
    locations: [location(v.loc, programFile, root)],
    ...(v.blockedAt && v.blockedAt.length > 1
      ? { relatedLocations: v.blockedAt.map((loc, id) => ({ id, ...location(loc, programFile, root), message: { text: 'blocked here' } })) }
      : {}),
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
              location: { ...location(t.loc ?? v.loc, programFile, root), message: { text: `${t.actor}: ${t.action}${t.changes.length > 0 ? ` (${t.changes.join('; ')})` : ''}` } },
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
            version: options.toolVersion ?? 'unknown',
            informationUri: INFORMATION_URI,
            rules: RULE_IDS.map((id) => {
              const r = RULES[id]!;
              return {
                id,
                name: id,
                shortDescription: { text: r.short },
                fullDescription: { text: r.full },
                help: { text: r.help, markdown: r.help },
                defaultConfiguration: { level: 'error' },
              };
            }),
          },
        },
        ...(root !== undefined ? { originalUriBaseIds: { SRCROOT: { uri: pathToFileURL(`${resolve(root)}${sep}`).href } } } : {}),
        invocations: [{ executionSuccessful: true, ...(notifications.length > 0 ? { toolExecutionNotifications: notifications } : {}) }],
        results,
        properties: { verdict: report.verdict, level: report.level, stats: report.stats, properties: report.properties },
      },
    ],
  };
}
