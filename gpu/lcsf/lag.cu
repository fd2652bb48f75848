// The pattern arefcheck reports in ThunderKittens' lcsf template (docs/ptx.md, "missed its
// phase"), cut down to one consumer warp and two producer warps on a 2-stage ring: every producer
// warp waits on every stage's `finished` barrier, but only the warp whose turn it is signals
// `arrived`. A producer warp that reaches its first wait after the consumer already finished
// stage 0 waits with parity 1 on a barrier in phase 1: the phase it means has passed, and the one
// its parity names completes only after its own signal. Run: ./lag ITERS LAG_CYCLES. Waits are
// bounded (a warp that spins past LIMIT tries gives up and records it), so a hang is reported,
// not hung. Compiled with -DNO_LAG the lag loop is gone (a loop on clock64 is data to the lifter):
// that is the PTX arefcheck checks.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void init(uint64_t* bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(bar)), "r"(count) : "memory");
}

__device__ __forceinline__ void arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(bar)) : "memory");
}

/** try_wait until the phase of this parity completes, at most `limit` tries: false if it gave up. */
__device__ __forceinline__ bool wait(uint64_t* bar, int parity, int limit) {
  for (int i = 0; i < limit; i++) {
    uint32_t done;
    asm volatile(
        "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(smem(bar)), "r"(parity)
        : "memory");
    if (done) return true;
  }
  return false;
}

constexpr int LIMIT = 1 << 20;

// status[0]: 0, or 1 + the warp that gave up first; status[1]: iterations the consumer finished
__global__ void __launch_bounds__(96) lcsf_lag(int iters, long long lag, int* status) {
  __shared__ __align__(8) uint64_t arrived[2];
  __shared__ __align__(8) uint64_t finished[2];
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    for (int s = 0; s < 2; s++) {
      init(&arrived[s], 1);
      init(&finished[s], 1);
    }
  }
  __syncthreads();
  if (warp == 0) {  // the consumer
    for (int it = 0; it < iters; it++) {
      const int s = it & 1;
      if (!wait(&arrived[s], (it >> 1) & 1, LIMIT)) {
        if (lane == 0) atomicCAS(&status[0], 0, 1);
        return;
      }
      if (lane == 0) {
        arrive(&finished[s]);
        status[1] = it + 1;
      }
      __syncwarp();
    }
    return;
  }
  // producers: warp 1 signals the even iterations, warp 2 the odd ones; both wait on every stage
#ifndef NO_LAG
  if (warp == 2 && lag > 0) {
    const long long t0 = clock64();
    while (clock64() - t0 < lag) {
    }
  }
#endif
  for (int it = 0; it < iters; it++) {
    const int s = it & 1;
    if (!wait(&finished[s], ((it >> 1) & 1) ^ 1, LIMIT)) {
      if (lane == 0) atomicCAS(&status[0], 0, warp + 1);
      return;
    }
    if ((it & 1) == warp - 1 && lane == 0) arrive(&arrived[s]);
    __syncwarp();
  }
}

int main(int argc, char** argv) {
  const int iters = argc > 1 ? atoi(argv[1]) : 8;
  const long long lag = argc > 2 ? atoll(argv[2]) : 0;
  int* status;
  cudaMalloc(&status, 2 * sizeof(int));
  cudaMemset(status, 0, 2 * sizeof(int));
  lcsf_lag<<<1, 96>>>(iters, lag, status);
  const cudaError_t err = cudaDeviceSynchronize();
  int host[2] = {0, 0};
  cudaMemcpy(host, status, sizeof host, cudaMemcpyDeviceToHost);
  printf("iters=%d lag=%lld error=%s gave_up=%s consumer_done=%d\n", iters, lag, cudaGetErrorString(err),
         host[0] == 0 ? "none" : host[0] == 1 ? "consumer" : host[0] == 2 ? "producer warp 1" : "producer warp 2", host[1]);
  return host[0] == 0 && err == cudaSuccess ? 0 : 1;
}
