// Warp-collective instructions: elect.sync, shfl.sync, vote.sync, redux.sync, match.sync.
// They move values between the lanes of one warp (no synchronization event of their own).
import { u } from './alu.ts';
import type { FlatInstr } from './flatten.ts';
import { opType } from './opcode.ts';
import type { Frame, WarpInterp } from './warp.ts';
import { canonical, firstLane, laneOf, scalarKey, UNINIT, Unknown, WARP, type Scalar } from './values.ts';

const FULL = 0xffffffff;

/** Execute a collective; false when the instruction is not one. */
export function collectiveInstr(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number): boolean {
  switch (ins.op.base) {
    case 'elect':
      elect(w, fr, ins, m);
      return true;
    case 'shfl':
      shfl(w, fr, ins, m);
      return true;
    case 'vote':
      vote(w, fr, ins, m);
      return true;
    case 'redux':
      redux(w, fr, ins, m);
      return true;
    case 'match':
      match(w, fr, ins, m);
      return true;
    default:
      return false;
  }
}

/** match.any/all.sync: lanes holding the same value (all known), as a mask. */
function match(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number): void {
  const [d, a0] = ins.args;
  const all = ins.op.parts[0] === 'all';
  const av = a0 ? w.read(fr, a0) : UNINIT;
  const keys: string[] = [];
  for (let l = 0; l < WARP; l++) {
    const x = laneOf(av, l);
    if ((m >>> l) & 1 && typeof x !== 'bigint') {
      w.write(fr, d?.k === 'pair' ? d.first : d, x instanceof Unknown ? x : w.unknownResult(ins), m);
      return;
    }
    keys.push(scalarKey(x));
  }
  const out: Scalar[] = [];
  let everyone = true;
  for (let l = 0; l < WARP; l++) {
    let mask = 0;
    for (let j = 0; j < WARP; j++) if ((m >>> j) & 1 && keys[j] === keys[l]) mask |= 1 << j;
    if ((mask >>> 0) !== (m >>> 0)) everyone = false;
    out.push(BigInt(mask >>> 0));
  }
  const first = d?.k === 'pair' ? d.first : d;
  if (all) w.write(fr, first, everyone ? BigInt(m >>> 0) : 0n, m);
  else w.write(fr, first, canonical(out, w.live), m);
  if (d?.k === 'pair') w.write(fr, d.second, everyone ? 1n : 0n, m);
}

function elect(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number): void {
  const [d, maskArg] = ins.args;
  const mv = maskArg ? w.read(fr, maskArg) : BigInt(FULL);
  const member = typeof mv === 'bigint' ? Number(u(mv, 32)) : FULL;
  const leader = firstLane((m & member) >>> 0);
  const pred: Scalar[] = [];
  for (let l = 0; l < WARP; l++) pred.push(l === leader ? 1n : 0n);
  const pv = canonical(pred, w.live);
  if (d?.k === 'pair') {
    w.write(fr, d.first, BigInt(Math.max(0, leader)), m);
    w.write(fr, d.second, pv, m);
  } else {
    w.write(fr, d, pv, m);
  }
}

function shfl(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number): void {
  const [d, a0, b0, c0] = ins.args;
  const mode = ins.op.parts[1] === 'sync' ? ins.op.parts[2] : ins.op.parts[1];
  const av = a0 ? w.read(fr, a0) : UNINIT;
  const bv = b0 ? w.read(fr, b0) : UNINIT;
  const cv = c0 ? w.read(fr, c0) : UNINIT;
  const out: Scalar[] = new Array<Scalar>(WARP).fill(UNINIT);
  const inb: Scalar[] = new Array<Scalar>(WARP).fill(0n);
  for (let l = 0; l < WARP; l++) {
    if (((m >>> l) & 1) === 0) continue;
    const b = laneOf(bv, l);
    const c = laneOf(cv, l);
    if (typeof b !== 'bigint' || typeof c !== 'bigint') {
      out[l] = w.unknownResult(ins);
      continue;
    }
    const bval = Number(b & 31n);
    const cval = Number(c & 31n);
    const seg = Number((c >> 8n) & 31n);
    const maxLane = (l & seg) | (cval & ~seg);
    const minLane = l & seg;
    let j: number;
    let ok: boolean;
    if (mode === 'up') { j = l - bval; ok = j >= maxLane; }
    else if (mode === 'down') { j = l + bval; ok = j <= maxLane; }
    else if (mode === 'bfly') { j = l ^ bval; ok = j <= maxLane; }
    else { j = minLane | (bval & ~seg); ok = j <= maxLane; }
    if (!ok) j = l;
    out[l] = ((m >>> j) & 1) ? laneOf(av, j) : w.unknownResult(ins);
    inb[l] = ok ? 1n : 0n;
  }
  if (d?.k === 'pair') {
    w.write(fr, d.first, canonical(out, w.live), m);
    w.write(fr, d.second, canonical(inb, w.live), m);
  } else {
    w.write(fr, d, canonical(out, w.live), m);
  }
}

function vote(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number): void {
  const [d, a0] = ins.args;
  const mode = ins.op.parts[1] === 'sync' ? ins.op.parts[2] : ins.op.parts[1];
  const av = a0 ? w.read(fr, a0) : UNINIT;
  let all = true;
  let any = false;
  let ballot = 0n;
  for (let l = 0; l < WARP; l++) {
    if (((m >>> l) & 1) === 0) continue;
    const x = laneOf(av, l);
    if (typeof x !== 'bigint') {
      w.write(fr, d, x instanceof Unknown ? x : w.unknownResult(ins), m);
      return;
    }
    if (x !== 0n) { any = true; ballot |= 1n << BigInt(l); }
    else all = false;
  }
  const v = mode === 'all' ? (all ? 1n : 0n) : mode === 'any' ? (any ? 1n : 0n) : mode === 'uni' ? (all || !any ? 1n : 0n) : ballot;
  w.write(fr, d, v, m);
}

function redux(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number): void {
  const [d, a0] = ins.args;
  const kind = ins.op.parts[1];
  const t = opType(ins.op);
  const av = a0 ? w.read(fr, a0) : UNINIT;
  let acc: bigint | undefined;
  for (let l = 0; l < WARP; l++) {
    if (((m >>> l) & 1) === 0) continue;
    const x0 = laneOf(av, l);
    if (typeof x0 !== 'bigint') {
      w.write(fr, d, x0 instanceof Unknown ? x0 : w.unknownResult(ins), m);
      return;
    }
    const x = t.signed ? BigInt.asIntN(t.bits, x0) : x0;
    if (acc === undefined) acc = x;
    else if (kind === 'add') acc += x;
    else if (kind === 'min') acc = x < acc ? x : acc;
    else if (kind === 'max') acc = x > acc ? x : acc;
    else if (kind === 'and') acc &= x;
    else if (kind === 'or') acc |= x;
    else if (kind === 'xor') acc ^= x;
  }
  w.write(fr, d, acc === undefined ? w.unknownResult(ins) : u(acc, t.bits), m);
}
