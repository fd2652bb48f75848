// Where the explorer's time goes on one pipeline instance: runs it in a child process under
// `node --cpu-prof`, then prints the child's figures and the functions with the most self time
// (by file and name). For issue 9's design work: a figure to compare changes of the hot loop on,
// not a timed test.
//
//   node --import tsx bench/profile.ts LEVEL D P C K [--no-por] [--no-collapse] [--top N]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Level } from '../src/ir/program.ts';
import { pipelineProgram } from '../src/pipeline.ts';
import { verifyProgram } from '../src/verify.ts';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
}
interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const args = process.argv.slice(2);
const flag = (name: string): boolean => args.includes(name);
const positional = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--top');
const [level, depth, pending, consumers, iterations] = positional;
if (level !== 'aref' && level !== 'mbarrier') {
  console.error('usage: bench/profile.ts aref|mbarrier D P C K [--no-por] [--no-collapse] [--top N]');
  process.exit(2);
}
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 20;

if (process.env['AREFCHECK_PROFILE_CHILD'] === '1') {
  // the child: the run itself (twice: the second is warm, as in a long run)
  const program = pipelineProgram({ depth: Number(depth), pending: Number(pending), consumers: Number(consumers), iterations: Number(iterations), level: level as Level });
  for (const run of ['cold', 'warm']) {
    const r = verifyProgram(program, { level: level as Level, reduction: !flag('--no-por'), collapse: !flag('--no-collapse'), everyK: false });
    const s = r.stats;
    console.log(`${run}: ${r.verdict}, ${s.states} states, ${s.transitions} transitions, ${Math.round(s.ms)} ms, ${Math.round(s.statesPerSecond)} states/s, ${Math.round(s.bytesPerState)} B/state`);
  }
} else {
  const dir = mkdtempSync(join(tmpdir(), 'arefcheck-profile-'));
  try {
    const child = spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--import', 'tsx', fileURLToPath(import.meta.url), ...args], {
      env: { ...process.env, AREFCHECK_PROFILE_CHILD: '1' },
      encoding: 'utf8',
    });
    process.stdout.write(child.stdout);
    if (child.status !== 0) {
      process.stderr.write(child.stderr);
      process.exit(child.status ?? 1);
    }
    const [file] = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
    if (file === undefined) throw new Error('the child wrote no profile');
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    console.log('self time by file:');
    for (const line of selfTimes(profile, top, (_name, file) => file)) console.log(line);
    console.log('self time by function:');
    for (const line of selfTimes(profile, top, (name, file) => `${name}  ${file}`)) console.log(line);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The `top` groups (`key` of a function's name and dir/file) by self time, as `12.3 %  key`. */
function selfTimes(profile: CpuProfile, top: number, key: (name: string, file: string) => string): string[] {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const byKey = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    total += dt;
    const frame = nodes.get(id)?.callFrame;
    // V8's own entries (the garbage collector, idle, native code) have no file
    const where = frame ? key(frame.functionName || '(anonymous)', frame.url.split('/').slice(-2).join('/') || '(V8: no file)') : '(unknown)';
    byKey.set(where, (byKey.get(where) ?? 0) + dt);
  });
  return [...byKey]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([where, t]) => `${((100 * t) / total).toFixed(1).padStart(5)} %  ${where}`);
}
