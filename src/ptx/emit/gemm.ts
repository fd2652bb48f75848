// The gemm family: C = A·Bᵀ, A M×K and B N×K row-major bf16/f16, fp32 accumulation, C M×N in the
// input type (docs/emit.md "gemm"). One CTA per BM×BN output tile (grouped raster over a 1-D
// grid); the Program's K loop runs over k-tiles of BK. A slot holds one stage: the A tile
// (BM rows × 128 bytes) then the B tile (BN rows × 128 bytes), both 128-byte swizzled by TMA.
// Each consumer warpgroup accumulates the k-tiles it consumes into its own BM×BN registers; with
// several consumers the partial sums meet in shared memory after the loop (split-K inside the
// CTA, which is what "consumers take turns" means for one output tile). With `cooperative` the
// consumers instead all read every stage and each owns BM/C rows of the tile (CUTLASS's
// cooperative kernel): no reduction, one m64nBN wgmma per k16 step and consumer. With `pingpong`
// (persistent only) two consumers take turns on whole tiles: consumer c computes the CTA's tiles
// c, c+2, … with all BM rows in its own accumulators (CUTLASS's pingpong kernel), so one
// consumer's epilogue overlaps the other's main loop.
import { InputError } from '../../diag.ts';
import { bin, v } from '../../ir/expr.ts';
import { stripLocs } from '../../lang/strip.ts';
import type { Loc, Op, Program, Stmt } from '../../ir/program.ts';
import type { PtxBuilder } from './builder.ts';
import type { Scope } from './expr.ts';
import type { Family, FamilyArg } from './family.ts';
import { gemmStageBytes, gemmTileOf, tileText, type EmitOptions } from './options.ts';
import type { KernelPlan } from './plan.ts';
import type { RoleCtx } from './role.ts';
import { barrierAddress, constantOperand, needWarpgroup, slotAddress } from './sync.ts';

const ARGS: readonly FamilyArg[] = [
  { name: 'arg_tmap_a', kind: 'tensormap', what: 'A: MxK, 2-D tiled tensor map, box BKxBM, 128B swizzle' },
  { name: 'arg_tmap_b', kind: 'tensormap', what: 'B: NxK, 2-D tiled tensor map, box BKxBN, 128B swizzle' },
  { name: 'arg_c', kind: 'ptr', what: 'C: MxN row-major output' },
  { name: 'arg_m', kind: 'u32', what: 'M (multiple of BM)' },
  { name: 'arg_n', kind: 'u32', what: 'N (multiple of BN)' },
];

/** Shared-memory matrix descriptor bits for a K-major tile with 128-byte swizzle: LBO 16 B (unused), SBO 1024 B, swizzle mode 1. */
const DESC_SW128 = '0x4000004000010000';
export const SETMAXNREG = { producer: 40, consumer: 232 } as const;
/** Two CTAs of one producer and one consumer warpgroup per SM: 2 × 256 threads × 128 registers. */
export const SETMAXNREG_2CTA = { producer: 40, consumer: 216 } as const;

