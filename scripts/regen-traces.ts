// Regenerates the committed counterexamples of the bug gallery: for every program
// examples/gallery/mN-<name>.aref (not the `-ok` twins) it verifies the program at its own level
// and writes traces/<name>.json (the violation of the kind its header expects, as the ITF-shaped
// file `arefcheck verify --trace-out` writes and `arefcheck replay` reads) and traces/<name>.txt
// (the same violation for people, plus one line per other kind reported).
//
//   node --import tsx scripts/regen-traces.ts            write every golden
//   node --import tsx scripts/regen-traces.ts --check    write nothing; exit 1 when a golden differs
//
// test/gallery/golden.test.ts re-derives the same text with these functions and compares it with
// the committed files, so a change in the semantics or the reports shows up as a diff here.
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Chalk } from 'chalk';
import { programLevel, type Level, type Program } from '../src/ir/program.ts';
import { parseProgramText } from '../src/lang/load.ts';
import { verifyProgram, type Report } from '../src/verify.ts';
import { formatVerdictLine, formatViolation } from '../src/verify/format-text.ts';
import { jsonText } from '../src/json-out.ts';
import { TRACE_LAYOUT, violationToTraceJson } from '../src/verify/trace-json.ts';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const GALLERY_DIR = 'examples/gallery';
export const TRACES_DIR = 'traces';

export interface GalleryEntry {
  /** File stem: `m6-early-release`, `m6-early-release-ok`. */
  readonly name: string;
  /** Path relative to the repository root, as it appears in locations and trace files. */
  readonly file: string;
  /** Bug class number N of `mN-…` (DESIGN.md "Bug classes"). */
  readonly bugClass: number;
  readonly twin: boolean;
  /** For a bug: the kind whose trace is the golden; for a twin: `verified`. */
  readonly expected: string;
  /** Other kinds the header says are reported too (each with its own shortest trace). */
  readonly alsoReported: readonly string[];
  readonly level: Level;
  readonly program: Program;
}

const NAME_RE = /^m(\d+)-[a-z0-9-]+\.aref$/;
const EXPECTED_RE = /^# Expected: ([a-z]+)(?: \(also reported: ([a-z, ]+)\))?\.$/m;

/** Every gallery program, in class order, with what its header comment expects. */
export function galleryEntries(root: string = ROOT): GalleryEntry[] {
  const names = readdirSync(join(root, GALLERY_DIR)).filter((f) => f.endsWith('.aref'));
  const entries = names.map((base) => {
    const file = `${GALLERY_DIR}/${base}`;
    const m = NAME_RE.exec(base);
    if (!m?.[1]) throw new Error(`${file}: gallery programs are named mN-<name>.aref`);
    const text = readFileSync(join(root, file), 'utf8');
    const e = EXPECTED_RE.exec(text);
    if (!e?.[1]) throw new Error(`${file}: the header needs a line '# Expected: <kind>.' or '# Expected: <kind> (also reported: <kind>, …).'`);
    const program = parseProgramText(text, file);
    const name = base.slice(0, -'.aref'.length);
    return {
      name,
      file,
      bugClass: Number(m[1]),
      twin: name.endsWith('-ok'),
      expected: e[1],
      alsoReported: e[2] ? e[2].split(',').map((k) => k.trim()) : [],
      level: programLevel(program),
      program,
    };
  });
  // M1, M2, …, M14; within a class by name (a bug before its twin)
  return entries.sort((a, b) => a.bugClass - b.bugClass || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Verify a gallery program at its own level with the default limits. */
export function verifyEntry(entry: GalleryEntry): Report {
  return verifyProgram(entry.program, { level: entry.level });
}

export interface Golden {
  readonly json: string;
  readonly text: string;
}

/** The golden files of a bug program, from its report; throws when the report lacks the expected kind. */
export function goldenOf(entry: GalleryEntry, report: Report): Golden {
  const index = report.violations.findIndex((v) => v.kind === entry.expected);
  const v = report.violations[index];
  if (!v) throw new Error(`${entry.file}: expected a ${entry.expected} violation, got ${report.verdict} (${report.violations.map((x) => x.kind).join(', ') || 'none'})`);
  const params = Object.fromEntries(entry.program.params.map((p) => [p.name, p.value]));
  const json = violationToTraceJson(report, index, entry.file, { params, literal: false, program: entry.program });
  const plain = new Chalk({ level: 0 });
  const others = report.violations.filter((_, i) => i !== index);
  const lines = [
    formatVerdictLine(report, entry.file, plain),
    `expected: ${entry.expected}`,
    '',
    ...formatViolation(v, plain),
  ];
  if (others.length > 0) {
    lines.push('', 'also reported (each with its own shortest trace; arefcheck verify prints them):');
    for (const o of others) lines.push(`  ${o.kind} after ${o.trace.length} step${o.trace.length === 1 ? '' : 's'}: ${o.message.split('\n').join(' / ')}`);
  }
  return { json: jsonText(json, TRACE_LAYOUT), text: `${lines.join('\n')}\n` };
}

export function goldenPaths(entry: GalleryEntry): { json: string; text: string } {
  return { json: `${TRACES_DIR}/${entry.name}.json`, text: `${TRACES_DIR}/${entry.name}.txt` };
}

function main(argv: readonly string[]): number {
  const check = argv.includes('--check');
  mkdirSync(join(ROOT, TRACES_DIR), { recursive: true });
  let differ = 0;
  for (const entry of galleryEntries()) {
    if (entry.twin) continue;
    const golden = goldenOf(entry, verifyEntry(entry));
    const paths = goldenPaths(entry);
    for (const [path, content] of [[paths.json, golden.json], [paths.text, golden.text]] as const) {
      const abs = join(ROOT, path);
      let old: string | undefined;
      try {
        old = readFileSync(abs, 'utf8');
      } catch {
        old = undefined;
      }
      if (old === content) continue;
      differ++;
      if (check) console.log(`differs: ${relative(ROOT, abs)}`);
      else {
        writeFileSync(abs, content);
        console.log(`wrote ${relative(ROOT, abs)}`);
      }
    }
  }
  if (differ === 0) console.log('every golden is up to date');
  return check && differ > 0 ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = main(process.argv.slice(2));
}
