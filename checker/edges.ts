// The reachable graph's edges, for the termination analysis: compressed sparse rows built while
// BFS expands states in id order (the edges of state i are targets[starts[i] .. starts[i + 1])).
// Each edge keeps the party (actor) that took it; the parties enabled in a state are exactly the
// actors of its outgoing edges, so no per-state set is stored.

import { ByteBudget, MemoryLimitError, grow } from './growable.ts';

/** The finished graph, read by the SCC and fairness passes. */
export interface EdgeGraph {
  readonly stateCount: number;
  readonly starts: Uint32Array;
  readonly targets: Int32Array;
  readonly actors: Uint8Array;
}

const MAX_EDGES = 0xffffffff; // starts are Uint32

export class EdgeRecorder {
  private count = 0;
  private next = 0; // next state id whose start is not yet recorded
  private starts: Uint32Array;
  private targets: Int32Array;
  private actors: Uint8Array;

  private readonly budget: ByteBudget;

  constructor(budget: ByteBudget) {
    this.budget = budget;
    this.starts = budget.alloc(Uint32Array, 257);
    this.targets = budget.alloc(Int32Array, 1024);
    this.actors = budget.alloc(Uint8Array, 1024);
  }

  /** Start the edge list of state `id`; ids must come in increasing order. */
  begin(id: number): void {
    if (id + 2 > this.starts.length) this.starts = grow(this.starts, id + 2, this.budget);
    while (this.next <= id) this.starts[this.next++] = this.count;
  }

  add(target: number, actor: number): void {
    const e = this.count;
    if (e >= MAX_EDGES) throw new MemoryLimitError('memory: the edge store is full (2^32 edges)');
    if (e >= this.targets.length) {
      this.targets = grow(this.targets, e + 1, this.budget);
      this.actors = grow(this.actors, e + 1, this.budget);
    }
    this.targets[e] = target;
    this.actors[e] = actor;
    this.count = e + 1;
  }

  /** Forget the edges recorded so far for state `id` (the last one begun). */
  dropEdgesOf(id: number): void {
    this.count = this.starts[id]!;
  }

  /** Close the lists of all `stateCount` states (states never expanded get none). */
  finish(stateCount: number): EdgeGraph {
    this.begin(stateCount);
    return { stateCount, starts: this.starts, targets: this.targets, actors: this.actors };
  }
}
