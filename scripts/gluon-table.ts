// Check every kernel python/examples/gluon_suite.py ran on the GPU and print the table docs/gpu.md
// shows: next to each arefcheck verdict, what the hardware did (issue 8).
// Run: node --import tsx scripts/gluon-table.ts [--max-ms N] [--filter S] [--json OUT] [--markdown OUT]
//   --ttgir: give each kernel's TTGIR (the compiler's TMA boxes) where it was saved
import { writeFileSync } from 'node:fs';
import { verifyPtx } from '../src/api.ts';
import { ttgirBoxes } from '../src/ptx/lift/ttgir.ts';
import { InputError } from '../src/diag.ts';
import { MUTANTS, gpuCases, hasPtx, readPtx, readTtgir } from '../test/ptx/gluon-cases.ts';
import { flagOf } from './flags.ts';

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => flagOf(args, name);
const maxMs = Number(flag('--max-ms') ?? 120_000);
const filter = flag('--filter');
const withTtgir = args.includes('--ttgir');

interface Row {
  case: string;
  bug: string;
  hardware: string;
  verdict: string;
  kinds: string[];
  expected: string;
  states: number;
  seconds: number;
  line?: number;
  message?: string;
}

const rows: Row[] = [];
for (const c of gpuCases()) {
  if (filter && !c.name.includes(filter)) continue;
  const bug = c.mutant === 0 ? 'correct' : (MUTANTS[c.mutant]?.what ?? `mutant ${c.mutant}`);
  const expected = c.mutant === 0 ? 'verified' : (MUTANTS[c.mutant]?.kinds.join(' / ') ?? '?');
  if (!hasPtx(c.name)) {
    rows.push({ case: c.name, bug, hardware: c.hardware, verdict: 'not built', kinds: [], expected, states: 0, seconds: 0, message: c.runs });
    continue;
  }
  const file = `${c.name}.ptx`;
  const t0 = performance.now();
  try {
    const ttgir = withTtgir ? readTtgir(c.name) : undefined;
    const report = verifyPtx(readPtx(c.name), { file, maxMs, ...(ttgir ? { tmaBoxes: ttgirBoxes(ttgir, `${c.name}.ttgir`) } : {}) });
    const first = report.violations[0];
    const line = first?.trace.at(-1)?.loc?.line;
    rows.push({
      case: c.name, bug, hardware: c.hardware, verdict: report.verdict,
      kinds: [...new Set(report.violations.map((v) => v.kind))],
      expected, states: report.stats.states, seconds: (performance.now() - t0) / 1000,
      ...(line !== undefined ? { line } : {}),
      ...(first ? { message: first.message } : report.limit ? { message: report.limit.message } : {}),
    });
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    rows.push({ case: c.name, bug, hardware: c.hardware, verdict: 'refused', kinds: [], expected, states: 0, seconds: (performance.now() - t0) / 1000, message: e.message });
  }
  const r = rows.at(-1)!;
  console.log(`${r.case.padEnd(36)} hw ${r.hardware.padEnd(8)} ${r.verdict.padEnd(12)} ${r.kinds.join(',').padEnd(16)} ${r.states.toLocaleString('en-US').padStart(10)} states ${r.seconds.toFixed(1).padStart(6)} s`);
}

const agrees = (r: Row): boolean => (r.expected === 'verified' ? r.verdict === 'verified' : r.verdict === 'violation' && r.kinds.some((k) => r.expected.includes(k)));
const md = [
  '| kernel | bug | hardware (3 runs) | arefcheck | kinds | as predicted | states | s |',
  '|---|---|---|---|---|---|---:|---:|',
  ...rows.map((r) => `| ${r.case} | ${r.bug} | ${r.hardware} | ${r.verdict} | ${r.kinds.join(', ')}${r.line !== undefined ? ` (line ${r.line})` : ''} | ${r.verdict === 'not built' ? '—' : agrees(r) ? 'yes' : '**no**'} | ${r.states.toLocaleString('en-US')} | ${r.seconds.toFixed(1)} |`),
].join('\n');
const json = flag('--json');
if (json) writeFileSync(json, `${JSON.stringify(rows, null, 1)}\n`);
const out = flag('--markdown');
if (out) writeFileSync(out, `${md}\n`);
const checked = rows.filter((r) => r.verdict !== 'not built');
console.log(`\n${checked.filter(agrees).length} of ${checked.length} as predicted; ${rows.length - checked.length} not built by Triton`);
