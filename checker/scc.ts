// Strongly connected components of the recorded graph: Tarjan's algorithm, iterative (an explicit
// frame stack instead of recursion, so millions of states cannot overflow the call stack).

import type { EdgeGraph } from './edges.ts';
import type { ByteBudget } from './growable.ts';

/** While a component is being visited: which states belong to it. */
export interface Component {
  /** The component's states (a view, valid only during the visit). */
  readonly members: Int32Array;
  has(state: number): boolean;
}

/** Call `visit` once for every SCC, in reverse topological order (Tarjan's order). */
export function forEachScc(graph: EdgeGraph, budget: ByteBudget, visit: (component: Component) => void): void {
  const n = graph.stateCount;
  const { starts, targets } = graph;
  const order = budget.alloc(Int32Array, n); // discovery number + 1; 0 = not yet seen
  const low = budget.alloc(Int32Array, n);
  const onStack = budget.alloc(Uint8Array, n);
  const stack = budget.alloc(Int32Array, n); // Tarjan's stack: components are its top segments
  const frames = budget.alloc(Int32Array, n); // DFS frames: the state…
  const nextEdge = budget.alloc(Uint32Array, n); // …and its next edge to follow
  let counter = 0;
  let top = 0;
  let rootOrder = 0;
  let depth = 0;
  const component: { members: Int32Array; has(state: number): boolean } = {
    members: stack.subarray(0, 0),
    // On the stack and discovered after the component's root ⇔ in the component.
    has: (state) => onStack[state] === 1 && order[state]! >= rootOrder,
  };
  const push = (v: number): void => {
    order[v] = low[v] = ++counter;
    onStack[v] = 1;
    stack[top++] = v;
    frames[depth] = v;
    nextEdge[depth] = starts[v]!;
    depth++;
  };

  for (let root = 0; root < n; root++) {
    if (order[root] !== 0) continue;
    push(root);
    while (depth > 0) {
      const v = frames[depth - 1]!;
      const e = nextEdge[depth - 1]!;
      if (e < starts[v + 1]!) {
        nextEdge[depth - 1] = e + 1;
        const w = targets[e]!;
        if (order[w] === 0) push(w);
        else if (onStack[w] === 1 && order[w]! < low[v]!) low[v] = order[w]!;
        continue;
      }
      depth--;
      if (low[v] === order[v]) {
        let start = top - 1;
        while (stack[start] !== v) start--;
        rootOrder = order[v]!;
        component.members = stack.subarray(start, top);
        visit(component);
        for (let i = start; i < top; i++) onStack[stack[i]!] = 0;
        top = start;
      }
      if (depth > 0) {
        const u = frames[depth - 1]!;
        if (low[v]! < low[u]!) low[u] = low[v]!;
      }
    }
  }
  for (const a of [order, low, onStack, stack, frames, nextEdge]) budget.release(a);
}