export function gemmFamily(program: Program, plan: KernelPlan, options: EmitOptions): Family {
  const dtype = options.dtype ?? 'bf16';
  if (dtype === 'f32') throw new InputError('the gemm kernel takes bf16 or f16 inputs (fp32 accumulation); --dtype f32 is not supported');
  const tile = gemmTileOf(options);
  const stage = gemmStageBytes(tile, dtype);
  const aBytes = tile.bm * tile.bk * 2;
  const groupM = options.groupM ?? 8;
  if (!Number.isSafeInteger(groupM) || groupM < 1) throw new InputError(`gemm raster group must be a positive integer, got ${groupM}`);
  for (const c of plan.consumers) {
    if (c.role.warps !== 4) throw new InputError(`gemm kernel: consumer role ${c.role.name} must have 4 warps (a warpgroup issues wgmma), it has ${c.role.warps}`, c.role.loc);
  }
  for (const buf of plan.buffers) {
    if (buf.bytes !== stage) {
      throw new InputError(
        `gemm tile ${tileText(tile)} needs slots of ${stage} bytes (A ${tile.bm}×${tile.bk} + B ${tile.bn}×${tile.bk} ${dtype}); buffer ${buf.name} has ${buf.bytes}: pass a matching --tile or bytes`,
      );
    }
  }
  const nConsumers = plan.consumers.length;
  const twoPerSm = options.ctasPerSm === 2;
  if (twoPerSm && nConsumers !== 1) throw new InputError('gemm: two CTAs per SM needs exactly one consumer role (the registers of two consumer warpgroups do not fit twice)');
  const coop = options.cooperative === true;
  if (coop) checkCooperative(program, plan, tileText(tile));
  const persistent = options.persistent === true;
  if (persistent) checkPersistent(program, plan);
  const ping = options.pingpong === true;
  if (ping) checkPingpong(program, plan, persistent, coop);
  // Rows of the CTA tile each consumer accumulates: all of them (split-K) or its share (cooperative).
  const rowsPer = coop ? tile.bm / nConsumers : tile.bm;
  if (!Number.isInteger(rowsPer) || rowsPer % 64 !== 0) {
    throw new InputError(`gemm tile ${tileText(tile)}: ${nConsumers} cooperative consumers need BM to be a multiple of ${64 * nConsumers} (m64 blocks per consumer)`);
  }
  const mBlocks = rowsPer / 64;
  const perBlock = tile.bn / 2;
  const frags = mBlocks * perBlock;
  if (frags > 128) throw new InputError(`gemm tile ${tileText(tile)}: each consumer warpgroup would hold ${frags} fp32 accumulators per thread (at most 128 fit)`);
  const groups = frags / 4;
  const splitK = !coop && !ping && nConsumers > 1;
  if (splitK && groups % nConsumers !== 0) {
    throw new InputError(`gemm tile ${tileText(tile)}: ${groups} accumulator quads per thread do not split evenly over ${nConsumers} consumer roles`);
  }
  const ownGroups = splitK ? groups / nConsumers : groups;
  // Named barrier the consumers meet at to add their partial sums: the first id after the roles' own (1 + role index).
  const reduceBar = 2 + Math.max(plan.producer.index, ...plan.consumers.map((c) => c.index));
  const reduceBytes = splitK ? (nConsumers - 1) * frags * 128 * 4 : 0;
  const mma = `wgmma.mma_async.sync.aligned.m64n${tile.bn}k16.f32.${dtype}.${dtype}`;

  let m0 = '';
  let n0 = '';
  // the raster's constants, kept for the per-tile origins of a persistent kernel
  let ctaid = '';
  let nctaid = '';
  let tilesM = '';
  let inGroup = '';
  let tmapA = '';
  let tmapB = '';
  let cBase = '';
  let nArg = '';
  let always = '';
  const acc = new Map<number, string[]>();

  /** The first row and column of output tile `pid` in the grouped raster. */
  const origin = (b: PtxBuilder, pid: string): [string, string] => {
    const group = b.reg('r');
    const firstM = b.reg('r');
    const size = b.reg('r');
    const rest = b.reg('r');
    const pm = b.reg('r');
    const pn = b.reg('r');
    b.ins(`div.u32 ${group}, ${pid}, ${inGroup}`);
    b.ins(`mul.lo.u32 ${firstM}, ${group}, ${groupM}`);
    b.ins(`sub.u32 ${size}, ${tilesM}, ${firstM}`);
    b.ins(`min.u32 ${size}, ${size}, ${groupM}`);
    b.ins(`rem.u32 ${rest}, ${pid}, ${inGroup}`);
    b.ins(`rem.u32 ${pm}, ${rest}, ${size}`);
    b.ins(`add.u32 ${pm}, ${pm}, ${firstM}`);
    b.ins(`div.u32 ${pn}, ${rest}, ${size}`);
    const m = b.reg('r');
    const n = b.reg('r');
    b.ins(`mul.lo.u32 ${m}, ${pm}, ${tile.bm}`);
    b.ins(`mul.lo.u32 ${n}, ${pn}, ${tile.bn}`);
    return [m, n];
  };

  /** Persistent kernel: the origin of the CTA's t-th tile, tile ctaid + t*nctaid. */
  const originOfTrip = (b: PtxBuilder, t: string): [string, string] => {
    const pid = b.reg('r');
    b.ins(`mad.lo.u32 ${pid}, ${t}, ${nctaid}, ${ctaid}`);
    return origin(b, pid);
  };

  const consumerIndex = (r: RoleCtx): number => plan.consumers.findIndex((c) => c.index === r.placed.index);

  /** R slot for quad g (owned by `owner`) written by consumer `writer`. */
  const reduceSlot = (owner: number, writer: number, g: number): number =>
    (owner * (nConsumers - 1) + (writer < owner ? writer : writer - 1)) * ownGroups + (g - owner * ownGroups);

  return {
    kernel: 'gemm',
    args: ARGS,
    extraSmem: reduceBytes,
    ...(nConsumers > 1 ? { setmaxnreg: SETMAXNREG } : twoPerSm ? { setmaxnreg: SETMAXNREG_2CTA, ctasPerSm: 2 } : {}),
    prologue(b: PtxBuilder): void {
      b.comment(`gemm tile ${tileText(tile)}: grouped raster (${groupM} M-tiles per group) over a 1-D grid${persistent ? ', CTA b computes tiles b + t*gridDim' : ''}`);
      const mArg = b.reg('r');
      nArg = b.reg('r');
      b.ins(`ld.param.u32 ${mArg}, [arg_m]`);
      b.ins(`ld.param.u32 ${nArg}, [arg_n]`);
      ctaid = b.reg('r');
      tilesM = b.reg('r');
      const tilesN = b.reg('r');
      inGroup = b.reg('r');
      b.ins(`mov.u32 ${ctaid}, %ctaid.x`);
      b.ins(`div.u32 ${tilesM}, ${mArg}, ${tile.bm}`);
      b.ins(`div.u32 ${tilesN}, ${nArg}, ${tile.bn}`);
      b.ins(`mul.lo.u32 ${inGroup}, ${tilesN}, ${groupM}`);
      if (persistent) {
        nctaid = b.reg('r');
        b.ins(`mov.u32 ${nctaid}, %nctaid.x`);
      } else [m0, n0] = origin(b, ctaid);
      tmapA = b.reg('rd');
      tmapB = b.reg('rd');
      b.ins(`mov.b64 ${tmapA}, arg_tmap_a`);
      b.ins(`cvta.param.u64 ${tmapA}, ${tmapA}`);
      b.ins(`mov.b64 ${tmapB}, arg_tmap_b`);
      b.ins(`cvta.param.u64 ${tmapB}, ${tmapB}`);
      cBase = b.reg('rd');
      b.ins(`ld.param.u64 ${cBase}, [arg_c]`);
      b.ins(`cvta.to.global.u64 ${cBase}, ${cBase}`);
      always = b.reg('p');
      b.ins(`mov.pred ${always}, -1`);
    },
    roleStart(r: RoleCtx): void {
      if (r.placed.wg === 0) return;
      const regs = r.b.regs('acc', frags);
      acc.set(r.placed.index, regs);
      r.b.comment(`${frags} fp32 accumulators per thread (${mBlocks} x m64n${tile.bn})${persistent ? ', zeroed at the start of each tile' : ''}`);
      if (!persistent) for (const a of regs) r.b.ins(`mov.f32 ${a}, 0f00000000`);
    },
    emitDataOp(r: RoleCtx, op: Op, scope: Scope, loc: Loc | undefined): void {
      const { b } = r;
      switch (op.kind) {
        case 'tma.load': {
          if (op.value === undefined) throw new InputError(`role ${r.placed.role.name}: the gemm kernel needs the k-tile of each tma.load (\`value k\`)`, loc);
          if (op.slots !== undefined) throw new InputError(`role ${r.placed.role.name}: the gemm kernel loads one stage per tma.load (no \`slots\`)`, loc);
          const bytes = constantOperand(program, op.bytes, 'gemm tma.load bytes', loc);
          if (bytes !== stage) {
            throw new InputError(`gemm tile ${tileText(tile)}: a stage delivers ${stage} bytes (A and B tiles), the tma.load says ${bytes}`, loc);
          }
          const dst = slotAddress(r, op.target, scope, loc);
          const dstB = b.reg('r');
          b.ins(`add.s32 ${dstB}, ${dst}, ${aBytes}`);
          const bar = barrierAddress(r, op.barrier, scope, loc);
          const k = b.reg('r');
          // persistent: the value is the stage t*K + k of the CTA's t-th tile
          const kTile = persistent ? bin('%', op.value, v('K')) : op.value;
          b.ins(`mul.lo.s32 ${k}, ${r.ex.register(kTile, scope, loc)}, ${tile.bk}`);
          const [m, n] = persistent ? originOfTrip(b, r.ex.register(bin('/', op.value, v('K')), scope, loc)) : [m0, n0];
          const copy = 'cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes';
          b.ins(`@${r.elect} ${copy} [${dst}], [${tmapA}, {${k}, ${m}}], ${bar}`);
          b.ins(`@${r.elect} ${copy} [${dstB}], [${tmapB}, {${k}, ${n}}], ${bar}`);
          return;
        }
        case 'wgmma.issue': {
          needWarpgroup(r, op, loc);
          const regs = acc.get(r.placed.index);
          if (!regs) throw new Error('accumulators not allocated');
          const slot = slotAddress(r, op.target, scope, loc);
          const descA = b.reg('rd');
          const descB = b.reg('rd');
          b.ins(`cvt.u64.u32 ${descA}, ${slot}`);
          b.ins(`shr.u64 ${descA}, ${descA}, 4`);
          b.ins(`or.b64 ${descA}, ${descA}, ${DESC_SW128}`);
          // cooperative: this consumer's rows start mBlocks m64 blocks per consumer into the A tile
          const aFirst = coop ? consumerIndex(r) * mBlocks * 512 : 0;
          b.ins(`add.s64 ${descB}, ${descA}, ${aBytes >> 4}`);
          b.ins('wgmma.fence.sync.aligned');
          for (let kk = 0; kk < tile.bk / 16; kk++) {
            const bk = b.reg('rd');
            b.ins(`add.s64 ${bk}, ${descB}, ${kk * 2}`);
            for (let mi = 0; mi < mBlocks; mi++) {
              const ak = b.reg('rd');
              b.ins(`add.s64 ${ak}, ${descA}, ${aFirst + mi * 512 + kk * 2}`);
              const d = regs.slice(mi * perBlock, (mi + 1) * perBlock);
              b.ins(`${mma} {${d.join(', ')}}, ${ak}, ${bk}, ${always}, 1, 1, 0, 0`);
            }
          }
          if (op.commit) b.ins('wgmma.commit_group.sync.aligned');
          return;
        }
        case 'read': {
          const slot = slotAddress(r, op.target, scope, loc);
          const at = b.reg('r');
          const sink = b.reg('r');
          b.ins(`mad.lo.s32 ${at}, ${r.tidInRole}, 4, ${slot}`);
          b.ins(`ld.volatile.shared.u32 ${sink}, [${at}]`);
          return;
        }
        case 'write': {
          const slot = slotAddress(r, op.target, scope, loc);
          const at = b.reg('r');
          b.ins(`mad.lo.s32 ${at}, ${r.tidInRole}, 4, ${slot}`);
          b.ins(`st.volatile.shared.u32 [${at}], 0`);
          return;
        }
        default:
          throw new InputError(`gemm kernel: no realization for ${op.kind}`, loc);
      }
    },
    roleEnd(r: RoleCtx): void {
      if (persistent || !acc.has(r.placed.index)) return;
      r.b.comment(`arefcheck epilogue ${r.placed.role.name}: retire every wgmma group, ${splitK ? 'add the partial sums, ' : ''}store the owned part of C`);
      r.b.ins('wgmma.wait_group.sync.aligned 0');
      storeTile(r, m0, n0);
    },
    ...(persistent
      ? {
          perTile: {
            tileStart(r: RoleCtx): void {
              r.b.comment('tile start: zero the accumulators');
              for (const a of acc.get(r.placed.index) ?? []) r.b.ins(`mov.f32 ${a}, 0f00000000`);
            },
            tileEnd(r: RoleCtx, t: string): void {
              // the Program retired every wgmma group of the tile (checkPersistent): the accumulators are final
              r.b.comment(`arefcheck tile epilogue ${r.placed.role.name}: store the owned part of the CTA's tile ${ping ? `2*${t} + ${consumerIndex(r)}` : t}`);
              let tile = t;
              if (ping) {
                // pingpong: trip t of consumer c is the CTA's tile 2t + c
                tile = r.b.reg('r');
                r.b.ins(`mad.lo.u32 ${tile}, ${t}, 2, ${consumerIndex(r)}`);
              }
              const [m, n] = originOfTrip(r.b, tile);
              storeTile(r, m, n);
            },
          },
        }
      : {}),
    meta: () => ({
      tile, dtype, stageBytes: stage, groupM, reduceBytes, ctasPerSm: twoPerSm ? 2 : 1, cooperative: coop,
      ...(splitK ? { reduceBarrier: reduceBar } : {}),
      ...(persistent ? { persistent: true, iterParam: 'K', tilesParam: 'T' } : {}),
      ...(ping ? { pingpong: true } : {}),
    }),
  };

  /** The epilogue: (split-K: add the partial sums,) convert and store this consumer's part of the tile at (m0, n0). */
  function storeTile(r: RoleCtx, m0: string, n0: string): void {
    const regs = acc.get(r.placed.index);
    if (!regs) return;
    const { b } = r;
    const me = consumerIndex(r);
    const quad = (g: number): string[] => regs.slice(4 * g, 4 * g + 4);
    if (splitK) {
      const mine = b.reg('r');
      b.ins(`mad.lo.s32 ${mine}, ${r.tidInRole}, 16, ${r.regs.smem}`);
      b.ins(`add.s32 ${mine}, ${mine}, ${plan.bufferBytes}`);
      for (let g = 0; g < groups; g++) {
        const owner = Math.floor(g / ownGroups);
        if (owner === me) continue;
        b.ins(`st.shared.v4.f32 [${mine}+${reduceSlot(owner, me, g) * 2048}], {${quad(g).join(', ')}}`);
      }
      b.ins(`bar.sync ${reduceBar}, ${128 * nConsumers}`);
      for (let g = me * ownGroups; g < (me + 1) * ownGroups; g++) {
        for (let w = 0; w < nConsumers; w++) {
          if (w === me) continue;
          const t = b.regs('f', 4);
          b.ins(`ld.shared.v4.f32 {${t.join(', ')}}, [${mine}+${reduceSlot(me, w, g) * 2048}]`);
          quad(g).forEach((a, i) => b.ins(`add.f32 ${a}, ${a}, ${t[i]}`));
        }
      }
    }
    // Thread (warp w, lane l) holds rows 16w + l/4 (+8) and columns 8i + 2(l%4) (+1) of each m64 block.
    const warp = b.reg('r');
    const lane = b.reg('r');
    const row = b.reg('r');
    const col = b.reg('r');
    b.ins(`shr.u32 ${warp}, ${r.tidInRole}, 5`);
    b.ins(`and.b32 ${lane}, ${r.tidInRole}, 31`);
    b.ins(`shr.u32 ${row}, ${lane}, 2`);
    b.ins(`mad.lo.u32 ${row}, ${warp}, 16, ${row}`);
    b.ins(`add.u32 ${row}, ${row}, ${m0}`);
    if (coop && me > 0) b.ins(`add.u32 ${row}, ${row}, ${me * rowsPer}`);
    b.ins(`and.b32 ${col}, ${lane}, 3`);
    b.ins(`shl.b32 ${col}, ${col}, 1`);
    b.ins(`add.u32 ${col}, ${col}, ${n0}`);
    const at = b.reg('rd');
    const colWide = b.reg('rd');
    b.ins(`mul.wide.u32 ${at}, ${row}, ${nArg}`);
    b.ins(`cvt.u64.u32 ${colWide}, ${col}`);
    b.ins(`add.s64 ${at}, ${at}, ${colWide}`);
    b.ins(`shl.b64 ${at}, ${at}, 1`);
    b.ins(`add.s64 ${at}, ${at}, ${cBase}`);
    const rowBytes = b.reg('rd');
    b.ins(`mul.wide.u32 ${rowBytes}, ${nArg}, 2`);
    const down8 = b.reg('rd');
    b.ins(`shl.b64 ${down8}, ${rowBytes}, 3`);
    const cvt = `cvt.rn.${dtype}x2.f32`;
    for (let mi = 0; mi < mBlocks; mi++) {
      const first = mi * perBlock / 4;
      const owned = Array.from({ length: perBlock / 4 }, (_, i) => first + i).filter((g) => !splitK || Math.floor(g / ownGroups) === me);
      if (owned.length === 0) continue;
      const top = b.reg('rd');
      const bottom = b.reg('rd');
      if (mi === 0) b.ins(`mov.b64 ${top}, ${at}`);
      else b.ins(`mad.lo.s64 ${top}, ${rowBytes}, ${mi * 64}, ${at}`);
      b.ins(`add.s64 ${bottom}, ${top}, ${down8}`);
      for (const g of owned) {
        const [a0, a1, a2, a3] = quad(g);
        const i = g - first;
        const lo = b.reg('r');
        const hi = b.reg('r');
        b.ins(`${cvt} ${lo}, ${a1}, ${a0}`);
        b.ins(`${cvt} ${hi}, ${a3}, ${a2}`);
        b.ins(`st.global.b32 [${top}+${i * 16}], ${lo}`);
        b.ins(`st.global.b32 [${bottom}+${i * 16}], ${hi}`);
      }
    }
  }
}

