// Ctrl-C during a long check: the explorer is one synchronous loop, so a SIGINT handler on its
// thread would never run. On a terminal the check runs in a worker thread instead; the main thread
// catches SIGINT and sets a shared flag the explorer polls every few milliseconds, and the run
// ends as pan's does: the figures reached and an inconclusive report (exit 3). A second Ctrl-C
// ends the process at once. Pipes and CI keep the plain in-thread check (no worker start-up cost).
import { Worker } from 'node:worker_threads';
import { createProgressReporter, type ProgressInfo } from '../../checker/index.ts';
import { InputError } from '../diag.ts';
import type { Loc, Program } from '../ir/program.ts';
import type { Report } from '../verify.ts';
import { finalFigures, runOptions, type VerificationRun } from './check-run.ts';

/** On a terminal (or when a test asks for it): where a user can press Ctrl-C. */
export function interruptible(): boolean {
  return process.stdin.isTTY === true || process.env['AREFCHECK_INTERRUPTIBLE'] === '1';
}

/** What the worker is given. */
export interface WorkerJob {
  readonly program: Program;
  readonly run: VerificationRun;
  readonly options: ReturnType<typeof runOptions>;
  /** Int32Array over it: [0] = 1 once the user pressed Ctrl-C */
  readonly flag: SharedArrayBuffer;
}

/** What the worker sends back. */
export type WorkerMessage =
  | { readonly type: 'progress'; readonly info: ProgressInfo }
  | { readonly type: 'report'; readonly report: Report }
  | { readonly type: 'error'; readonly input: boolean; readonly message: string; readonly loc?: Loc; readonly stack?: string };

/** The worker's module, loaded through tsx when arefcheck runs from its TypeScript sources. */
function workerScript(): { code: string; eval: boolean } | URL {
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = new URL(fromSource ? './verify-worker.ts' : './verify-worker.js', import.meta.url);
  if (!fromSource) return entry;
  const tsx = import.meta.resolve('tsx/esm/api');
  return { eval: true, code: `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); })` };
}

export function checkInWorker(program: Program, run: VerificationRun): Promise<Report> {
  const flag = new SharedArrayBuffer(4);
  const stop = new Int32Array(flag);
  const progress = createProgressReporter(process.stderr);
  const script = workerScript();
  const job: WorkerJob = { program, run, options: runOptions(run), flag };
  const worker = script instanceof URL ? new Worker(script, { workerData: job }) : new Worker(script.code, { eval: true, workerData: job });
  let pressed = false;
  const onSigint = (): void => {
    if (pressed) process.exit(130); // the second Ctrl-C: stop now
    pressed = true;
    Atomics.store(stop, 0, 1);
  };
  process.on('SIGINT', onSigint);
  return new Promise<Report>((resolve, reject) => {
    const done = (): void => {
      process.off('SIGINT', onSigint);
      void worker.terminate();
    };
    worker.on('message', (m: WorkerMessage) => {
      if (m.type === 'progress') progress.onProgress(m.info);
      else if (m.type === 'report') {
        progress.finish(finalFigures(m.report));
        done();
        resolve(m.report);
      } else {
        progress.finish();
        done();
        if (m.input) reject(new InputError(m.message, m.loc));
        else {
          const err = new Error(m.message);
          if (m.stack !== undefined) err.stack = m.stack;
          reject(err);
        }
      }
    });
    worker.on('error', (err) => {
      progress.finish();
      done();
      reject(err);
    });
  });
}
