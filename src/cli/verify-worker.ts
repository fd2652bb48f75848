// The worker side of interruptible.ts: runs one check, posting progress and the report; the
// explorer polls the shared Ctrl-C flag.
import { parentPort, workerData } from 'node:worker_threads';
import { isInputError } from '../diag.ts';
import type { WorkerJob, WorkerMessage } from './interruptible.ts';
import { checkRun } from './check-run.ts';

const job = workerData as WorkerJob;
const stop = new Int32Array(job.flag);
const post = (m: WorkerMessage): void => parentPort?.postMessage(m);
try {
  const report = checkRun(job.program, job.run, {
    ...job.options,
    onProgress: (info) => post({ type: 'progress', info }),
    interrupted: () => Atomics.load(stop, 0) === 1,
  });
  post({ type: 'report', report });
} catch (err) {
  if (isInputError(err)) post({ type: 'error', input: true, message: err.message, ...(err.loc ? { loc: err.loc } : {}) });
  else post({ type: 'error', input: false, message: (err as Error).message, ...((err as Error).stack ? { stack: (err as Error).stack } : {}) });
}
