"""Four Gluon warp-specialized kernels with one-line mutants chosen by the constexpr BUG (0 = correct).

The mutant numbers follow the bug classes of DESIGN.md where one applies:
  1 producer's empty wait with parity ph (M1)      2 consumer's ready wait with parity ph ^ 1 (M2)
  3 expect_tx too small (M3)                       4 expect_tx too large (M4)
  5 release before the read retires (M6)           6 a release missing (M8)
  7 no fence_async_shared before the TMA store (M13)
  8 no fence_async_shared between the generic read and the release to the TMA producer (cross-proxy WAR)
  9 a TMA store's buffer reused before tma.store_wait
 10 empty barrier initialised with count 1 for two consumers (M5, low)
 11 empty barrier initialised with count 3 for two consumers (M5, high)
Each `if BUG == n` is resolved at compile time, so a mutant's PTX differs from the correct one only there.
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (
    fence_async_shared,
    mbarrier,
    tma,
    warpgroup_mma,
    warpgroup_mma_wait,
)


@gluon.jit
def wait_empty(bar, ph, BUG: gl.constexpr):
    # a fresh mbarrier counts as having completed the phase before phase 0: the producer's first wait is parity 1
    if BUG == 1:
        mbarrier.wait(bar, ph)
    else:
        mbarrier.wait(bar, ph ^ 1)


@gluon.jit
def wait_ready(bar, ph, BUG: gl.constexpr):
    if BUG == 2:
        mbarrier.wait(bar, ph ^ 1)
    else:
        mbarrier.wait(bar, ph)


@gluon.jit
def expect(bar, nbytes: gl.constexpr, short: gl.constexpr, BUG: gl.constexpr):
    if BUG == 3:
        mbarrier.expect(bar, nbytes - short)
    elif BUG == 4:
        mbarrier.expect(bar, nbytes + short)
    else:
        mbarrier.expect(bar, nbytes)


# --- 1. GEMM: a 1-warp TMA load partition, a 4-warp wgmma partition, one D-slot ring -----------------

@gluon.jit
def gemm_load(a_desc, b_desc, a_bufs, b_bufs, ready, empty, k_tiles, off_m, off_n, BUG: gl.constexpr):
    S: gl.constexpr = a_bufs.type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    for k in range(k_tiles):
        s = k % S
        ph = (k // S) & 1
        wait_empty(empty.index(s), ph, BUG)
        expect(ready.index(s), a_desc.block_type.nbytes + b_desc.block_type.nbytes, b_desc.block_type.nbytes, BUG)
        tma.async_copy_global_to_shared(a_desc, [off_m, k * BK], ready.index(s), a_bufs.index(s))
        tma.async_copy_global_to_shared(b_desc, [off_n, k * BK], ready.index(s), b_bufs.index(s))


@gluon.jit
def gemm_mma(c_desc, a_bufs, b_bufs, ready, empty, c_smem, k_tiles, off_m, off_n, BUG: gl.constexpr):
    S: gl.constexpr = a_bufs.type.shape[0]
    BM: gl.constexpr = c_desc.block_type.shape[0]
    BN: gl.constexpr = c_desc.block_type.shape[1]
    layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, BN, 16])
    acc = gl.zeros((BM, BN), dtype=gl.float32, layout=layout)
    for k in range(k_tiles):
        s = k % S
        ph = (k // S) & 1
        wait_ready(ready.index(s), ph, BUG)
        acc = warpgroup_mma(a_bufs.index(s), b_bufs.index(s).permute((1, 0)), acc, is_async=True)
        if BUG == 5:
            mbarrier.arrive(empty.index(s), count=1)
            acc = warpgroup_mma_wait(0, deps=[acc])
        else:
            acc = warpgroup_mma_wait(0, deps=[acc])
            if BUG != 6:
                mbarrier.arrive(empty.index(s), count=1)
    c_smem.store(acc.to(gl.float16))
    if BUG != 7:
        fence_async_shared()
    tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(0)


@gluon.jit
def gemm_ws(a_desc, b_desc, c_desc, K, S: gl.constexpr, BUG: gl.constexpr):
    BM: gl.constexpr = c_desc.block_type.shape[0]
    BN: gl.constexpr = c_desc.block_type.shape[1]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    off_m = gl.program_id(0) * BM
    off_n = gl.program_id(1) * BN
    k_tiles = gl.cdiv(K, BK)
    a_bufs = gl.allocate_shared_memory(a_desc.dtype, [S, BM, BK], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(b_desc.dtype, [S, BN, BK], b_desc.layout)
    c_smem = gl.allocate_shared_memory(c_desc.dtype, [BM, BN], c_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [S, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [S, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(S):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(empty.index(i), count=1)
    fence_async_shared()
    gl.warp_specialize([
        (gemm_mma, (c_desc, a_bufs, b_bufs, ready, empty, c_smem, k_tiles, off_m, off_n, BUG)),
        (gemm_load, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, k_tiles, off_m, off_n, BUG)),
    ], [1], [40])


# --- 2. Elementwise y = 2x + 1 over two rings: load -> compute (generic smem reads/writes) -> TMA store -

@gluon.jit
def ew_load(descs, bars, bufs, row, n_chunks, BUG: gl.constexpr):
    x_desc, y_desc = descs
    in_ready, in_empty, out_ready, out_empty = bars
    x_bufs, y_bufs = bufs
    S: gl.constexpr = x_bufs.type.shape[0]
    BC: gl.constexpr = x_desc.block_type.shape[1]
    for i in range(n_chunks):
        s = i % S
        ph = (i // S) & 1
        wait_empty(in_empty.index(s), ph, BUG)
        expect(in_ready.index(s), x_desc.block_type.nbytes, x_desc.block_type.nbytes // 2, BUG)
        tma.async_copy_global_to_shared(x_desc, [row, i * BC], in_ready.index(s), x_bufs.index(s))


@gluon.jit
def ew_store(descs, bars, bufs, row, n_chunks, BUG: gl.constexpr):
    x_desc, y_desc = descs
    in_ready, in_empty, out_ready, out_empty = bars
    x_bufs, y_bufs = bufs
    S: gl.constexpr = y_bufs.type.shape[0]
    BC: gl.constexpr = y_desc.block_type.shape[1]
    LAG: gl.constexpr = S - 1  # stores kept in flight
    for i in range(n_chunks):
        s = i % S
        ph = (i // S) & 1
        mbarrier.wait(out_ready.index(s), ph)
        tma.async_copy_shared_to_global(y_desc, [row, i * BC], y_bufs.index(s))
        if BUG == 9:
            mbarrier.arrive(out_empty.index((i - LAG) % S), count=1, pred=i >= LAG)
            tma.store_wait(LAG)
        else:
            tma.store_wait(LAG)
            mbarrier.arrive(out_empty.index((i - LAG) % S), count=1, pred=i >= LAG)
    tma.store_wait(0)


@gluon.jit
def ew_compute(bars, bufs, n_chunks, BUG: gl.constexpr):
    in_ready, in_empty, out_ready, out_empty = bars
    x_bufs, y_bufs = bufs
    S_IN: gl.constexpr = x_bufs.type.shape[0]
    S_OUT: gl.constexpr = y_bufs.type.shape[0]
    layout: gl.constexpr = gl.BlockedLayout([1, 4], [1, 32], [4, 1], [1, 0])
    for i in range(n_chunks):
        s = i % S_IN
        ph = (i // S_IN) & 1
        wait_ready(in_ready.index(s), ph, BUG)
        if BUG == 5:
            mbarrier.arrive(in_empty.index(s), count=1)
            x = x_bufs.index(s).load(layout)
        else:
            x = x_bufs.index(s).load(layout)
            if BUG != 8:
                fence_async_shared()
            if BUG != 6:
                mbarrier.arrive(in_empty.index(s), count=1)
        y = x * 2.0 + 1.0
        o = i % S_OUT
        mbarrier.wait(out_empty.index(o), ((i // S_OUT) & 1) ^ 1)
        y_bufs.index(o).store(y)
        if BUG != 7:
            fence_async_shared()
        mbarrier.arrive(out_ready.index(o), count=1)


@gluon.jit
def elementwise_ws(x_desc, y_desc, N, S_IN: gl.constexpr, S_OUT: gl.constexpr, BUG: gl.constexpr):
    BR: gl.constexpr = x_desc.block_type.shape[0]
    BC: gl.constexpr = x_desc.block_type.shape[1]
    x_bufs = gl.allocate_shared_memory(x_desc.dtype, [S_IN, BR, BC], x_desc.layout)
    y_bufs = gl.allocate_shared_memory(y_desc.dtype, [S_OUT, BR, BC], y_desc.layout)
    in_ready = gl.allocate_shared_memory(gl.int64, [S_IN, 1], mbarrier.MBarrierLayout())
    in_empty = gl.allocate_shared_memory(gl.int64, [S_IN, 1], mbarrier.MBarrierLayout())
    out_ready = gl.allocate_shared_memory(gl.int64, [S_OUT, 1], mbarrier.MBarrierLayout())
    out_empty = gl.allocate_shared_memory(gl.int64, [S_OUT, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(S_IN):
        mbarrier.init(in_ready.index(i), count=1)
        mbarrier.init(in_empty.index(i), count=1)
    for i in gl.static_range(S_OUT):
        mbarrier.init(out_ready.index(i), count=1)
        mbarrier.init(out_empty.index(i), count=1)
    fence_async_shared()
    row = gl.program_id(0) * BR
    n_chunks = gl.cdiv(N, BC)
    descs = (x_desc, y_desc)
    bars = (in_ready, in_empty, out_ready, out_empty)
    bufs = (x_bufs, y_bufs)
    gl.warp_specialize([
        (ew_compute, (bars, bufs, n_chunks, BUG)),
        (ew_load, (descs, bars, bufs, row, n_chunks, BUG)),
        (ew_store, (descs, bars, bufs, row, n_chunks, BUG)),
    ], [1, 1], [24, 24])


# --- 3. Persistent GEMM: each CTA loops over tiles; the ring's phase runs on across tiles ---------------

@gluon.jit
def pgemm_load(a_desc, b_desc, a_bufs, b_bufs, ready, empty, c_smem, c_desc, num_tiles, tiles_n, k_tiles, nprog, BUG: gl.constexpr):
    S: gl.constexpr = a_bufs.type.shape[0]
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[0]
    i = 0
    for tile in range(gl.program_id(0), num_tiles, nprog):
        off_m = (tile // tiles_n) * BM
        off_n = (tile % tiles_n) * BN
        for k in range(k_tiles):
            s = i % S
            ph = (i // S) & 1
            wait_empty(empty.index(s), ph, BUG)
            expect(ready.index(s), a_desc.block_type.nbytes + b_desc.block_type.nbytes, b_desc.block_type.nbytes, BUG)
            tma.async_copy_global_to_shared(a_desc, [off_m, k * BK], ready.index(s), a_bufs.index(s))
            tma.async_copy_global_to_shared(b_desc, [off_n, k * BK], ready.index(s), b_bufs.index(s))
            i += 1


@gluon.jit
def pgemm_mma(a_desc, b_desc, a_bufs, b_bufs, ready, empty, c_smem, c_desc, num_tiles, tiles_n, k_tiles, nprog, BUG: gl.constexpr):
    S: gl.constexpr = a_bufs.type.shape[0]
    BM: gl.constexpr = c_desc.block_type.shape[0]
    BN: gl.constexpr = c_desc.block_type.shape[1]
    layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, BN, 16])
    i = 0
    for tile in range(gl.program_id(0), num_tiles, nprog):
        off_m = (tile // tiles_n) * BM
        off_n = (tile % tiles_n) * BN
        acc = gl.zeros((BM, BN), dtype=gl.float32, layout=layout)
        for k in range(k_tiles):
            s = i % S
            ph = (i // S) & 1
            wait_ready(ready.index(s), ph, BUG)
            acc = warpgroup_mma(a_bufs.index(s), b_bufs.index(s).permute((1, 0)), acc, is_async=True)
            if BUG == 5:
                mbarrier.arrive(empty.index(s), count=1)
            acc = warpgroup_mma_wait(0, deps=[acc])
            if BUG != 5:
                if BUG != 6:
                    mbarrier.arrive(empty.index(s), count=1)
            i += 1
        if BUG != 9:
            tma.store_wait(0)  # the previous tile's TMA store has finished reading c_smem
        c_smem.store(acc.to(gl.float16))
        if BUG != 7:
            fence_async_shared()
        tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(0)


@gluon.jit
def persistent_gemm_ws(a_desc, b_desc, c_desc, M, N, K, nprog, S: gl.constexpr, BUG: gl.constexpr):
    BM: gl.constexpr = c_desc.block_type.shape[0]
    BN: gl.constexpr = c_desc.block_type.shape[1]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    a_bufs = gl.allocate_shared_memory(a_desc.dtype, [S, BM, BK], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(b_desc.dtype, [S, BN, BK], b_desc.layout)
    c_smem = gl.allocate_shared_memory(c_desc.dtype, [BM, BN], c_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [S, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [S, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(S):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(empty.index(i), count=1)
    fence_async_shared()
    tiles_n = gl.cdiv(N, BN)
    num_tiles = gl.cdiv(M, BM) * tiles_n
    k_tiles = gl.cdiv(K, BK)
    gl.warp_specialize([
        (pgemm_mma, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, c_smem, c_desc, num_tiles, tiles_n, k_tiles, nprog, BUG)),
        (pgemm_load, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, c_smem, c_desc, num_tiles, tiles_n, k_tiles, nprog, BUG)),
    ], [1], [40])


# --- 4. Two consumer warpgroups sharing every stage (the FlashAttention-3 shape: both read one K tile) --

@gluon.jit
def duo_part(a_desc, b_desc, c_desc, a_bufs, b_bufs, ready, empty, c_smem, k_tiles, off_m, off_n, WHO: gl.constexpr, BUG: gl.constexpr):
    S: gl.constexpr = b_bufs.type.shape[0]
    BM: gl.constexpr = c_desc.block_type.shape[0]
    BN: gl.constexpr = c_desc.block_type.shape[1]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    if WHO == 2:  # the TMA producer: both consumers' A rows and the shared B tile per stage
        for k in range(k_tiles):
            s = k % S
            ph = (k // S) & 1
            wait_empty(empty.index(s), ph, BUG)
            expect(ready.index(s), 2 * a_desc.block_type.nbytes + b_desc.block_type.nbytes, b_desc.block_type.nbytes, BUG)
            tma.async_copy_global_to_shared(a_desc, [off_m, k * BK], ready.index(s), a_bufs.index(2 * s))
            tma.async_copy_global_to_shared(a_desc, [off_m + BM, k * BK], ready.index(s), a_bufs.index(2 * s + 1))
            tma.async_copy_global_to_shared(b_desc, [off_n, k * BK], ready.index(s), b_bufs.index(s))
    else:  # consumer WHO computes rows off_m + WHO * BM
        layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, BN, 16])
        acc = gl.zeros((BM, BN), dtype=gl.float32, layout=layout)
        for k in range(k_tiles):
            s = k % S
            ph = (k // S) & 1
            if WHO == 1:
                wait_ready(ready.index(s), ph, BUG)
            else:
                mbarrier.wait(ready.index(s), ph)
            acc = warpgroup_mma(a_bufs.index(2 * s + WHO), b_bufs.index(s).permute((1, 0)), acc, is_async=True)
            acc = warpgroup_mma_wait(0, deps=[acc])
            if WHO * 100 + BUG != 106:  # mutant 6 drops consumer 1's release only
                mbarrier.arrive(empty.index(s), count=1)
        c_smem.index(WHO).store(acc.to(gl.float16))
        fence_async_shared()
        tma.async_copy_shared_to_global(c_desc, [off_m + WHO * BM, off_n], c_smem.index(WHO))
        tma.store_wait(0)


@gluon.jit
def duo_consumer0(a_desc, b_desc, c_desc, a_bufs, b_bufs, ready, empty, c_smem, k_tiles, off_m, off_n, BUG: gl.constexpr):
    duo_part(a_desc, b_desc, c_desc, a_bufs, b_bufs, ready, empty, c_smem, k_tiles, off_m, off_n, 0, BUG)


@gluon.jit
def duo_consumer1(a_desc, b_desc, c_desc, a_bufs, b_bufs, ready, empty, c_smem, k_tiles, off_m, off_n, BUG: gl.constexpr):
    duo_part(a_desc, b_desc, c_desc, a_bufs, b_bufs, ready, empty, c_smem, k_tiles, off_m, off_n, 1, BUG)


@gluon.jit
def duo_producer(a_desc, b_desc, c_desc, a_bufs, b_bufs, ready, empty, c_smem, k_tiles, off_m, off_n, BUG: gl.constexpr):
    duo_part(a_desc, b_desc, c_desc, a_bufs, b_bufs, ready, empty, c_smem, k_tiles, off_m, off_n, 2, BUG)


@gluon.jit
def two_consumer_ws(a_desc, b_desc, c_desc, K, S: gl.constexpr, BUG: gl.constexpr):
    BM: gl.constexpr = c_desc.block_type.shape[0]
    BN: gl.constexpr = c_desc.block_type.shape[1]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    off_m = gl.program_id(0) * (2 * BM)
    off_n = gl.program_id(1) * BN
    k_tiles = gl.cdiv(K, BK)
    a_bufs = gl.allocate_shared_memory(a_desc.dtype, [2 * S, BM, BK], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(b_desc.dtype, [S, BN, BK], b_desc.layout)
    c_smem = gl.allocate_shared_memory(c_desc.dtype, [2, BM, BN], c_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [S, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [S, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(S):
        mbarrier.init(ready.index(i), count=1)
        if BUG == 10:
            mbarrier.init(empty.index(i), count=1)
        elif BUG == 11:
            mbarrier.init(empty.index(i), count=3)
        else:
            mbarrier.init(empty.index(i), count=2)
    fence_async_shared()
    gl.warp_specialize([
        (duo_consumer0, (a_desc, b_desc, c_desc, a_bufs, b_bufs, ready, empty, c_smem, k_tiles, off_m, off_n, BUG)),
        (duo_consumer1, (a_desc, b_desc, c_desc, a_bufs, b_bufs, ready, empty, c_smem, k_tiles, off_m, off_n, BUG)),
        (duo_producer, (a_desc, b_desc, c_desc, a_bufs, b_bufs, ready, empty, c_smem, k_tiles, off_m, off_n, BUG)),
    ], [4, 1], [168, 40])
