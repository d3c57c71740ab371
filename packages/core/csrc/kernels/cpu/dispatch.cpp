// Pick the kernel tables for this CPU once: AVX2+FMA when present, else the
// baseline build. Each capability compiles the same kernel sources.
#include "../../core/cpu_capability.h"
#include "../../core/tensor.h"
#include "cpu_kernels.h"
#include "kernel_table.h"

namespace ember {
namespace cpu::base {
void fill_pointwise(PointwiseKernels&);
void fill_cpu(CpuKernels&);
}  // namespace cpu::base
namespace cpu::avx2 {
void fill_pointwise(PointwiseKernels&);
void fill_cpu(CpuKernels&);
}  // namespace cpu::avx2

const PointwiseKernels& pointwise_kernels() {
  static const PointwiseKernels table = [] {
    PointwiseKernels t{};
    if (cpu_has_avx2()) cpu::avx2::fill_pointwise(t);
    else cpu::base::fill_pointwise(t);
    return t;
  }();
  return table;
}

const CpuKernels& cpu_kernels() {
  static const CpuKernels table = [] {
    CpuKernels t{};
    if (cpu_has_avx2()) cpu::avx2::fill_cpu(t);
    else cpu::base::fill_cpu(t);
    return t;
  }();
  return table;
}

}  // namespace ember