/**
 * A persistent kernel's Program: params K (k-tiles per tile) and T (tiles per CTA), and every
 * consumer role one loop over the tiles whose body retires all its wgmma groups (`wgmma.wait 0`
 * at its top level, no wgmma.issue after it) before the tile is stored.
 */
function checkPersistent(program: Program, plan: KernelPlan): void {
  for (const name of ['K', 'T']) {
    if (!program.params.some((p) => p.name === name)) {
      throw new InputError(`gemm --persistent: the Program needs the param ${name} (K k-tiles per tile, T tiles per CTA: the pipeline with tiles)`);
    }
  }
  const issues = (stmts: readonly Stmt[]): boolean =>
    stmts.some((s) => (s.kind === 'op' ? s.op.kind === 'wgmma.issue' : s.kind === 'for' ? issues(s.body) : issues(s.then) || issues(s.else)));
  for (const c of plan.consumers) {
    const [loop, ...rest] = c.role.body;
    if (!loop || loop.kind !== 'for' || rest.length > 0) {
      throw new InputError(`gemm --persistent: consumer role ${c.role.name} must be one loop over its output tiles (for t in 0..T: …)`, c.role.loc);
    }
    const last = loop.body.findLastIndex((s) => s.kind === 'op' && s.op.kind === 'wgmma.wait' && constantOperand(program, s.op.pending, 'wgmma.wait', s.loc) === 0);
    if (last < 0 || issues(loop.body.slice(last + 1))) {
      throw new InputError(`gemm --persistent: consumer role ${c.role.name} must retire its wgmma groups (wgmma.wait 0) at the end of each tile before the tile is stored`, loop.loc ?? c.role.loc);
    }
  }
}

