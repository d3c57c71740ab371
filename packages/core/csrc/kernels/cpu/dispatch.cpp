// Pick the kernel tables for this CPU once: AVX2+FMA when present, else the
// baseline build. Each capability compiles the same kernel sources.
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

namespace {
bool use_avx2() {
  static const bool yes = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return yes;
}
}  // namespace

const PointwiseKernels& pointwise_kernels() {
  static const PointwiseKernels table = [] {
    PointwiseKernels t{};
    if (use_avx2()) cpu::avx2::fill_pointwise(t);
    else cpu::base::fill_pointwise(t);
    return t;
  }();
  return table;
}

const CpuKernels& cpu_kernels() {
  static const CpuKernels table = [] {
    CpuKernels t{};
    if (use_avx2()) cpu::avx2::fill_cpu(t);
    else cpu::base::fill_cpu(t);
    return t;
  }();
  return table;
}

}  // namespace ember
