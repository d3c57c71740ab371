// Argument checks and layout helpers shared by the normalization kernels
// (nn_norm.cpp: batch / group norm; nn_layer_norm.cpp).
#pragma once
#include "../core/tensor.h"
#include "../iter/elementwise_iter.h"
#include "checks.h"
#include "ops.h"

namespace ember::norm_detail {

inline Tensor dense(const Tensor& t) { return contiguous(t, MemoryFormat::Contiguous); }

// grad as x's dtype, contiguous.
inline Tensor dense_as(const Tensor& g, const Tensor& x) {
  return dense(g.dtype() == x.dtype() ? g : to_dtype(g, x.dtype()));
}

inline void check_affine(const Tensor& w, const Tensor& x) {
  if (!w.defined()) return;
  EMBER_CHECK(w.dtype() == x.dtype(), "mixed dtype (CPU): expect parameter to have scalar type of ",
              legacy_name(x.dtype()));
}

inline void check_float(const Tensor& x, const char* name) {
  EMBER_CHECK_NOTIMPL(is_floating(x.dtype()), "\"", name, "\" not implemented for '", legacy_name(x.dtype()), "'");
}

}  // namespace ember::norm_detail
