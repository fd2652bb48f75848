// Launch values: what a kernel reads that the launch decides. Scalar parameters, the fields of
// parameters passed by value as byte arrays (CUTLASS `Params`, ThunderKittens globals, FA3
// arguments: read as `ld.param` at an offset), and the grid and cluster shape. The lifter never
// refuses them as "loaded data": each is a launch variable with a value — fixed by the user
// (`--param NAME+OFFSET:u32=V`, `--grid`, `--cluster`), or chosen by the lifter's sweep — and
// every variable the kernel read is reported with the value it was lifted at.
import { InputError } from '../../diag.ts';
import type { ParamDecl, PtxFunction } from '../parse/ast.ts';
import { isTagged, nullPointer, taggedField } from './launch-pointers.ts';
import { typeBytes } from './opcode.ts';
import { SymAddr, Unknown, type Scalar } from './values.ts';

export type LaunchKind = 'int' | 'float' | 'pointer';

/** One launch variable: a scalar param, a field of a by-value param, or a grid/cluster dimension. */
export interface LaunchVar {
  /** `K`, `params+8` (a field), `grid.x`, `cluster.y`. */
  readonly key: string;
  readonly kind: LaunchKind;
  readonly bytes: number;
  /** The PTX parameter it lives in (for messages), and the byte offset of a field. */
  readonly param?: string;
  readonly offset?: number;
  /** An element of an array in global memory the field points to: its byte offset there. */
  readonly element?: number;
}

/** The values a run uses: user-fixed ones, then an assignment from the sweep, then the defaults. */
export interface LaunchAssignment {
  readonly values: ReadonlyMap<string, bigint>;
}

/**
 * The CTA the lift executes (`--cta`, else 0; with a cluster, the cluster holding it): a launch
 * value too, since a causal attention kernel's trip count grows with %ctaid.x (CTA 0 makes one
 * k-block whatever the sequence length). Read when the kernel reads %ctaid.x; the sweep raises it
 * only as a last resort (sweep.ts).
 */
export const CTA_INDEX = '%ctaid.x';

/** The default of an integer launch value: one tile, one k-block, one CTA (the sweep varies the ones that matter). */
export const DEFAULT_INT = 1n;
/** Floats default to 1.0 (alpha = beta = 1: the epilogue reads its source; the sweep tries 0.0 where it matters). */
export const DEFAULT_FLOAT_BITS = 0x3f800000n;

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);
const F64 = new Float64Array(1);
const U64 = new BigUint64Array(F64.buffer);

export function floatBits(x: number, bytes: number): bigint {
  if (bytes === 8) {
    F64[0] = x;
    return U64[0] ?? 0n;
  }
  F32[0] = x;
  return BigInt(U32[0] ?? 0);
}

export function bitsFloat(bits: bigint, bytes: number): number {
  if (bytes === 8) {
    U64[0] = BigInt.asUintN(64, bits);
    return F64[0] ?? Number.NaN;
  }
  U32[0] = Number(BigInt.asUintN(32, bits));
  return F32[0] ?? Number.NaN;
}

export interface GridShape {
  readonly grid: readonly [number, number, number];
  readonly cluster: readonly [number, number, number];
}

/**
 * The launch values one run reads. Created per run with the assignment to use; `reads` then lists
 * every variable the kernel touched with the value it got.
 */
export class LaunchValues {
  readonly reads = new Map<string, { readonly v: LaunchVar; readonly value: bigint | SymAddr }>();
  private readonly values: ReadonlyMap<string, bigint>;
  private readonly kernel: PtxFunction;
  /** whether a 64-bit scalar parameter is a pointer (else a count: value-uses.ts usedAsPointer) */
  private readonly isPointer: (param: string) => boolean;

  /** the values the user gave (a swept value is not one: a byte count it sets is still the launch's, not checked) */
  private readonly given: ReadonlySet<string>;

  /** what an integer left open reads: DEFAULT_INT, or 2 where the kernel divides by half of it (sweep.ts) */
  readonly defaultInt: bigint;

  constructor(
    kernel: PtxFunction,
    values: ReadonlyMap<string, bigint>,
    notInputs: ReadonlySet<string> = new Set(),
    given: ReadonlySet<string> = new Set(values.keys()),
    defaultInt: bigint = DEFAULT_INT,
    isPointer: (param: string) => boolean = () => true,
  ) {
    this.isPointer = isPointer;
    this.kernel = kernel;
    this.values = values;
    this.notInputs = notInputs;
    this.given = given;
    this.defaultInt = defaultInt;
  }

