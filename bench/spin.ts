// SPIN on the Tawa pipeline family: the peer models (test/spin/models/aref.pml at the aref level,
// aref_mbar.pml at the mbarrier level, copies of ../shared/peers/spin) compiled per instance and
// run exhaustively. Used by the SPIN cross-check (test/spin/spin.test.ts) and the benchmark
// (bench/run.ts). For each instance:
//
//   spin -a -DD=.. -DK=.. -DP=.. -DC=.. MODEL.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan -m100000
//
// in a directory of its own; the verdict is read from pan's "errors: N" line and the reason of its
// first error ("invalid end state" = deadlock, "assertion violated" = a safety property).
import { execFile, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Level } from '../src/ir/program.ts';
import { readPanOutput, type PanReport } from '../src/promela/pan-output.ts';

export const SPIN_MODELS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'spin', 'models');

/** The model file of each level. */
export const SPIN_MODEL: Readonly<Record<Level, string>> = { aref: 'aref.pml', mbarrier: 'aref_mbar.pml' };

export interface SpinInstance {
  readonly level: Level;
  readonly depth: number;
  readonly pending: number;
  readonly consumers: number;
  readonly iterations: number;
  /** Partial-order reduction in pan (default on); false compiles with -DNOREDUCE. */
  readonly reduction?: boolean;
}

export type SpinVerdict = 'verified' | 'deadlock' | 'safety';

export interface SpinResult {
  readonly verdict: SpinVerdict;
  readonly errors: number;
  /** pan's first error line, e.g. `pan:1: invalid end state (at depth 17)`; absent when none. */
  readonly reason?: string;
  readonly states: number;
  readonly transitions: number;
  /** State vector size in bytes, as pan reports it. */
  readonly stateVectorBytes: number;
  /** Bytes pan stores per state ("state-vector as stored = N byte + M byte overhead"), when it says. */
  readonly storedBytesPerState?: number;
  /** pan's "total actual memory usage" in bytes (its hash table, states and stack), when it says. */
  readonly totalBytes?: number;
  /** pan's own figure ("pan: elapsed time"), seconds. */
  readonly panSeconds: number;
  /** Wall time of ./pan as a child process, ms (includes process start and its hash-table allocation). */
  readonly runMs: number;
  /** Wall time of spin -a plus gcc, ms (0 when the binary came from the cache). */
  readonly compileMs: number;
  readonly output: string;
}

/** Which of the tools the cross-check needs are on PATH. */
export function spinTools(): { spin: boolean; gcc: boolean } {
  const has = (cmd: string, arg: string): boolean => spawnSync(cmd, [arg], { stdio: 'ignore' }).error === undefined;
  return { spin: has('spin', '-V'), gcc: has('gcc', '--version') };
}

interface ExecOutcome {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number;
  readonly ms: number;
  /** killed at the time limit */
  readonly timedOut?: boolean;
}

function run(cmd: string, args: readonly string[], cwd: string, timeoutMs = 0): Promise<ExecOutcome> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd, maxBuffer: 64 * 2 ** 20, timeout: timeoutMs }, (err, stdout, stderr) => {
      const ms = performance.now() - t0;
      if (err?.killed && timeoutMs > 0) return resolve({ stdout, stderr, code: -1, ms, timedOut: true });
      if (err && typeof err.code !== 'number') return reject(new Error(`${cmd}: ${err.message}`));
      resolve({ stdout, stderr, code: err ? Number(err.code) : 0, ms });
    });
  });
}

/** Parse pan's report. Throws when the search was cut short (depth limit) or the output is unknown. */
export function parsePanOutput(output: string): Omit<SpinResult, 'runMs' | 'compileMs' | 'output'> {
  if (/max search depth too small/.test(output)) throw new Error('pan: max search depth too small (raise -m)');
  const num = (re: RegExp, what: string): number => {
    const m = re.exec(output);
    if (!m?.[1]) throw new Error(`pan: no ${what} in its output:\n${output}`);
    return Number(m[1]);
  };
  const errors = num(/errors: (\d+)/, '"errors: N"');
  const states = num(/(\d+) states, stored/, '"N states, stored"');
  const transitions = num(/(\d+) transitions \(= stored\+matched\)/, '"N transitions"');
  const stateVectorBytes = num(/State-vector (\d+) byte/, 'state vector size');
  const elapsed = /pan: elapsed time ([\d.e+-]+) seconds/.exec(output);
  const panSeconds = elapsed?.[1] ? Number(elapsed[1]) : 0;
  const reason = /^pan:\d+: (.*)$/m.exec(output)?.[1];
  const stored = /state-vector as stored = (\d+) byte \+ (\d+) byte overhead/.exec(output);
  const storedBytesPerState = stored?.[1] && stored[2] ? Number(stored[1]) + Number(stored[2]) : undefined;
  const total = /([\d.]+)\s+total actual memory usage/.exec(output);
  const totalBytes = total?.[1] ? Math.round(Number(total[1]) * 2 ** 20) : undefined;
  let verdict: SpinVerdict = 'verified';
  if (errors > 0) {
    if (reason?.startsWith('invalid end state')) verdict = 'deadlock';
    else if (reason?.startsWith('assertion violated')) verdict = 'safety';
    else throw new Error(`pan: ${errors} error(s) of an unknown kind:\n${output}`);
  }
  return { verdict, errors, ...(reason !== undefined ? { reason } : {}), states, transitions, stateVectorBytes, ...(storedBytesPerState !== undefined ? { storedBytesPerState } : {}), ...(totalBytes !== undefined ? { totalBytes } : {}), panSeconds };
}

