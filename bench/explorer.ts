// Explorer throughput on toy models (states/s, bytes/state). Importable by the project's bench
// runner (`benchExplorer`) and runnable alone: `node --import tsx bench/explorer.ts`.

import { pathToFileURL } from 'node:url';
import { check } from '../checker/index.ts';
import type { CheckOptions, Model } from '../checker/index.ts';
import { countersModel, lockModel } from '../test/checker/toys.ts';

export interface ExplorerBenchRow {
  name: string;
  states: number;
  ms: number;
  statesPerSecond: number;
  bytesPerState: number;
}

interface BenchCase {
  readonly name: string;
  readonly run: () => ReturnType<typeof check>;
  readonly expectedStates: number;
}

function bench<S, A>(name: string, model: Model<S, A>, expectedStates: number, options: CheckOptions = {}): BenchCase {
  return { name, expectedStates, run: () => check(model as Model<unknown, unknown>, options) };
}

const CASES: readonly BenchCase[] = [
  bench('counters 4^10, progress measure (no edges)', countersModel(10, 4, { progress: true }), 4 ** 10),
  bench('counters 4^10, termination off', countersModel(10, 4), 4 ** 10, { termination: false }),
  bench('counters 4^10, edges recorded + SCC pass', countersModel(10, 4), 4 ** 10),
  bench('wrapping counters 3^12, cyclic: edges + SCC + lasso', countersModel(12, 3, { wrap: true }), 3 ** 12),
  // 7r² + 8r + 1 states for r rounds (the golden count of test/checker/check.test.ts)
  bench('two-process locks, 300 rounds (object states)', lockModel(300, []), 7 * 300 ** 2 + 8 * 300 + 1),
];

export async function benchExplorer(): Promise<ExplorerBenchRow[]> {
  const rows: ExplorerBenchRow[] = [];
  for (const c of CASES) {
    const result = c.run();
    if (result.stats.states !== c.expectedStates) {
      throw new Error(`${c.name}: explored ${result.stats.states} states, expected ${c.expectedStates}`);
    }
    const { states, ms, statesPerSecond, bytesPerState } = result.stats;
    rows.push({ name: c.name, states, ms, statesPerSecond, bytesPerState });
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await benchExplorer();
  const n = (x: number) => x.toLocaleString('en-US');
  console.log(`node ${process.version}`);
  for (const r of rows) {
    console.log(`${r.name.padEnd(52)} ${n(r.states).padStart(11)} states ${n(r.ms).padStart(7)} ms ${n(r.statesPerSecond).padStart(10)} states/s ${String(r.bytesPerState).padStart(4)} B/state`);
  }
}
