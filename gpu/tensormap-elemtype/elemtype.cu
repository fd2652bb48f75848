// Which element size does `tensormap.replace.tile.elemtype` give each code? The driver's
// CUtensorMapDataType and the encodings in some PTX tables order 8–10 differently (f64, bf16,
// f32_ftz against f32_ftz, f64, bf16). On the GPU: a u8 tensor map made by the driver, its
// element type replaced in global memory by one kernel, then one TMA copy of a 16-element box
// into shared memory prefilled with 0xAA; the bytes that land are 16 × the element size.
// nvcc -gencode arch=compute_90a,code=sm_90a -o elemtype elemtype.cu -lcuda && ./elemtype
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>

template <int E>
__global__ void replace_elemtype(CUtensorMap *map) {
  if (threadIdx.x == 0) asm volatile("tensormap.replace.tile.elemtype.global.b1024.b32 [%0], %1;" ::"l"(map), "n"(E) : "memory");
}

__global__ void copy_box(const CUtensorMap *map, int *landed, int *completed) {
  __shared__ alignas(128) unsigned char buf[1024];
  __shared__ alignas(8) uint64_t bar;
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) buf[i] = 0xAA;
  uint32_t b = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  uint32_t d = static_cast<uint32_t>(__cvta_generic_to_shared(buf));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  if (threadIdx.x == 0) {
    // the map was written through the generic proxy by the other kernel
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(map) : "memory");
    // more bytes than any element size brings: the phase never completes, the copy lands anyway
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 2048;" ::"r"(b));
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %2}], [%3];" ::"r"(d), "l"(map), "r"(0), "r"(b) : "memory");
    int done = 0;
    for (int i = 0; i < (1 << 20) && !done; i++) {
      uint32_t ok;
      asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }" : "=r"(ok) : "r"(b));
      done = ok;
    }
    *completed = done;
  }
  __syncthreads();
  // let the copy land before counting (it has: a million tries are far longer than one TMA copy)
  __nanosleep(100000);
  __syncthreads();
  if (threadIdx.x == 0) {
    int n = 0;
    for (int i = 0; i < 1024; i++) n += buf[i] != 0xAA;
    *landed = n;
  }
}

template <int E>
void run(CUtensorMap tmpl, const char *name) {
  CUtensorMap *map;
  int *landed, *completed;
  cudaMalloc(&map, sizeof(CUtensorMap));
  cudaMallocManaged(&landed, sizeof(int));
  cudaMallocManaged(&completed, sizeof(int));
  cudaMemcpy(map, &tmpl, sizeof(CUtensorMap), cudaMemcpyHostToDevice);
  replace_elemtype<E><<<1, 32>>>(map);
  cudaDeviceSynchronize();
  copy_box<<<1, 128>>>(map, landed, completed);
  cudaError_t e = cudaDeviceSynchronize();
  printf("elemtype %2d (%s): %s, %d bytes landed for a 16-element box = %d bytes per element\n", E, name, e == cudaSuccess ? "ok" : cudaGetErrorString(e), *landed,
         *landed / 16);
  cudaFree(map);
}

int main() {
  unsigned char *g;
  cudaMalloc(&g, 8192);
  cudaMemset(g, 0x11, 8192);
  CUtensorMap tmpl;
  // one row of 16-element boxes (a rank-2 map: the driver refuses rank 1 without strides)
  cuuint64_t dim[2] = {256, 2}, gstride[1] = {2048};
  cuuint32_t box[2] = {16, 1}, stride[2] = {1, 1};
  CUresult r = cuTensorMapEncodeTiled(&tmpl, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, g, dim, gstride, box, stride, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                      CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) return printf("encode failed: %d\n", r), 1;
  run<0>(tmpl, "u8");
  run<6>(tmpl, "f16");
  run<7>(tmpl, "f32");
  run<8>(tmpl, "f64 or f32.ftz");
  run<9>(tmpl, "bf16 or f64");
  run<10>(tmpl, "f32_ftz or bf16");
  run<11>(tmpl, "tf32");
  run<12>(tmpl, "tf32_ftz");
  return 0;
}
