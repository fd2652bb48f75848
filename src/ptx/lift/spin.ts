// A spin on a flag in global memory that another CTA sets (CUTLASS stream-K's `wait_eq`: thread 0
// loops on `ld.acquire.gpu` until the flag has a value, then a named barrier releases the rest).
// The CTA that writes the flag is outside the modelled cluster, so the lifter cannot decide when
// the loop ends: it takes the loop's exit, once, and the report says so (an assumption, never a
// checked fact). Only a loop that does nothing but read and compare may be taken this way: one
// that stores, synchronizes or calls is a loop on data, handled (or refused) as any other.
import type { FlatFunction, FlatInstr } from './flatten.ts';
import { isExecInstr } from './exec.ts';

/** Opcodes with an effect other than a register write: a loop containing one is not a pure spin. */
const EFFECTS = new Set(['st', 'atom', 'red', 'stmatrix', 'tensormap', 'discard', 'applypriority', 'prefetch', 'prefetchu', 'pmevent']);

function pure(ins: FlatInstr): boolean {
  return isExecInstr(ins.op) && !EFFECTS.has(ins.op.base);
}

function labelOf(ins: FlatInstr): number {
  const t = ins.args[ins.args.length - 1];
  return t && t.k === 'label' ? t.ref.index : -1;
}

/**
 * Where a spin loop exits, when the conditional branch at `pc` is its exit test and the flag
 * loaded at line `flagLine` is read inside it; undefined when this is not such a loop.
 * Two shapes: `L: ld; setp; @p bra L` (a backward branch: the exit is the next instruction) and
 * `L: ld; setp; @p bra OUT; bra L` (a forward branch past the loop's closing jump).
 */
export function spinExit(fn: FlatFunction, pc: number, flagLine: number): number | undefined {
  const code = fn.code;
  const at = code[pc];
  if (!at || at.op.base !== 'bra') return undefined;
  const target = labelOf(at);
  if (target < 0) return undefined;
  let head: number;
  let back: number;
  let exit: number;
  if (target <= pc) {
    head = target;
    back = pc;
    exit = pc + 1;
  } else {
    const close = code[pc + 1];
    if (!close || close.op.base !== 'bra' || close.guard >= 0) return undefined;
    head = labelOf(close);
    back = pc + 1;
    exit = target;
    if (head < 0 || head > pc) return undefined;
  }
  let reads = false;
  for (let i = head; i < back; i++) {
    const ins = code[i];
    if (!ins || i === pc) continue;
    if (!pure(ins)) return undefined;
    if (ins.op.base === 'ld' && ins.loc.line === flagLine) reads = true;
  }
  return reads ? exit : undefined;
}