/**
 * Runs SPIN instances with at most `concurrency` child-process pipelines at a time; a compiled
 * pan is kept per (model, parameters) for the life of the runner, in `workDir`.
 */
export class SpinRunner {
  private readonly workDir: string;
  private readonly concurrency: number;
  private readonly compiled = new Map<string, Promise<{ dir: string; ms: number }>>();
  private active = 0;
  private readonly queue: (() => void)[] = [];

  constructor(workDir: string, concurrency = 2) {
    this.workDir = workDir;
    this.concurrency = Math.max(1, concurrency);
  }

  /** Verify one instance (compiling its pan first unless this runner already did); with a time limit, 'timeout' when pan runs past it. */
  async verify(inst: SpinInstance): Promise<SpinResult>;
  async verify(inst: SpinInstance, timeoutMs: number): Promise<SpinResult | 'timeout'>;
  async verify(inst: SpinInstance, timeoutMs = 0): Promise<SpinResult | 'timeout'> {
    return this.limited(async () => {
      const key = instanceKey(inst);
      let build = this.compiled.get(key);
      const fresh = build === undefined;
      if (!build) {
        build = this.compile(inst, key);
        this.compiled.set(key, build);
      }
      const { dir, ms } = await build;
      const pan = await run('./pan', ['-m100000'], dir, timeoutMs);
      if (pan.timedOut) return 'timeout';
      const output = pan.stdout + pan.stderr;
      return { ...parsePanOutput(output), runMs: pan.ms, compileMs: fresh ? ms : 0, output };
    });
  }

  /**
   * Check a model that `arefcheck export --promela` wrote (src/promela): compiled in a directory of
   * its own (`key`), run exhaustively with -E (its monitor reports deadlocks) and -c0 (every class).
   */
  async verifyExported(key: string, text: string, vectorBytes: number): Promise<PanReport & { readonly output: string }> {
    return this.limited(async () => {
      const dir = join(this.workDir, key);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'model.pml'), text);
      const spin = await run('spin', ['-a', 'model.pml'], dir);
      if (spin.code !== 0) throw new Error(`spin -a failed on the export of ${key}:\n${spin.stdout}${spin.stderr}`);
      const gcc = await run('gcc', ['-O1', '-DSAFETY', '-DMEMLIM=4096', `-DVECTORSZ=${vectorBytes}`, '-o', 'pan', 'pan.c'], dir);
      if (gcc.code !== 0) throw new Error(`gcc pan.c failed for ${key}:\n${gcc.stderr}`);
      const pan = await run('./pan', ['-E', '-c0', '-m1000000'], dir);
      const output = pan.stdout + pan.stderr;
      return { ...readPanOutput(output), output };
    });
  }

  private async compile(inst: SpinInstance, key: string): Promise<{ dir: string; ms: number }> {
    const dir = join(this.workDir, key);
    mkdirSync(dir, { recursive: true });
    const model = SPIN_MODEL[inst.level];
    copyFileSync(join(SPIN_MODELS_DIR, model), join(dir, model));
    const defines = [`-DD=${inst.depth}`, `-DK=${inst.iterations}`, `-DP=${inst.pending}`, `-DC=${inst.consumers}`];
    const spin = await run('spin', ['-a', ...defines, model], dir);
    if (spin.code !== 0) throw new Error(`spin -a ${defines.join(' ')} ${model} failed:\n${spin.stdout}${spin.stderr}`);
    const gcc = await run('gcc', ['-O2', '-DSAFETY', ...(inst.reduction === false ? ['-DNOREDUCE'] : []), '-o', 'pan', 'pan.c'], dir);
    if (gcc.code !== 0) throw new Error(`gcc pan.c failed for ${key}:\n${gcc.stderr}`);
    return { dir, ms: spin.ms + gcc.ms };
  }

  private async limited<T>(job: () => Promise<T>): Promise<T> {
    // a finishing job hands its slot straight to the next one waiting
    if (this.active >= this.concurrency) await new Promise<void>((resolve) => this.queue.push(resolve));
    else this.active++;
    try {
      return await job();
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.active--;
    }
  }
}

export function instanceKey(inst: SpinInstance): string {
  return `${SPIN_MODEL[inst.level].replace('.pml', '')}-D${inst.depth}-P${inst.pending}-C${inst.consumers}-K${inst.iterations}${inst.reduction === false ? '-noreduce' : ''}`;
}
