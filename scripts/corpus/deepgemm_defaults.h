// Template values shared by our DeepGEMM instantiations (scripts/corpus/deepgemm_*.cu), as macros
// a build line may override: N and K compiled in (M at run time), the block shape, the stages, the
// TMA multicast.
#pragma once
#ifndef SHAPE_N
#define SHAPE_N 4096
#endif
#ifndef SHAPE_K
#define SHAPE_K 7168
#endif
#ifndef DG_BLOCK_M
#define DG_BLOCK_M 128
#endif
#ifndef DG_BLOCK_N
#define DG_BLOCK_N 128
#endif
#ifndef DG_STAGES
#define DG_STAGES 5
#endif
#ifndef DG_MULTICAST
#define DG_MULTICAST 1
#endif
