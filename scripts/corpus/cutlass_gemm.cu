// One CUTLASS 3.x Hopper GEMM kernel, chosen by macros, compiled to PTX for arefcheck's corpus
// (scripts/build-corpus.sh). Our wrapper: only the instantiation; every line of the kernel is
// CUTLASS's. Macros: SCHEDULE (KernelTmaWarpSpecialized[Cooperative|Pingpong]), ELEM_AB (cutlass
// type), ELEM_ACC, TILE_M/N/K, CLUSTER_M/N, SCHEDULER (void or cutlass::gemm::StreamKScheduler),
// LAYOUT_B (ColumnMajor, or RowMajor for an NN problem), STAGES (0: as many as fit).
#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/gemm/kernel/gemm_universal.hpp"
#include "cutlass/gemm/device/gemm_universal_adapter.h"
#include "cutlass_shapes.h"

#ifndef SCHEDULE
#define SCHEDULE KernelTmaWarpSpecialized
#endif
#ifndef EPI_SCHEDULE
#define EPI_SCHEDULE cutlass::epilogue::collective::EpilogueScheduleAuto
#endif
#ifndef ELEM_AB
#define ELEM_AB cutlass::half_t
#endif
#ifndef ELEM_ACC
#define ELEM_ACC float
#endif
#ifndef SCHEDULER
#define SCHEDULER void
#endif
#ifndef LAYOUT_B
#define LAYOUT_B cutlass::layout::ColumnMajor
#endif
#ifndef STAGES
#define STAGES 0
#endif

using namespace cute;
using ElementAB = ELEM_AB;
using ElementC = cutlass::half_t;
using LayoutA = cutlass::layout::RowMajor;
using LayoutB = LAYOUT_B;
using LayoutC = cutlass::layout::ColumnMajor;
constexpr int AlignAB = 128 / cutlass::sizeof_bits<ElementAB>::value;
constexpr int AlignC = 128 / cutlass::sizeof_bits<ElementC>::value;

using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, ELEM_ACC, ELEM_ACC,
    ElementC, LayoutC, AlignC, ElementC, LayoutC, AlignC, EPI_SCHEDULE>::CollectiveOp;

using StageCount = std::conditional_t<STAGES == 0,
    cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename CollectiveEpilogue::SharedStorage))>,
    cutlass::gemm::collective::StageCount<STAGES>>;

using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, ElementAB, LayoutA, AlignAB, ElementAB, LayoutB, AlignAB,
    ELEM_ACC, TileShape, ClusterShape, StageCount, cutlass::gemm::SCHEDULE>::CollectiveOp;

using GemmKernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, CollectiveMainloop, CollectiveEpilogue, SCHEDULER>;

// Taking the kernel's address makes nvcc emit it.
void* arefcheck_corpus_kernel() { return reinterpret_cast<void*>(&cutlass::device_kernel<GemmKernel>); }
