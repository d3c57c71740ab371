// Argument checks and layout helpers shared by the normalization kernels
// (nn_norm.cpp: batch / group norm; nn_layer_norm.cpp); dense / dense_as also by nn_attention.cpp.
#pragma once
#include <algorithm>

#include "../core/tensor.h"
#include "../iter/elementwise_iter.h"
#include "../kernels/cpu/vec_math.h"
#include "checks.h"
#include "ops.h"

namespace ember::norm_detail {

inline Tensor dense(const Tensor& t) { return contiguous(t, MemoryFormat::Contiguous); }

// grad as x's dtype, contiguous.
inline Tensor dense_as(const Tensor& g, const Tensor& x) {
  return dense(g.dtype() == x.dtype() ? g : to_dtype(g, x.dtype()));
}

// aten's is_mixed_type / check_mixed_data_type (layer and group norm, before the kernel's dispatch):
// parameters whose first dtype differs from the input's may only be float32 ones of a half-type
// input. That pairing is legal in PyTorch; ember's kernels read the parameters as the input's type,
// so it is refused here (last check). Otherwise a parameter must match the input (the kernel's read).
inline void check_mixed_dtype(const Tensor& x, const Tensor& w, const Tensor& b) {
  const Tensor& first = w.defined() ? w : b;
  if (first.defined() && first.dtype() != x.dtype()) {
    EMBER_CHECK(x.dtype() == ScalarType::BFloat16 || x.dtype() == ScalarType::Float16,
                "mixed dtype (CPU): all inputs must share same datatype.");
    for (const Tensor* p : {&w, &b})
      EMBER_CHECK(!p->defined() || p->dtype() == ScalarType::Float32,
                  "mixed dtype (CPU): expect parameter to have scalar type of Float");
    fail(ErrorKind::Runtime, "mixed dtype (CPU): float32 parameters for a ", legacy_name(x.dtype()),
         " input are not supported by ember's kernel; convert them to the input's dtype");
  }
}

inline void check_affine(const Tensor& w, const Tensor& x) {
  if (!w.defined()) return;
  EMBER_CHECK(w.dtype() == x.dtype(), "expected scalar type ", legacy_name(x.dtype()), " but found ",
              legacy_name(w.dtype()));
}

inline void check_float(const Tensor& x, const char* name) {
  EMBER_CHECK_NOTIMPL(is_floating(x.dtype()), "\"", name, "\" not implemented for '", legacy_name(x.dtype()), "'");
}

// sum of f(j) for j < n: float lanes inside blocks of kSumBlock, blocks added in double, so
// the loop vectorises and long reductions keep double-like accuracy.
constexpr int64_t kSumBlock = 256;
template <class A, class F>
EMBER_VEC_INLINE double blocked_sum(int64_t n, const F& f) {
  double s = 0;
  for (int64_t b = 0; b < n; b += kSumBlock) {
    const int64_t e = std::min(n, b + kSumBlock);
    A bs = 0;
#pragma omp simd reduction(+ : bs)
    for (int64_t j = b; j < e; ++j) bs += f(j);
    s += static_cast<double>(bs);
  }
  return s;
}

}  // namespace ember::norm_detail