  /** A scalar parameter (`ld.param.u32 %r, [K]`); pointers stay symbolic addresses unless given. */
  scalar(p: ParamDecl, index: number): Scalar {
    const bytes = typeBytes(p.type) || 8;
    const key = p.name;
    const given = this.values.get(key) ?? this.values.get(String(index));
    // a 64-bit parameter is a pointer unless its uses show a count (value-uses.ts usedAsPointer)
    const kind: LaunchKind = /^f/.test(p.type) ? 'float' : bytes >= 8 && this.isPointer(p.name) ? 'pointer' : 'int';
    const v: LaunchVar = { key, kind, bytes, param: p.name };
    const value = given ?? (kind === 'pointer' ? new SymAddr(`ptr:${p.name}`, 0n) : kind === 'float' ? DEFAULT_FLOAT_BITS : this.defaultInt);
    this.reads.set(key, { v, value });
    return value;
  }

  /**
   * A field of a by-value parameter, read with a given type. Integer fields default to 1 and
   * 64-bit ones to 0: a 64-bit field is a pointer or a stride, and a struct's optional pointers
   * (CUTLASS's `beta_ptr`, `ptr_C`) are null unless the user gives them; float fields are 1.0.
   */
  field(p: ParamDecl, offset: number, bytes: number, float: boolean): Scalar {
    const key = `${p.name}+${offset}`;
    const given = this.values.get(key);
    const kind: LaunchKind = float ? 'float' : 'int';
    const v: LaunchVar = { key, kind, bytes, param: p.name, offset };
    let value: bigint;
    if (given !== undefined) value = BigInt.asUintN(bytes * 8, given);
    else if (kind === 'float') value = bytes === 8 ? floatBits(1, 8) : DEFAULT_FLOAT_BITS;
    else value = bytes >= 8 ? 0n : this.defaultInt;
    const prev = this.reads.get(key);
    // one launch has one value per field: a field read at the same offset as u32 by some warps and
    // as u64 by others (ThunderKittens' size_t dims) reads the same number in both, not 1 in one
    // and a null 0 in the other (the first read's value; lift.ts makes it a count when the
    // first was a u64's null and a later read is a 32-bit one)
    const same = given === undefined && kind === 'int' && prev?.v.kind === 'int' && prev.v.bytes !== bytes && typeof prev.value === 'bigint' ? BigInt.asUintN(bytes * 8, prev.value) : undefined;
    if (same !== undefined) value = same;
    // a 64-bit field left open was read as a null pointer, and is now read as a 32-bit integer:
    // it is a count (a size_t dim), and the run is repeated with it at the integers' default
    if (given === undefined && kind === 'int' && bytes <= 4 && prev?.v.kind === 'int' && prev.v.bytes === 8 && prev.value === 0n) this.integerFields.add(key);
    // one field read with two types (a u64 read as two u32) keeps the first kind
    if (!prev) this.reads.set(key, { v, value });
    // a 64-bit field left open is null, tagged with the field so that a load through it is an
    // element of a launch array (launch-pointers.ts); unless a narrower read of it came first
    if (given === undefined && kind === 'int' && bytes === 8 && (same === undefined || same === 0n)) return nullPointer(this.kernel.params.indexOf(p), offset);
    return value;
  }

  /** 64-bit fields left open that a warp also read as a 32-bit integer (lift.ts runs again with them at the integers' default). */
  readonly integerFields = new Set<string>();

  /** Global memory the kernel wrote at a launch array's element (`params+68[4]`), by key: the first line. */
  private readonly written = new Map<string, number>();
  /** Elements read as launch values that the kernel also writes: not inputs (lift.ts runs again without them). */
  readonly clobbered = new Set<string>();
  private readonly notInputs: ReadonlySet<string>;

  /**
   * The element of a launch array a global address points at: through a pointer field left open
   * (a tagged null, `params+68[4]`) or a pointer parameter (`ptr:NAME`, `NAME[4]`). Undefined for
   * any other address.
   */
  arrayElement(address: Scalar): LaunchVar | undefined {
    if (isTagged(address)) {
      const { param, field, offset } = taggedField(address);
      const p = this.kernel.params[param];
      if (!p) return undefined;
      return { key: `${p.name}+${field}[${offset}]`, kind: 'int', bytes: 0, param: p.name, offset: field, element: Number(offset) };
    }
    if (address instanceof SymAddr && address.base.startsWith('ptr:') && address.offset >= 0n) {
      const name = address.base.slice(4);
      return { key: `${name}[${address.offset}]`, kind: 'int', bytes: 0, param: name, element: Number(address.offset) };
    }
    return undefined;
  }

