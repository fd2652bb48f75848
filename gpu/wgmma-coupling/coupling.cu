// Does one warp's wgmma.wait_group return before a partner warp of its warpgroup has issued the
// wgmma.mma_async of that group? The model says no (docs/semantics.md, "One warpgroup, several
// roles"): the operation is one of all 4 warps, so it completes only after each has issued it.
// The lifter's fold rule leans on the same fact (src/ptx/lift/fold.ts: a wgmma.wait that retires
// a group committed after a wait keeps the warps of one warpgroup within that wait of each other).
// Here one warp of the warpgroup (LAG_WARP) spins LAG cycles, before its fence and mma_async
// (WHERE 0) or between its mma_async and its commit_group (WHERE 1); every warp records clock64
// before its mma_async, after it, before its commit and after its wait_group 0.
// Run: ./coupling LAG_WARP LAG WHERE. Coupled when every other warp's wait returns after the
// lagging warp's mma_async (WHERE 0) or commit (WHERE 1).
#include <cstdint>
#include <cstdio>
#include <cstdlib>

__device__ __forceinline__ void spin(long long lag) {
  const long long t0 = clock64();
  while (clock64() - t0 < lag) {
  }
}

__device__ __forceinline__ uint64_t desc(const void* p) {
  // no swizzle; leading and stride byte offsets of 128 and 256 bytes (values are not checked here)
  const uint64_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(p));
  return ((addr >> 4) & 0x3FFF) | (uint64_t(128 >> 4) << 16) | (uint64_t(256 >> 4) << 32);
}

// t[4*w + 0]: before mma_async; t[4*w + 1]: after it; t[4*w + 2]: after wait_group 0; t[4*w + 3]: before commit
__global__ void __launch_bounds__(128) coupling(int lag_warp, long long lag, int where, long long* t, float* out) {
  __shared__ __align__(1024) uint16_t a[64 * 16];
  __shared__ __align__(1024) uint16_t b[16 * 8];
  for (int i = threadIdx.x; i < 64 * 16; i += 128) a[i] = 0x3c00;  // 1.0
  for (int i = threadIdx.x; i < 16 * 8; i += 128) b[i] = 0x3c00;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const int warp = threadIdx.x / 32;
  if (warp == lag_warp && where == 0) spin(lag);
  float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
  const uint64_t da = desc(a);
  const uint64_t db = desc(b);
  const long long before = clock64();
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %6, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n\t}"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "l"(da), "l"(db), "r"(0)
      : "memory");
  const long long issued = clock64();
  if (warp == lag_warp && where == 1) spin(lag);
  const long long commit = clock64();
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  const long long done = clock64();
  if (threadIdx.x % 32 == 0) {
    t[4 * warp + 0] = before;
    t[4 * warp + 1] = issued;
    t[4 * warp + 2] = done;
    t[4 * warp + 3] = commit;
  }
  out[threadIdx.x] = d0 + d1 + d2 + d3;
}

int main(int argc, char** argv) {
  const int lag_warp = argc > 1 ? atoi(argv[1]) : 1;
  const long long lag = argc > 2 ? atoll(argv[2]) : 0;
  const int where = argc > 3 ? atoi(argv[3]) : 0;
  long long* t;
  float* out;
  cudaMalloc(&t, 16 * sizeof(long long));
  cudaMalloc(&out, 128 * sizeof(float));
  cudaMemset(t, 0, 16 * sizeof(long long));
  coupling<<<1, 128>>>(lag_warp, lag, where, t, out);
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    printf("error %s\n", cudaGetErrorString(e));
    return 1;
  }
  long long h[16];
  float o[128];
  cudaMemcpy(h, t, sizeof h, cudaMemcpyDeviceToHost);
  cudaMemcpy(o, out, sizeof o, cudaMemcpyDeviceToHost);
  // the lagging warp's mma_async (WHERE 0) or commit (WHERE 1)
  const long long lagIssue = h[4 * lag_warp + (where == 0 ? 0 : 3)];
  int early = 0;
  for (int w = 0; w < 4; w++) {
    if (w != lag_warp && h[4 * w + 2] < lagIssue) early++;
  }
  printf("where %d lag_warp %d lag %lld |", where, lag_warp, lag);
  for (int w = 0; w < 4; w++) printf(" w%d issue %+lld done %+lld |", w, h[4 * w] - lagIssue, h[4 * w + 2] - lagIssue);
  printf(" out[0] %.0f | %s\n", o[0], early ? "DECOUPLED: a partner's wait returned first" : "coupled");
  return 0;
}
