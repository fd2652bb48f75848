// Hardware check of arefcheck's verdicts on fast.cu matmul kernels 8–10 (clusters of 2, remote
// arrives): run kernel N at one K and report whether it finished and, if so, whether C is right.
// The kernels come from pranjalssh/fast.cu (examples/matmul/matmul_N.cuh, included from -I FASTCU;
// never copied here); this file only provides what their host code expects and a CPU reference.
//
//   harness N M NDIM K   → prints "kernel N M N K: finished, max |err| E, bad B" (exit 0)
// A kernel that hangs never prints: the driver (run.sh) kills it after a timeout.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda/barrier>
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

typedef __nv_bfloat16 bf16;
#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))

void cudaCheck(cudaError_t error, const char *file, int line) {
  if (error != cudaSuccess) {
    printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
    exit(1);
  }
}
#define cudaCheck(err) (cudaCheck(err, __FILE__, __LINE__))

#include "examples/matmul/matmul_8.cuh"
#include "examples/matmul/matmul_9.cuh"
#include "examples/matmul/matmul_10.cuh"

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: harness KERNEL M N K\n");
    return 2;
  }
  const int kernel = atoi(argv[1]), M = atoi(argv[2]), N = atoi(argv[3]), K = atoi(argv[4]);
  // A is M×K and B is N×K, both K-major; C is column-major M×N (the kernels' layout)
  std::vector<bf16> A((size_t)M * K), B((size_t)N * K), C((size_t)M * N);
  srand(1);
  for (auto &x : A) x = __float2bfloat16((rand() % 17 - 8) / 8.0f);
  for (auto &x : B) x = __float2bfloat16((rand() % 17 - 8) / 8.0f);
  bf16 *dA, *dB, *dC;
  cudaCheck(cudaMalloc(&dA, sizeof(bf16) * (A.size() + 64)));
  cudaCheck(cudaMalloc(&dB, sizeof(bf16) * (B.size() + 64)));
  cudaCheck(cudaMalloc(&dC, sizeof(bf16) * C.size()));
  cudaCheck(cudaMemcpy(dA, A.data(), sizeof(bf16) * A.size(), cudaMemcpyHostToDevice));
  cudaCheck(cudaMemcpy(dB, B.data(), sizeof(bf16) * B.size(), cudaMemcpyHostToDevice));
  cudaCheck(cudaMemset(dC, 0xff, sizeof(bf16) * C.size()));
  switch (kernel) {
    case 8: runKernel8(M, N, K, dA, dB, dC, nullptr); break;
    case 9: runKernel9(M, N, K, dA, dB, dC, nullptr); break;
    case 10: runKernel10(M, N, K, dA, dB, dC, nullptr); break;
    default: fprintf(stderr, "kernel %d: not in this harness\n", kernel); return 2;
  }
  cudaCheck(cudaGetLastError());
  cudaCheck(cudaDeviceSynchronize());
  cudaCheck(cudaMemcpy(C.data(), dC, sizeof(bf16) * C.size(), cudaMemcpyDeviceToHost));
  std::vector<float> Af(A.size()), Bf(B.size());
  for (size_t i = 0; i < A.size(); i++) Af[i] = __bfloat162float(A[i]);
  for (size_t i = 0; i < B.size(); i++) Bf[i] = __bfloat162float(B[i]);
  double worst = 0;
  long bad = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float ref = 0;  // exact: the products are multiples of 1/64 and the sums stay small
      const float *a = &Af[(size_t)i * K], *b = &Bf[(size_t)j * K];
      for (int k = 0; k < K; k++) ref += a[k] * b[k];
      const double got = __bfloat162float(C[(size_t)j * M + i]);
      const double err = std::isnan(got) ? INFINITY : fabs(got - ref);
      worst = err > worst ? err : worst;
      if (err > 0.05 * (1 + fabs(ref))) bad++;
    }
  printf("kernel %d M %d N %d K %d: finished, max |err| %g, bad %ld\n", kernel, M, N, K, worst, bad);
  return 0;
}
