// Runs FlashInfer's Hopper single-prefill kernel (bf16, head dim 128, causal) through its own host
// entry point, SinglePrefillWithKVCacheDispatched, as scripts/corpus/flashinfer_prefill_sm90.cu
// instantiates it, and compares O with a float reference on the CPU. Our code; the kernel is
// FlashInfer's (build.sh compiles this against a copy of its headers, patched or not).
//   harness N HEADS RUNS   -> one CSV line per run: run,max_abs_err,mean_abs_err,bad_rows
// bad_rows: query rows with an element off by more than 0.05 from the reference.
#define FI_KIND 0
#define FI_HEAD_DIM 128
#define FI_MASK MaskMode::kCausal
#include "../../scripts/corpus/flashinfer_prefill_sm90.cu"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CHECK(x)                                                                   \
  do {                                                                             \
    cudaError_t e_ = (x);                                                          \
    if (e_ != cudaSuccess) {                                                       \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 512;
  const int heads = argc > 2 ? std::atoi(argv[2]) : 4;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 3;
  constexpr int D = 128;
  const size_t elems = size_t(n) * heads * D;  // NHD layout: [n][heads][D]
  std::mt19937 rng(0);
  std::normal_distribution<float> normal(0.f, 1.f);
  std::vector<nv_bfloat16> q(elems), k(elems), v(elems), o(elems);
  std::vector<float> qf(elems), kf(elems), vf(elems);
  for (size_t i = 0; i < elems; i++) {
    q[i] = __float2bfloat16(normal(rng)); qf[i] = __bfloat162float(q[i]);
    k[i] = __float2bfloat16(normal(rng)); kf[i] = __bfloat162float(k[i]);
    v[i] = __float2bfloat16(normal(rng)); vf[i] = __bfloat162float(v[i]);
  }
  const float sm_scale = 1.f / std::sqrt(float(D));
  // reference: causal softmax(q k^T * sm_scale) v per head, in float
  std::vector<float> ref(elems);
  std::vector<float> s(n);
  for (int h = 0; h < heads; h++)
    for (int i = 0; i < n; i++) {
      float m = -INFINITY;
      for (int j = 0; j <= i; j++) {
        float dot = 0.f;
        for (int d = 0; d < D; d++) dot += qf[(size_t(i) * heads + h) * D + d] * kf[(size_t(j) * heads + h) * D + d];
        s[j] = dot * sm_scale;
        m = std::fmax(m, s[j]);
      }
      float sum = 0.f;
      for (int j = 0; j <= i; j++) sum += (s[j] = std::exp(s[j] - m));
      for (int d = 0; d < D; d++) {
        float acc = 0.f;
        for (int j = 0; j <= i; j++) acc += s[j] * vf[(size_t(j) * heads + h) * D + d];
        ref[(size_t(i) * heads + h) * D + d] = acc / sum;
      }
    }
  nv_bfloat16 *dq, *dk, *dv, *dout;
  CHECK(cudaMalloc(&dq, elems * 2));
  CHECK(cudaMalloc(&dk, elems * 2));
  CHECK(cudaMalloc(&dv, elems * 2));
  CHECK(cudaMalloc(&dout, elems * 2));
  CHECK(cudaMemcpy(dq, q.data(), elems * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dk, k.data(), elems * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dv, v.data(), elems * 2, cudaMemcpyHostToDevice));
  SingleParams p{};
  p.q_ptr = reinterpret_cast<DTypeQ*>(dq);
  p.k_ptr = reinterpret_cast<DTypeKV*>(dk);
  p.v_ptr = reinterpret_cast<DTypeKV*>(dv);
  p.o_ptr = reinterpret_cast<DTypeO*>(dout);
  p.lse_ptr = nullptr;
  p.additional_params = {nullptr, 0.0, double(sm_scale), 1.0};
  p.q_stride_n = p.k_stride_n = p.v_stride_n = p.o_stride_n = int64_t(heads) * D;
  p.q_stride_h = p.k_stride_h = p.v_stride_h = p.o_stride_h = D;
  p.qo_len = p.kv_len = n;
  p.head_dim = D;
  p.num_qo_heads = p.num_kv_heads = heads;
  p.group_size = 1;
  p.window_left = -1;
  p.causal = true;
  std::printf("run,max_abs_err,mean_abs_err,bad_rows\n");
  for (int r = 0; r < runs; r++) {
    CHECK(cudaMemset(dout, 0, elems * 2));
    CHECK((flashinfer::SinglePrefillWithKVCacheDispatched<FI_HEAD_DIM, FI_HEAD_DIM, FI_MASK, false, DefaultAttention<false>, SingleParams>(p, nullptr)));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(o.data(), dout, elems * 2, cudaMemcpyDeviceToHost));
    double max_err = 0, sum_err = 0;
    int bad_rows = 0;
    for (int i = 0; i < n; i++)
      for (int h = 0; h < heads; h++) {
        bool bad = false;
        for (int d = 0; d < D; d++) {
          const size_t x = (size_t(i) * heads + h) * D + d;
          const double e = std::fabs(double(__bfloat162float(o[x])) - ref[x]);
          max_err = std::fmax(max_err, e);
          sum_err += e;
          bad |= e > 0.05;
        }
        bad_rows += bad;
      }
    std::printf("%d,%.5f,%.6f,%d\n", r, max_err, sum_err / elems, bad_rows);
  }
  return 0;
}
