// Which operands come from a launch value the user did not give. The concrete run computes with
// default launch values; a number that only means something for the real launch (CUTLASS keeps
// its expect_tx byte count, `tma_transaction_bytes`, in the kernel's Params) must not be checked
// as if the default were the truth. A backward slice over the function's registers answers it:
// every definition of a register is followed (so a loop-carried register is covered), and a
// slice that reaches `ld.param` of a parameter or field the user did not fix is launch-derived.
import type { Arg, FlatFunction, FlatInstr } from './flatten.ts';

/** Opcodes whose first operand is a register they compute from the other operands. */
const VALUE_OPS = new Set([
  'mov', 'cvt', 'cvta', 'add', 'sub', 'mul', 'mad', 'shl', 'shr', 'and', 'or', 'xor', 'not', 'neg', 'abs',
  'selp', 'min', 'max', 'div', 'rem', 'ld', 'bfe', 'bfi', 'prmt', 'mul24', 'mad24', 'slct', 'ldu',
]);

interface Defs {
  readonly bySlot: ReadonlyMap<number, readonly FlatInstr[]>;
}

const cache = new WeakMap<FlatFunction, Defs>();

function defsOf(fn: FlatFunction): Defs {
  const hit = cache.get(fn);
  if (hit) return hit;
  const bySlot = new Map<number, FlatInstr[]>();
  for (const ins of fn.code) {
    const d = ins.args[0];
    if (!VALUE_OPS.has(ins.op.base) || d?.k !== 'reg') continue;
    const list = bySlot.get(d.slot) ?? [];
    list.push(ins);
    bySlot.set(d.slot, list);
  }
  const defs = { bySlot };
  cache.set(fn, defs);
  return defs;
}

/** Registers an operand reads (an address's base included). */
function regsOf(a: Arg | undefined, out: number[]): void {
  if (!a) return;
  if (a.k === 'reg' || a.k === 'not') out.push(a.slot);
  else if (a.k === 'mem' && a.base) regsOf(a.base, out);
  else if (a.k === 'vec' || a.k === 'list') for (const x of a.items) regsOf(x, out);
}

/**
 * `NAME+OFFSET` of an ld.param address: a frame operand, or a register holding one (mov %rd, NAME).
 * `null`: a parameter that is not the launch's (a call-site `.param`, a `.func`'s own).
 */
function paramKey(fn: FlatFunction, a: Arg | undefined, defs: Defs): string | null | undefined {
  if (fn.fn.kind !== 'entry') return null;
  if (a?.k !== 'mem') return undefined;
  const base = a.base;
  let name: string | undefined;
  let offset = a.offset;
  if (base?.k === 'frame') {
    name = base.name;
    offset += base.offset;
  } else if (base?.k === 'reg') {
    const ds = defs.bySlot.get(base.slot) ?? [];
    const only = ds.length === 1 ? ds[0] : undefined;
    const src = only?.op.base === 'mov' || only?.op.base === 'cvta' ? only.args[1] : undefined;
    if (src?.k === 'frame') {
      name = src.name;
      offset += src.offset;
    }
  }
  if (name === undefined) return undefined;
  const p = fn.fn.params.find((x) => x.name === name);
  if (!p) return null;
  return p.elements === undefined && offset === 0n ? p.name : `${p.name}+${offset}`;
}

/** Per operand, the parameter loads its slice reaches, in the order met (the slice is static). */
const slices = new WeakMap<Arg, readonly string[]>();

/** `'a launch value'` ends the list: a load whose address the slice cannot resolve. */
function sliceKeys(fn: FlatFunction, a: Arg): readonly string[] {
  const hit = slices.get(a);
  if (hit) return hit;
  const defs = defsOf(fn);
  const keys: string[] = [];
  const work: number[] = [];
  regsOf(a, work);
  const seen = new Set<number>();
  walk: while (work.length > 0) {
    const slot = work.pop() ?? -1;
    if (seen.has(slot)) continue;
    seen.add(slot);
    if (seen.size > 256) break;
    for (const ins of defs.bySlot.get(slot) ?? []) {
      if ((ins.op.base === 'ld' || ins.op.base === 'ldu') && ins.op.mods.has('param')) {
        const key = paramKey(fn, ins.args[1], defs);
        if (key === undefined) {
          keys.push('a launch value');
          break walk;
        }
        if (key !== null) keys.push(key);
        continue;
      }
      for (const x of ins.args.slice(1)) regsOf(x, work);
    }
  }
  slices.set(a, keys);
  return keys;
}

/**
 * The launch value an operand derives from, when one it may derive from was not given by the
 * user (`given(key)` false): its key (`params+640`, `K`), or `'a launch value'` when the slice
 * reaches a parameter load whose address it cannot resolve. Undefined: not launch-derived.
 * The slice is computed once per operand: a loop's expect_tx runs it every iteration.
 */
export function launchSource(fn: FlatFunction, a: Arg | undefined, given: (key: string) => boolean): string | undefined {
  if (!a) return undefined;
  return sliceKeys(fn, a).find((key) => key === 'a launch value' || !given(key));
}
