// Check every kernel python/examples/triton_ws_suite.py ran on the GPU, and each warp-specialized
// one again with its dead barrier inits dropped (the edit triton_ws_patch.py ran), and print the
// table of docs/gpu.md next to what the hardware did.
// Run: node --import tsx scripts/triton-ws-table.ts [--max-ms N] [--markdown OUT]
import { writeFileSync } from 'node:fs';
import { verifyPtx } from '../src/api.ts';
import { deadInitLines, dropLines, patchRuns, readPtx, tritonCases } from '../test/ptx/triton-ws-cases.ts';
import { flagOf } from './flags.ts';

const args = process.argv.slice(2);
const maxMs = Number(flagOf(args, '--max-ms') ?? 120_000);
const markdown = flagOf(args, '--markdown');

function check(ptx: string, file: string): string {
  const t0 = Date.now();
  const r = verifyPtx(ptx, { file, maxMs });
  const s = ((Date.now() - t0) / 1000).toFixed(1);
  const v = r.violations[0];
  const kinds = [...new Set(r.violations.map((x) => x.kind))].join(', ');
  const line = v?.trace.at(-1)?.loc?.line;
  const what = v ? `${kinds} (line ${line}): ${v.message.replace(/\|/g, '\\|').slice(0, 90)}` : '';
  return `${r.verdict} | ${what} | ${r.stats.states.toLocaleString('en-US')} | ${s}`;
}

const patched = patchRuns();
const out = [
  '| kernel | warp-specialized | hardware (3 runs) | arefcheck | first violation | states | s | dead inits dropped: arefcheck | | states | s | hardware |',
  '|---|---|---|---|---|---:|---:|---|---|---:|---:|---|',
];
for (const c of tritonCases()) {
  const ptx = readPtx(c.name);
  const dead = deadInitLines(ptx);
  const edited = dead.length > 0 ? check(dropLines(ptx, dead), `${c.name}.ptx`) : ' | | | ';
  const hw = patched.get(c.name)?.get('drop');
  const hwDrop = hw ? (hw.every((x) => x === 'right') ? 'right' : 'corrupt') : dead.length > 0 ? 'not run' : '';
  out.push(`| ${c.name} | ${c.specialized ? 'yes' : 'no'} | ${c.hardware} | ${check(ptx, `${c.name}.ptx`)} | ${edited} | ${hwDrop} |`);
  console.error(out.at(-1));
}
const text = `${out.join('\n')}\n`;
if (markdown) writeFileSync(markdown, text);
else process.stdout.write(text);
