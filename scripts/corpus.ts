// Lift and verify every kernel of the real-kernel corpus: ../shared/corpus (nvcc output of public
// repositories, read in place) and, when AREFCHECK_CORPUS names a folder, the .ptx files there
// (a git-ignored cache the developer fills; third-party PTX never enters this repository).
// Prints one row per kernel: lines, roles, states, seconds, verdict (or the refusal).
// Run: node --import tsx scripts/corpus.ts [--max-ms N] [--filter SUBSTRING] [--json OUT] [--markdown OUT]
// (--markdown writes the table docs/ptx.md shows: kernel, lines, states, seconds, verdict;
// --from-json IN renders the table of an earlier --json run without checking again)
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../src/diag.ts';
import { parseDims } from '../src/ptx/lift/launch.ts';
import { kernelsOf } from '../src/ptx/lift/lift.ts';
import { liftLaunchPoints } from '../src/ptx/lift/sweep.ts';
import { parsePtx } from '../src/ptx/parse/parser.ts';
import { verifyProgram } from '../src/verify.ts';
import { idleCtaNote, idleNote, shallowNote } from '../src/verify/ptx.ts';
import { flagOf } from './flags.ts';

interface Row {
  file: string;
  kernel: string;
  lines: number;
  liftMs: number;
  roles?: string;
  points?: string[];
  states?: number;
  verifyMs?: number;
  verdict: string;
  detail: string;
  /** launch values given from NAME.launch */
  given?: string;
}

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => flagOf(args, name);
const maxMs = Number(flag('--max-ms') ?? 60_000);
const filter = flag('--filter');
const dirs = [join(import.meta.dirname, '..', '..', 'shared', 'corpus'), process.env['AREFCHECK_CORPUS']].filter((d): d is string => d !== undefined && existsSync(d));
const fromJson = flag('--from-json');
const rows: Row[] = fromJson ? (JSON.parse(readFileSync(fromJson, 'utf8')) as Row[]) : [];
for (const dir of fromJson ? [] : dirs) {
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.ptx')).sort()) {
    if (filter && !f.includes(filter)) continue;
    const path = join(dir, f);
    const text = readFileSync(path, 'utf8');
    const module = parsePtx(text, f);
    // kernels that synchronize through mbarriers (a corpus file also holds fill / reference kernels)
    // kernels with no mbarrier at all (fill, reference GEMM, cub's EmptyKernel) are not pipelines
    for (const k of kernelsOf(module).filter(usesMbarriers)) {
      const t0 = performance.now();
      const row: Row = { file: f, kernel: k.name, lines: text.split('\n').length, liftMs: 0, verdict: '', detail: '' };
      try {
        // a kernel without .reqntid gets its block size from NAME.block next to the PTX (build-corpus.sh writes it)
        const blockFile = path.replace(/\.ptx$/, '.block');
        const block = existsSync(blockFile) ? Number(readFileSync(blockFile, 'utf8').trim()) : undefined;
        const launch = launchFile(path.replace(/\.ptx$/, '.launch'), k.name);
        if (launch.given !== undefined) row.given = launch.given;
        const points = liftLaunchPoints(module, { kernel: k.name, ...(block ? { block } : {}), ...launch.options }, !args.includes('--no-sweep'));
        row.liftMs = performance.now() - t0;
        const last = points[points.length - 1];
        row.roles = last?.program.roles.map((r) => `${r.name}×${r.warps}`).join(' ') ?? '';
        row.points = points.map((p) => p.label);
        const t1 = performance.now();
        const reports = points.map((p) => ({ p, r: verifyProgram(p.program, { maxMs }) }));
        row.verifyMs = performance.now() - t1;
        row.states = reports.reduce((a, x) => a + x.r.stats.states, 0);
        const worst = reports.find((x) => x.r.verdict === 'violation') ?? reports.find((x) => x.r.verdict === 'inconclusive') ?? reports[reports.length - 1];
        row.verdict = worst?.r.verdict ?? 'none';
        const r = worst?.r;
        const facts = worst?.p.facts;
        row.detail = [
          r?.violations[0] ? `${r.violations[0].kind}: ${r.violations[0].message}` : (r?.limit?.message ?? ''),
          worst && points.length > 1 ? `at ${worst.p.label}` : '',
          facts?.stuck ? `hung at ${facts.stuck}` : '',
          // a kernel that did no tile at any launch point was checked in its prologue only
          idleNote(points, k) !== undefined ? 'prologue only: no CTA had a tile at these launch values' : '',
          // no barrier waited at both parities: no ring wrapped (verify/ptx.ts shallowNote)
          row.verdict !== 'violation' && shallowNote(points, k) !== undefined ? 'no ring wrapped: no barrier waited at both parities' : '',
          // a CTA of the cluster without a tile at the worst point: launch values a host that rounds tiles to the cluster never makes
          (worst && idleCtaNote(worst.p)?.replace(/ — give the tile count.*$/, '')) ?? '',
        ].filter(Boolean).join(' | ');
      } catch (e) {
        row.liftMs = performance.now() - t0;
        if (!(e instanceof InputError)) throw e;
        row.verdict = 'refused';
        row.detail = e.message.split('\n')[0] ?? '';
      }
      rows.push(row);
      const short = k.name.length > 40 ? `${k.name.slice(0, 37)}...` : k.name;
      console.log(`${f.padEnd(44)} ${short.padEnd(40)} ${String(row.lines).padStart(6)} ${(row.liftMs / 1000).toFixed(1).padStart(6)}s ${String(row.states ?? '-').padStart(9)} ${((row.verifyMs ?? 0) / 1000).toFixed(1).padStart(6)}s ${row.verdict.padEnd(12)} ${row.detail.slice(0, 200)}`);
    }
  }
}
/**
 * NAME.launch next to the PTX (build-corpus.sh writes it): the launch values a kernel needs to have
 * any work at all, one `--param KEY=V` or `--cluster X,Y,Z` per line, as a user would give them
 * (CUTLASS's grouped and blockwise-scaled kernels read their tile counts from scheduler fields
 * that default to 0). A `--kernel REGEX` line makes the lines after it, up to the next one, apply
 * only to the kernels whose name matches (one file's kernels may differ in tile and cluster shape).
 */
