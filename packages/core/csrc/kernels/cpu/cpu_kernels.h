// Hand-written CPU kernels, one table per CPU capability (see dispatch.cpp).
// Kernels only compute: the op bodies in csrc/ops allocate and check.
#pragma once
#include <cstdint>

#include "../../core/tensor.h"

namespace ember {

class ElementwiseIter;
struct ReduceIter;

enum class ReduceKind : uint8_t { Sum, NanSum, Prod, Max, Min, All, Any, SumSq };

struct CpuKernels {
  void (*copy)(ElementwiseIter& it);   // operand 1 (any dtype) into operand 0
  void (*where)(ElementwiseIter& it);  // out, bool cond, a, b
  void (*reduce)(ReduceIter& it, ReduceKind kind);
  // Index of max/min along the last dim of a [outer, n] view; values optional.
  void (*arg_reduce)(const Tensor& in, const Tensor& values, const Tensor& indices, bool is_max);
  void (*cumulative)(const Tensor& in, const Tensor& out, int64_t dim, bool is_prod);
};

const CpuKernels& cpu_kernels();

}  // namespace ember