  /**
   * An integer element of an array in global memory a launch pointer points to (FA3's
   * `num_m_blocks_ptr[b]`, `cu_seqlens[b]`): a launch value defaulting to 1 like any integer,
   * unless the kernel writes that element itself (then it is data).
   */
  element(at: LaunchVar, bytes: number, line: number): Scalar {
    const wrote = this.written.get(at.key);
    if (wrote !== undefined || this.notInputs.has(at.key)) {
      return new Unknown(`data loaded at line ${line} (the kernel writes ${at.key}${wrote !== undefined ? ` at line ${wrote}` : ''})`);
    }
    const given = this.values.get(at.key) ?? this.values.get(wholeArray(at.key));
    const value = given !== undefined ? BigInt.asUintN(bytes * 8, given) : this.defaultInt;
    if (!this.reads.has(at.key)) this.reads.set(at.key, { v: { ...at, bytes }, value });
    return value;
  }

  /** A store to global memory at a launch array's element: read as a launch value, it no longer is one. */
  wroteElement(at: LaunchVar, line: number): void {
    if (!this.written.has(at.key)) this.written.set(at.key, line);
    if (this.reads.has(at.key)) this.clobbered.add(at.key);
  }

  /** The kernel read %ctaid.x: the CTA index of the run is one of its launch values (CTA_INDEX). */
  ctaIndexRead(): void {
    if (!this.reads.has(CTA_INDEX)) this.reads.set(CTA_INDEX, { v: { key: CTA_INDEX, kind: 'int', bytes: 4 }, value: this.values.get(CTA_INDEX) ?? 0n });
  }

  /** Grid (`grid.x`) or cluster (`cluster.x`) dimension. */
  dim(key: string, fallback: number): number {
    const given = this.values.get(key);
    const value = given ?? BigInt(fallback);
    this.reads.set(key, { v: { key, kind: 'int', bytes: 4 }, value });
    return Number(value);
  }

  /** Work counters in global memory (`atom.global.add`), by address: their value and the lines that advanced them. */
  readonly counters = new Map<string, { value: bigint; adds: number; readonly lines: Set<number> }>();

  /** An atomic add on the counter at `address`: its value before (it starts at 0). */
  counterAdd(address: string, amount: bigint, bits: number, line: number): bigint {
    let c = this.counters.get(address);
    if (!c) this.counters.set(address, (c = { value: 0n, adds: 0, lines: new Set() }));
    const old = c.value;
    c.value = BigInt.asUintN(bits, old + amount);
    c.adds += 1;
    c.lines.add(line);
    return old;
  }

  /** Spin loops on a flag in global memory taken to end (spin.ts), by the line of their exit test. */
  readonly spins = new Map<number, { readonly flag: number; times: number }>();

  spinWait(line: number, flag: number): void {
    const s = this.spins.get(line);
    if (s) s.times += 1;
    else this.spins.set(line, { flag, times: 1 });
  }

  /** Whether the user fixed this launch value (`K`, `params+640`). */
  isGiven(key: string): boolean {
    return this.given.has(key);
  }

  /** The name of parameter `i` (`#i` past the last). */
  paramName(i: number): string {
    return this.kernel.params[i]?.name ?? `#${i}`;
  }

  get kernelName(): string {
    return this.kernel.name;
  }
}

/** `NAME+OFF[*]` for an element key `NAME+OFF[ELEM]`: every element of that array (the sweep raises arrays whole). */
export function wholeArray(key: string): string {
  return key.replace(/\[\d+\]$/, '[*]');
}

/**
 * `--tma-box` keys as the notes print them (`0+128`: the map at byte 128 of parameter 0; `0+648[128]`:
 * the one at byte 128 of the array the pointer field at byte 648 points to) in the
 * lifter's own form (`NAME+128`); keys naming a parameter already, or a `line N`, stay as they are.
 */
export function resolveBoxKey(kernel: PtxFunction, key: string): string {
  const m = /^(\d+)((?:\+\d+)?(?:\[\d+\])?)$/.exec(key);
  const p = m ? kernel.params[Number(m[1])] : undefined;
  return p ? `${p.name}${m?.[2] ?? ''}` : key;
}

/** resolveBoxKey over a map of box sizes. */
export function resolveBoxKeys(kernel: PtxFunction, boxes: ReadonlyMap<string, number>): Map<string, number> {
  return new Map([...boxes].map(([key, bytes]) => [resolveBoxKey(kernel, key), bytes]));
}

/**
 * `NAME=V`, `NAME+OFF:TYPE=V`, `INDEX=V`, `INDEX+OFF:TYPE=V`: a user's launch value, keyed as
 * LaunchValues reads it. `NAME[ELEM]:TYPE=V` and `NAME+OFF[ELEM]:TYPE=V` give an integer element
 * (at byte ELEM) of the array that a pointer parameter, or the pointer field at OFF, points to;
 * `[*]` gives every element of it (an element given on its own wins).
 */