function launchFile(file: string, kernel: string): { options: { params?: Map<string, string>; cluster?: [number, number, number] }; given?: string } {
  if (!existsSync(file)) return { options: {} };
  const lines = readFileSync(file, 'utf8').split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  const params = new Map<string, string>();
  let cluster: [number, number, number] | undefined;
  let applies = true;
  const used: string[] = [];
  for (const l of lines) {
    const m = /^--(param|cluster|kernel) (\S+)$/.exec(l);
    if (!m?.[2]) throw new Error(`${file}: expected '--param KEY=V', '--cluster X,Y,Z' or '--kernel REGEX', got '${l}'`);
    if (m[1] === 'kernel') {
      applies = new RegExp(m[2]).test(kernel);
      continue;
    }
    if (!applies) continue;
    used.push(l);
    if (m[1] === 'cluster') cluster = parseDims('cluster', m[2]);
    else params.set(m[2].slice(0, m[2].lastIndexOf('=')), m[2].slice(m[2].lastIndexOf('=') + 1));
  }
  return { options: { ...(params.size > 0 ? { params } : {}), ...(cluster ? { cluster } : {}) }, ...(used.length > 0 ? { given: used.join(' ') } : {}) };
}

/** Whether a kernel has an mbarrier instruction anywhere in its body (nested blocks included). */
function usesMbarriers(f: { readonly body?: readonly unknown[] }): boolean {
  const seen = (x: unknown): boolean =>
    Array.isArray(x) ? x.some(seen) : typeof x === 'object' && x !== null && (('opcode' in x && String(x.opcode).startsWith('mbarrier')) || Object.values(x).some((v) => typeof v === 'object' && seen(v)));
  return seen(f.body ?? []);
}

const out = flag('--json');
if (out) writeFileSync(out, `${JSON.stringify(rows, null, 1)}\n`);
const md = flag('--markdown');
if (md) writeFileSync(md, markdownTable(rows));

/** A short readable name for a mangled kernel: the CUTLASS schedule, fast.cu's Mn, or the start. */
function shortName(kernel: string): string {
  const schedule = /Kernel(?:PtrArray)?TmaWarpSpecialized(Cooperative|Pingpong)?/.exec(kernel);
  if (schedule) return schedule[0];
  const fast = /^_ZN\d+(M\d+)\d{2}matmulKernel/.exec(kernel);
  if (fast?.[1]) return fast[1];
  return kernel.length > 32 ? `${kernel.slice(0, 29)}…` : kernel;
}

function markdownTable(all: readonly Row[]): string {
  const lines = [
    `Made by \`AREFCHECK_CORPUS=.corpus node --import tsx scripts/corpus.ts --max-ms ${maxMs} --markdown FILE\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC (Node ${process.version}).`,
    '',
    '| file | kernel | PTX lines | launch points | states | s | verdict | detail |',
    '|---|---|---:|---|---:|---:|---|---|',
  ];
  for (const r of all) {
    const detail = r.detail.replace(/\|/g, '\\|').replace(/\n/g, ' ').slice(0, 240);
    const points = `${r.given ? `given ${r.given.replace(/--param /g, '').replace(/--cluster /g, 'cluster ')}: ` : ''}${(r.points ?? []).join('; ')}`.replace(/\|/g, '\\|');
    lines.push(`| ${r.file.replace(/\.ptx$/, '')} | ${shortName(r.kernel)} | ${r.lines.toLocaleString('en-US')} | ${points} | ${r.states?.toLocaleString('en-US') ?? '–'} | ${(((r.verifyMs ?? 0) + r.liftMs) / 1000).toFixed(1)} | ${r.verdict} | ${detail} |`);
  }
  return `${lines.join('\n')}\n`;
}
