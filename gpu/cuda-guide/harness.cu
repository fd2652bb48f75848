// Runs the Programming Guide kernels of test/fixtures/cuda/guide_*.cuh on the GPU and checks what
// they compute (gpu/cuda-guide/run.sh builds one binary per variant with -DFAMILY_…).
// Prints one line: NAME RUNS WRONG (runs whose output differs from the host's answer).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda.h>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s CUDA-ERROR %s\n", STR(NAME), cudaGetErrorString(e_)); exit(1); } } while (0)
#define STR2(x) #x
#define STR(x) STR2(x)

#if defined(FAMILY_PC)
#define GUIDE_PC_NAME NAME
#include "../../test/fixtures/cuda/guide_pc.cuh"
int run_once(int seed) {
  const int N = 1 << 16, LEN = 512;
  std::vector<float> in(N), out(N);
  for (int i = 0; i < N; i++) in[i] = (float)((i * 7 + seed) % 1000);
  float *din, *dout;
  CHECK(cudaMalloc(&din, N * 4)); CHECK(cudaMalloc(&dout, N * 4));
  CHECK(cudaMemcpy(din, in.data(), N * 4, cudaMemcpyHostToDevice)); CHECK(cudaMemset(dout, 0, N * 4));
  NAME<<<1, 128, 2 * LEN * sizeof(float)>>>(N, LEN, din, dout);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(out.data(), dout, N * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < N; i++) bad += out[i] != 2.f * in[i];
  cudaFree(din); cudaFree(dout);
  return bad;
}
#elif defined(FAMILY_TMA1D)
#define GUIDE_TMA_NAME NAME
#include "../../test/fixtures/cuda/guide_tma1d.cuh"
int run_once(int seed) {
  const int N = 1024 * 64;
  std::vector<int> data(N), out(N);
  for (int i = 0; i < N; i++) data[i] = i * 3 + seed;
  int* d;
  CHECK(cudaMalloc(&d, N * 4));
  CHECK(cudaMemcpy(d, data.data(), N * 4, cudaMemcpyHostToDevice));
  // one block per 1024-int chunk, each at its own offset
  for (int b = 0; b < 64; b++) NAME<<<1, 256>>>(d, (size_t)b * 1024);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(out.data(), d, N * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < N; i++) bad += out[i] != data[i] + 1;
  cudaFree(d);
  return bad;
}
#elif defined(FAMILY_TMA2D)
#define GUIDE_TMA2D_NAME NAME
#include "../../test/fixtures/cuda/guide_tma2d.cuh"
int run_once(int seed) {
  const int W = 256, H = 64;
  std::vector<int> data(W * H), out(W * H);
  for (int i = 0; i < W * H; i++) data[i] = i + seed;
  int* d;
  CHECK(cudaMalloc(&d, W * H * 4));
  CHECK(cudaMemcpy(d, data.data(), W * H * 4, cudaMemcpyHostToDevice));
  CUtensorMap map;
  cuuint64_t dims[2] = {W, H};
  cuuint64_t strides[1] = {W * sizeof(int)};
  cuuint32_t box[2] = {SMEM_W, SMEM_H};
  cuuint32_t elem[2] = {1, 1};
  CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_INT32, 2, d, dims, strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                      CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) { printf("%s ENCODE-ERROR %d\n", STR(NAME), (int)r); exit(1); }
  // the tile at (x, y) = (32, 8): its first row gets threadIdx.x added
  NAME<<<1, 128>>>(map, 32, 8);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(out.data(), d, W * H * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int want = data[y * W + x] + (y == 8 && x >= 32 && x < 64 ? x - 32 : 0);
      bad += out[y * W + x] != want;
    }
  cudaFree(d);
  return bad;
}
#elif defined(FAMILY_PIPE)
#define GUIDE_PIPE_NAME NAME
#include "../../test/fixtures/cuda/guide_pipeline.cuh"
int run_once(int seed) {
  const int T = 256;
  std::vector<float> in(T * TILE), out(T * TILE);
  for (int i = 0; i < T * TILE; i++) in[i] = (float)((i * 5 + seed) % 997);
  float *din, *dout;
  CHECK(cudaMalloc(&din, in.size() * 4)); CHECK(cudaMalloc(&dout, out.size() * 4));
  CHECK(cudaMemcpy(din, in.data(), in.size() * 4, cudaMemcpyHostToDevice)); CHECK(cudaMemset(dout, 0, out.size() * 4));
  NAME<<<1, 160>>>(din, dout, T);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (size_t i = 0; i < in.size(); i++) bad += out[i] != 2.f * in[i];
  cudaFree(din); cudaFree(dout);
  return bad;
}
#elif defined(FAMILY_HIST)
#define GUIDE_HIST_NAME NAME
#include "../../test/fixtures/cuda/guide_hist.cuh"
int run_once(int seed) {
  const int NBINS = 256, PER = 128, N = 1 << 20;  // 2 CTAs × 128 bins
  std::vector<int> in(N), bins(NBINS), want(NBINS, 0);
  for (int i = 0; i < N; i++) { in[i] = (i * 2654435761u + seed) % NBINS; want[in[i]]++; }
  int *din, *dbins;
  CHECK(cudaMalloc(&din, N * 4)); CHECK(cudaMalloc(&dbins, NBINS * 4));
  CHECK(cudaMemcpy(din, in.data(), N * 4, cudaMemcpyHostToDevice)); CHECK(cudaMemset(dbins, 0, NBINS * 4));
  NAME<<<2, 256, PER * sizeof(int)>>>(dbins, NBINS, PER, din, (size_t)N);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(bins.data(), dbins, NBINS * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int b = 0; b < NBINS; b++) bad += bins[b] != want[b];
  cudaFree(din); cudaFree(dbins);
  return bad;
}
#endif

int main(int argc, char** argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 20, wrong = 0;
  long cells = 0;
  for (int i = 0; i < runs; i++) {
    int bad = run_once(i);
    wrong += bad > 0;
    cells += bad;
  }
  printf("%s %d %d %ld\n", STR(NAME), runs, wrong, cells);
  return 0;
}
