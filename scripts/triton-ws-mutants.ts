// Mutants of Triton's warp-specialized kernels that only the check past the double inits can see
// (docs/gpu.md): a consumer's first release of a stage left out, or the producer's first
// arrive.expect_tx. Prints, per mutant, the PTX line to comment out (python/examples/
// triton_ws_patch.py CASE mutate LINE runs it on the GPU), the fixture's PTX hash, and what
// arefcheck says: stopping at the first violation, and in full (the second check past the double
// inits). Usage: node --import tsx scripts/triton-ws-mutants.ts [--markdown FILE]
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { verifyPtx } from '../src/api.ts';
import { SET_ASIDE } from '../src/verify/set-aside.ts';
import { dropLines, readPtx } from '../test/ptx/triton-ws-cases.ts';

export const MUTANT_CASES = ['mmws_128x128x64_s2', 'mmws_persistent_128x128x64_s3', 'attnws_full_d64_128x64_w4_s2'] as const;

/** The mutants of one kernel: name and the PTX line each leaves out. */
export function mutantLines(ptx: string): { mutant: string; line: number }[] {
  const lines = ptx.split('\n');
  const first = (re: RegExp): number => lines.findIndex((l) => re.test(l)) + 1;
  return [
    // 128 threads (a consumer warpgroup) release a stage of the ring
    { mutant: 'no-release', line: first(/mbarrier\.arrive\.shared::cta\.b64 _, \[%r\d+\], 128;/) },
    { mutant: 'no-expect-tx', line: first(/mbarrier\.arrive\.expect_tx\.shared\.b64 _, \[%r\d+\], \d+;/) },
  ].filter((m) => m.line > 0);
}

const main = (): void => {
  const out = ['| kernel | mutant | PTX line | fixture PTX sha | arefcheck, first violation | arefcheck, past the double inits | states | s |', '|---|---|---:|---|---|---|---:|---:|'];
  for (const name of MUTANT_CASES) {
    const ptx = readPtx(name);
    const sha = createHash('sha256').update(ptx).digest('hex').slice(0, 16);
    for (const { mutant, line } of mutantLines(ptx)) {
      const t = performance.now();
      const report = verifyPtx(dropLines(ptx, [line]), { file: `${name}.ptx`, maxMs: 60_000 });
      const s = ((performance.now() - t) / 1000).toFixed(1);
      const own = report.violations.filter((v) => !v.message.startsWith(SET_ASIDE)).map((v) => v.kind);
      const past = report.violations.filter((v) => v.message.startsWith(SET_ASIDE)).map((v) => v.kind);
      const note = (report.notes ?? []).find((n) => n.startsWith('with the double inits set aside'));
      const pastText = past.length > 0 ? past.join(', ') : note ? 'verified' : '(not run)';
      out.push(`| ${name} | ${mutant} | ${line} | ${sha} | ${report.verdict}: ${own.join(', ')} | ${pastText} | ${report.stats.states.toLocaleString('en-US')} | ${s} |`);
      console.log(out[out.length - 1]);
    }
  }
  const md = process.argv.indexOf('--markdown');
  if (md > 0 && process.argv[md + 1]) writeFileSync(process.argv[md + 1]!, `${out.join('\n')}\n`);
};

if (import.meta.url === `file://${process.argv[1]}`) main();
