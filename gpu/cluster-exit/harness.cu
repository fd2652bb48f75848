// Runs the 2-CTA multicast ring of test/fixtures/cuda/cluster_ring.cuh on the GPU (run.sh builds
// one binary per variant) and checks what the consumers sum against the host. Prints one line:
// NAME RUNS WRONG_RUNS WRONG_ELEMENTS, or NAME CUDA-ERROR <error> when a launch fails.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#define STR2(x) #x
#define STR(x) STR2(x)
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s CUDA-ERROR %s\n", STR(NAME), cudaGetErrorString(e_)); exit(1); } } while (0)
#define CLUSTER_RING_NAME NAME
#include "../../test/fixtures/cuda/cluster_ring.cuh"

int run_once(int seed, int K, int clusters) {
  const int n = K * (CHUNK / 4);
  std::vector<float> in(n), out(clusters * 2 * 32);
  for (int i = 0; i < n; i++) in[i] = (float)((i * 7 + seed) % 13);
  std::vector<float> want(32, 0.f);
  for (int k = 0; k < K; k++)
    for (int i = 0; i < CHUNK / 4; i++) want[i % 32] += in[k * (CHUNK / 4) + i];
  float *din, *dout;
  CHECK(cudaMalloc(&din, n * 4)); CHECK(cudaMalloc(&dout, out.size() * 4));
  CHECK(cudaMemcpy(din, in.data(), n * 4, cudaMemcpyHostToDevice)); CHECK(cudaMemset(dout, 0, out.size() * 4));
  NAME<<<clusters * 2, 64>>>(din, dout, K);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (size_t i = 0; i < out.size(); i++) bad += out[i] != want[i % 32];
  cudaFree(din); cudaFree(dout);
  return bad;
}

int main(int argc, char** argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 20, K = argc > 2 ? atoi(argv[2]) : 8, clusters = argc > 3 ? atoi(argv[3]) : 66;
  int wrong = 0;
  long cells = 0;
  for (int i = 0; i < runs; i++) {
    int bad = run_once(i, K, clusters);
    wrong += bad > 0;
    cells += bad;
  }
  printf("%s %d %d %ld\n", STR(NAME), runs, wrong, cells);
  return 0;
}
