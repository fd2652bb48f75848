// Immediate post-dominators of a flattened function's instructions: where the two sides of a
// branch meet again. The lifter runs both sides of a branch on data it does not know (a
// `beta != 0` epilogue, a null check) up to that point and compares what they did.
import type { FlatFunction } from './flatten.ts';

/** Successors of instruction i (code.length stands for the exit). */
function successors(fn: FlatFunction, i: number): number[] {
  const ins = fn.code[i];
  const end = fn.code.length;
  if (!ins) return [end];
  const base = ins.op.base;
  if (base === 'ret' || base === 'exit' || base === 'trap') return ins.guard >= 0 ? [i + 1, end] : [end];
  if (base === 'bra') {
    const t = ins.args[ins.args.length - 1];
    const target = t?.k === 'label' ? t.ref.index : -1;
    if (target < 0) return [end];
    return ins.guard >= 0 ? [target, i + 1] : [target];
  }
  if (base === 'brx') {
    const list = ins.args.find((a) => a.k === 'targets');
    const targets = list?.k === 'targets' ? list.refs.map((r) => r.index).filter((x) => x >= 0) : [];
    return ins.guard >= 0 ? [...targets, i + 1] : targets.length > 0 ? targets : [end];
  }
  return [i + 1];
}

const cache = new WeakMap<FlatFunction, Int32Array>();

/**
 * ipdom[i]: the first instruction every path from i must pass (code.length: only the exit).
 * Cooper–Harvey–Kennedy on the reversed graph, iterated to a fixed point.
 */
export function postDominators(fn: FlatFunction): Int32Array {
  const hit = cache.get(fn);
  if (hit) return hit;
  const n = fn.code.length;
  const exit = n;
  const preds: number[][] = Array.from({ length: n + 1 }, () => []); // predecessors in the reversed graph = successors
  const succ: number[][] = [];
  for (let i = 0; i < n; i++) {
    succ.push(successors(fn, i));
    for (const s of succ[i]!) preds[s]!.push(i);
  }
  // postorder of the reversed graph from the exit (iterative DFS)
  const order: number[] = [];
  const seen = new Uint8Array(n + 1);
  const stack: { v: number; k: number }[] = [{ v: exit, k: 0 }];
  seen[exit] = 1;
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const ps = preds[top.v]!;
    if (top.k < ps.length) {
      const p = ps[top.k++]!;
      if (!seen[p]) {
        seen[p] = 1;
        stack.push({ v: p, k: 0 });
      }
    } else {
      order.push(top.v);
      stack.pop();
    }
  }
  const rank = new Int32Array(n + 1).fill(-1);
  order.forEach((v, i) => (rank[v] = i));
  const idom = new Int32Array(n + 1).fill(-1);
  idom[exit] = exit;
  const intersect = (a: number, b: number): number => {
    while (a !== b) {
      while (rank[a]! < rank[b]!) a = idom[a]!;
      while (rank[b]! < rank[a]!) b = idom[b]!;
    }
    return a;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let k = order.length - 2; k >= 0; k--) {
      const v = order[k]!;
      let d = -1;
      for (const s of succ[v] ?? []) {
        if (idom[s] === -1) continue;
        d = d === -1 ? s : intersect(s, d);
      }
      if (d !== -1 && idom[v] !== d) {
        idom[v] = d;
        changed = true;
      }
    }
  }
  // instructions that cannot reach the exit (an endless loop) have no post-dominator
  const out = idom.subarray(0, n);
  cache.set(fn, out);
  return out;
}