/**
 * Pingpong consumers: a persistent kernel with exactly two consumer roles that run different
 * schedules (trip t of consumer c stores the CTA's tile 2t + c, so the Program must give consumer
 * c the stages of those tiles: `pipelineProgram({ pingpong: true })`).
 */
function checkPingpong(program: Program, plan: KernelPlan, persistent: boolean, coop: boolean): void {
  if (!persistent || coop) throw new InputError('gemm --pingpong needs --persistent (a loop over tiles) and excludes --cooperative');
  if (plan.consumers.length !== 2) throw new InputError(`gemm --pingpong: the Program needs exactly 2 consumer roles, it has ${plan.consumers.length}`);
  const bodies = stripLocs(program).roles;
  const [a, b] = plan.consumers.map((c) => JSON.stringify(bodies[c.index]?.body));
  if (a === b) {
    throw new InputError('gemm --pingpong: both consumer roles run the same schedule; pingpong consumers take alternate tiles (the pipeline with pingpong)', plan.consumers[1]?.role.loc);
  }
}

/**
 * Cooperative consumers each compute their rows over ALL k-tiles, so every consumer role must run
 * the same schedule (a turn-taking Program would leave each row block with part of the sum).
 */
function checkCooperative(program: Program, plan: KernelPlan, tile: string): void {
  const bodies = stripLocs(program).roles;
  const first = plan.consumers[0];
  const want = first ? JSON.stringify(bodies[first.index]?.body) : '';
  for (const c of plan.consumers) {
    if (JSON.stringify(bodies[c.index]?.body) !== want) {
      throw new InputError(
        `gemm tile ${tile} --cooperative: consumer role ${c.role.name} runs a different schedule from ${first?.role.name ?? '?'}; cooperative consumers must all read every stage (the cooperative pipeline)`,
        c.role.loc,
      );
    }
  }
}
