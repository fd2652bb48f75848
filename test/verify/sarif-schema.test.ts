// SARIF that code scanning can place (issue 11.2): the reports of a race, a deadlock, a
// termination cycle and a PTX violation, written by `verify --sarif --sarif-root .`, validate
// against the SARIF 2.1.0 JSON schema (the OASIS schema as @microsoft/jest-sarif ships it); every
// result has a region and a repository-relative URI; the tool has a version and an information URI
// and every rule a full description and help.
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AjvModule from 'ajv-draft-04';
import { describe, expect, it } from 'vitest';
import { arefcheck } from '../cli/spawn.ts';

const require = createRequire(import.meta.url);
const schema: unknown = JSON.parse(readFileSync(require.resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json'), 'utf8'));
// unicodeRegExp off: the schema's language-tag pattern is not a valid unicode-mode regex
// a CommonJS package: typed as its module, used as its class (vitest's interop gives the class)
type Validate = ((data: unknown) => boolean) & { errors?: unknown[] | null };
const Ajv = AjvModule as unknown as new (options: object) => { compile(schema: object): Validate };
const validate = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false }).compile(schema as object);

interface Region {
  startLine: number;
}
interface Loc {
  physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string }; region?: Region };
}
interface SarifLog {
  runs: {
    tool: { driver: { version?: string; informationUri?: string; rules: { id: string; fullDescription?: { text: string }; help?: { text: string } }[] } };
    results: { ruleId: string; locations: Loc[]; codeFlows: { threadFlows: { locations: { location: Loc }[] }[] }[] }[];
  }[];
}

const dir = mkdtempSync(join(tmpdir(), 'arefcheck-sarif-'));

function sarifOf(file: string, ...flags: string[]): SarifLog {
  const out = join(dir, `${file.replace(/\W/g, '_')}.sarif`);
  const r = arefcheck('verify', file, '--sarif', out, '--sarif-root', '.', ...flags);
  expect(r.status, r.stderr).toBe(1);
  return JSON.parse(readFileSync(out, 'utf8')) as SarifLog;
}

const CASES = [
  { what: 'a race', file: 'examples/early-release-mbar.aref', kind: 'race' },
  { what: 'a deadlock', file: 'examples/depth-equals-pending.aref', kind: 'deadlock' },
  { what: 'a PTX violation', file: 'test/fixtures/cuda/ws_ring_parity_bug.ptx', kind: 'race' },
] as const;

describe('SARIF 2.1.0 for code scanning', () => {
  it.each(CASES)('$what validates against the schema, with a region and a relative URI on every result', ({ file, kind }) => {
    const log = sarifOf(file);
    const ok = validate(log);
    expect(validate.errors ?? [], JSON.stringify(validate.errors?.slice(0, 3))).toEqual([]);
    expect(ok).toBe(true);
    const run = log.runs[0]!;
    expect(run.results.map((x) => x.ruleId)).toContain(kind);
    for (const result of run.results) {
      const loc = result.locations[0]!.physicalLocation;
      expect(loc.region?.startLine, `${result.ruleId} has no region`).toBeGreaterThanOrEqual(1);
      expect(loc.artifactLocation).toEqual({ uri: file, uriBaseId: 'SRCROOT' });
      for (const step of result.codeFlows[0]!.threadFlows[0]!.locations) expect(step.location.physicalLocation.region?.startLine).toBeGreaterThanOrEqual(1);
    }
  });

  it('the deadlock points at the blocked wait', () => {
    const run = sarifOf('examples/depth-equals-pending.aref').runs[0]!;
    const text = readFileSync('examples/depth-equals-pending.aref', 'utf8').split('\n');
    const line = run.results[0]!.locations[0]!.physicalLocation.region!.startLine;
    expect(text[line - 1]).toMatch(/\b(put|get|wait)\b/);
  });

  it('the tool has a version and an information URI; every rule a full description and help', () => {
    const driver = sarifOf('examples/early-release-mbar.aref').runs[0]!.tool.driver;
    expect(driver.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(driver.informationUri).toMatch(/^https:\/\//);
    for (const rule of driver.rules) {
      expect(rule.fullDescription?.text.length, rule.id).toBeGreaterThan(20);
      expect(rule.help?.text.length, rule.id).toBeGreaterThan(20);
    }
  });

  it('an invalid log is refused by the same validator (the check bites)', () => {
    const log = sarifOf('examples/early-release-mbar.aref') as unknown as { runs: { results: { level: string }[] }[] };
    log.runs[0]!.results[0]!.level = 'fatal';
    expect(validate(log)).toBe(false);
  });
});