export function parseLaunchParam(kernel: PtxFunction, name: string, value: string): { key: string; value: bigint } {
  const m = /^([A-Za-z_$.%][\w$.%]*|\d+)(?:\+(\d+))?(?:\[(\d+|\*)\])?(?::([a-z]\d+))?$/.exec(name);
  const [, who = '', off, elem, type] = m ?? [];
  if (!m || (type !== undefined && off === undefined && elem === undefined)) {
    throw new InputError(`--param ${name}=${value}: expected NAME=V, NAME+OFFSET:TYPE=V, NAME[ELEMENT]:TYPE=V, NAME+OFFSET[ELEMENT]:TYPE=V or a parameter index`);
  }
  const byIndex = /^\d+$/.test(who) ? kernel.params[Number(who)] : undefined;
  const p = byIndex ?? kernel.params.find((x) => x.name === who);
  if (!p) {
    throw new InputError(`kernel ${kernel.name} has no parameter '${who}' (parameters: ${kernel.params.map((x, i) => `${i}: ${x.name}`).join(', ') || 'none'})`);
  }
  const struct = p.elements !== undefined;
  if (off === undefined && elem === undefined) {
    if (struct) throw new InputError(`parameter ${p.name} is a ${p.elements}-byte struct passed by value: give one of its fields, e.g. --param ${p.name}+OFFSET:u32=V`);
    return { key: p.name, value: parseValue(value, typeBytes(p.type) || 8, /^f/.test(p.type), name) };
  }
  const size = struct ? (typeBytes(p.type) || 1) * (p.elements ?? 0) : typeBytes(p.type) || 8;
  const t = type ?? 'u32';
  const bytes = typeBytes(t);
  if (bytes === 0) throw new InputError(`--param ${name}: unknown type '${t}' (use u32, s32, u64, f32, …)`);
  const offset = Number(off ?? 0);
  if (elem !== undefined) {
    // the parameter or field is a pointer; the value goes to the array it points to
    if (struct === (off === undefined)) {
      throw new InputError(struct ? `--param ${name}: parameter ${p.name} is a struct: name the pointer field, e.g. --param ${p.name}+OFFSET[${elem}]:u32=V` : `--param ${name}: parameter ${p.name} is a scalar: give --param ${p.name}[${elem}]:u32=V`);
    }
    if (offset + 8 > size) throw new InputError(`--param ${name}: parameter ${p.name} has ${size} bytes; a pointer at offset ${offset} does not fit`);
    if (t.startsWith('f') || bytes > 4) throw new InputError(`--param ${name}: array elements are integers of at most 4 bytes (u8 … u32, s32)`);
    const at = elem === '*' ? '*' : String(Number(elem));
    return { key: struct ? `${p.name}+${offset}[${at}]` : `${p.name}[${at}]`, value: parseValue(value, bytes, false, name) };
  }
  // a scalar parameter has no fields: its whole value at offset 0 is the parameter, else refuse
  // (a key the kernel never reads would be ignored without a word)
  if (!struct) {
    if (offset === 0 && bytes === size) return { key: p.name, value: parseValue(value, bytes, t.startsWith('f'), name) };
    throw new InputError(`--param ${name}: parameter ${p.name} is a scalar .${p.type}, not a struct: give --param ${p.name}=V`);
  }
  if (offset + bytes > size) throw new InputError(`--param ${name}: parameter ${p.name} has ${size} bytes; a ${t} at offset ${offset} does not fit`);
  return { key: `${p.name}+${offset}`, value: parseValue(value, bytes, t.startsWith('f'), name) };
}

function parseValue(text: string, bytes: number, float: boolean, name: string): bigint {
  if (float) {
    const x = Number(text);
    if (!Number.isFinite(x)) throw new InputError(`--param ${name}=${text}: not a number`);
    return floatBits(x, bytes);
  }
  if (!/^-?(0x[0-9a-f]+|\d+)$/i.test(text)) throw new InputError(`--param ${name}=${text}: not an integer`);
  return BigInt.asUintN(bytes * 8, BigInt(text));
}

/** `X,Y,Z` (Y and Z default to 1). */
export function parseDims(flag: string, text: string): [number, number, number] {
  const parts = text.split(',').map((x) => x.trim());
  if (parts.length < 1 || parts.length > 3 || !parts.every((x) => /^\d+$/.test(x) && Number(x) >= 1)) {
    throw new InputError(`--${flag} ${text}: expected X[,Y[,Z]] with positive integers`);
  }
  const [x = 1, y = 1, z = 1] = parts.map(Number);
  return [x, y, z];
}
