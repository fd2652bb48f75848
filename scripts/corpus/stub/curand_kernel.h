// Stand-in for cuRAND's header where the CUDA toolkit has none (this machine's nvcc 13 ships
// without it): CUTLASS's examples include it for their random tensor fills, whose kernels use no
// mbarrier and so are not lifted. Only what those fills call is declared; values are not random.
#pragma once
#include <cstdint>
struct curandStateXORWOW { unsigned int d; };
typedef curandStateXORWOW curandState_t;
typedef curandStateXORWOW curandState;
__device__ inline void curand_init(unsigned long long seed, unsigned long long seq, unsigned long long, curandState_t* s) { s->d = static_cast<unsigned int>(seed ^ seq); }
__device__ inline unsigned int curand(curandState_t* s) { s->d = s->d * 1664525u + 1013904223u; return s->d; }
__device__ inline float curand_uniform(curandState_t* s) { return (curand(s) >> 8) * (1.0f / 16777216.0f); }
__device__ inline double curand_uniform_double(curandState_t* s) { return curand_uniform(s); }
__device__ inline float curand_normal(curandState_t* s) { return curand_uniform(s) - 0.5f; }
__device__ inline double curand_normal_double(curandState_t* s) { return curand_normal(s); }
