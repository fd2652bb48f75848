// TMA box sizes from the compiler (issue 8): Triton's TTGIR names each tensor descriptor's block
// shape in the kernel's signature (`%a_desc: !tt.tensordesc<tensor<128x64xf16, #shared>>`), and its
// arguments are the PTX parameters in order (`NAME_param_0`, …), so a descriptor argument at
// position i is the tensor map `NAME_param_i+0`. Its box is the block shape as Triton's TMA
// lowering cuts it: every dimension at most 256, and under an NVMMA swizzle of S bytes the
// contiguous one S bytes wide; a wider block is loaded or stored as several copies of that box
// (a 128×128 f16 tile under a 128-byte swizzle: two copies of 128×64, issued by two warps).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../../diag.ts';

const ELEMENT_BYTES: Readonly<Record<string, number>> = {
  f64: 8, i64: 8, f32: 4, i32: 4, tf32: 4, f16: 2, bf16: 2, i16: 2, i8: 1, i1: 1,
};

function elementBytes(type: string): number | undefined {
  if (type in ELEMENT_BYTES) return ELEMENT_BYTES[type];
  if (/^f8/i.test(type)) return 1; // f8E4M3FN, f8E5M2, …
  return undefined;
}

/** An NVMMA shared encoding's swizzle: its width in bytes (0: none) and which dimension is contiguous. */
interface Swizzle {
  readonly bytes: number;
  readonly transposed: boolean;
}

/** `#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, …}>`; undefined for any other encoding. */
function swizzleOf(encoding: string): Swizzle | undefined {
  if (!/#ttg\.nvmma_shared</.test(encoding)) return undefined;
  const width = /swizzlingByteWidth\s*=\s*(\d+)/.exec(encoding);
  return { bytes: Number(width?.[1] ?? 0), transposed: /transposed\s*=\s*true/.test(encoding) };
}

/** The TMA box of a block of `dims` elements of `bytes` each (the head of this file). */
function boxBytes(dims: readonly number[], bytes: number, swizzle: Swizzle | undefined): number {
  const box = dims.map((n) => Math.min(n, 256));
  if (swizzle && swizzle.bytes > 0) {
    const contiguous = swizzle.transposed ? 0 : box.length - 1;
    box[contiguous] = Math.min(box[contiguous] ?? 1, Math.max(1, Math.floor(swizzle.bytes / bytes)));
  }
  return box.reduce((a, n) => a * n, bytes);
}

/** The box bytes of each tensor-descriptor argument of the TTGIR's kernels, keyed `NAME_param_i+0`. */
export function ttgirBoxes(text: string, file: string): Map<string, number> {
  const boxes = new Map<string, number>();
  // the module's encoding aliases: `#shared = #ttg.nvmma_shared<{…}>`
  const aliases = new Map<string, string>();
  for (const a of text.matchAll(/^(#[\w.]+)\s*=\s*(#ttg\.\w+<\{[^}]*\}>)/gm)) aliases.set(a[1] ?? '', a[2] ?? '');
  for (const f of text.matchAll(/tt\.func public @([\w$]+)\(([^\n]*)\)/g)) {
    const name = f[1] ?? '';
    // arguments are `%x: TYPE loc(...)`, separated by commas outside brackets
    const args = (f[2] ?? '').split(/,\s*(?=%)/);
    args.forEach((arg, i) => {
      const d = /!tt\.tensordesc<tensor<([0-9x]+)x([A-Za-z0-9]+)(?:,\s*(#[\w.]+(?:<\{[^}]*\}>)?))?[,>]/.exec(arg);
      if (!d) return;
      const dims = (d[1] ?? '').split('x').map(Number);
      const bytes = elementBytes(d[2] ?? '');
      if (bytes === undefined || dims.some((n) => !Number.isInteger(n) || n < 1)) {
        throw new InputError(`${file}: cannot size the tensor descriptor '${arg.slice(0, 80)}' of ${name} (element type ${d[2]})`);
      }
      const encoding = d[3] ?? '';
      boxes.set(`${name}_param_${i}+0`, boxBytes(dims, bytes, swizzleOf(aliases.get(encoding) ?? encoding)));
    });
  }
  // a kernel that makes its descriptors itself (`tl.make_tensor_descriptor`: `ttng.tensormap_create`
  // once lowered) has none in its signature: the PTX's tensormap.replace instructions give their
  // boxes, and the TTGIR nothing
  if (boxes.size === 0 && !/\btt\.func\b[\s\S]*\b(?:tt\.make_tensor_descriptor|ttng\.tensormap_create)\b/.test(text)) {
    throw new InputError(`${file}: no tensor descriptor in any tt.func signature (is it Triton's .ttgir?)`);
  }
  return boxes;
}

/** The boxes of every .ttgir under a Triton cache folder (its per-kernel hash folders). */
export function tritonCacheBoxes(dir: string): Map<string, number> {
  const boxes = new Map<string, number>();
  const walk = (d: string, depth: number): void => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) {
        if (depth < 3) walk(p, depth + 1);
      } else if (e.endsWith('.ttgir')) {
        try {
          for (const [k, v] of ttgirBoxes(readFileSync(p, 'utf8'), p)) {
            const seen = boxes.get(k);
            // one kernel name compiled twice with other block shapes: the cache cannot tell which
            if (seen !== undefined && seen !== v) throw new InputError(`${dir}: two .ttgir files give ${k} a box of ${seen} and of ${v} bytes; name the kernel's file with --ttgir`);
            boxes.set(k, v);
          }
        } catch (err) {
          // a kernel without descriptors has nothing to give; a conflict is the user's to settle
          if (!(err instanceof InputError) || err.message.includes('two .ttgir files')) throw err;
        }
      }
    }
  };
  walk(dir, 0);
  if (boxes.size === 0) throw new InputError(`${dir}: no .ttgir with tensor descriptors in this Triton cache folder`);
  return boxes;
}
