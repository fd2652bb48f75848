// Opcode strings split into a base, modifiers and the operand types they name:
// `setp.lt.s32` → base setp, mods {lt, s32}, types [s32].
export interface OpType {
  readonly name: string;
  readonly bits: number;
  readonly signed: boolean;
  readonly float: boolean;
}

export interface Opcode {
  readonly text: string;
  readonly base: string;
  /** Everything after the base, in order (`shared::cta`, `parity`, `b64`, …). */
  readonly parts: readonly string[];
  readonly mods: ReadonlySet<string>;
  /** Types in order of appearance (cvt has two: destination, then source). */
  readonly types: readonly OpType[];
  /** Vector width from `.v2`/`.v4`/`.v8`, 1 otherwise. */
  readonly vector: number;
}

const TYPES: Record<string, Omit<OpType, 'name'>> = {};
for (const bits of [8, 16, 32, 64, 128]) {
  TYPES[`b${bits}`] = { bits, signed: false, float: false };
  TYPES[`u${bits}`] = { bits, signed: false, float: false };
  TYPES[`s${bits}`] = { bits, signed: true, float: false };
}
for (const [name, bits] of [['f16', 16], ['f16x2', 32], ['bf16', 16], ['bf16x2', 32], ['f32', 32], ['f64', 64], ['tf32', 32], ['e4m3', 8], ['e5m2', 8], ['e4m3x2', 16], ['e5m2x2', 16], ['f32x2', 64]] as const) {
  TYPES[name] = { bits, signed: true, float: true };
}
TYPES['pred'] = { bits: 1, signed: false, float: false };

const cache = new Map<string, Opcode>();

export function parseOpcode(text: string): Opcode {
  const hit = cache.get(text);
  if (hit) return hit;
  const [base = '', ...parts] = text.split('.');
  const types: OpType[] = [];
  let vector = 1;
  for (const p of parts) {
    const t = TYPES[p];
    if (t) types.push({ name: p, ...t });
    const v = /^v(\d+)$/.exec(p);
    if (v?.[1]) vector = Number(v[1]);
  }
  const op: Opcode = { text, base, parts, mods: new Set(parts), types, vector };
  cache.set(text, op);
  return op;
}

/** The (last) type of an opcode, or a 32-bit untyped default. */
export function opType(op: Opcode): OpType {
  return op.types[op.types.length - 1] ?? { name: 'b32', bits: 32, signed: false, float: false };
}

/** Size in bytes of a declared type name (`b32` → 4), 0 when unknown. */
export function typeBytes(name: string): number {
  const t = TYPES[name];
  return t ? Math.max(1, t.bits / 8) : 0;
}

/** The state space an instruction addresses: shared, global, local, param, const, or generic when none is named. */
export function stateSpace(op: Opcode): 'shared' | 'global' | 'local' | 'param' | 'const' | 'generic' {
  for (const p of op.parts) {
    const s = p.split('::')[0];
    if (s === 'shared' || s === 'global' || s === 'local' || s === 'param' || s === 'const') return s;
  }
  return 'generic';
}
