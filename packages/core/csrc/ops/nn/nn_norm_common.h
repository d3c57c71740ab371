// Argument checks and layout helpers shared by the normalization ops
// (nn_norm.cpp: batch / group norm; nn_layer_norm.cpp); dense / dense_as also by nn_attention.cpp,
// dense_on by nn_nll_loss.cpp.
#pragma once
#include <initializer_list>

#include "core/tensor.h"
#include "iter/elementwise_iter.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"

namespace ember::norm_detail {

inline Tensor dense(const Tensor& t) { return contiguous(t, MemoryFormat::Contiguous); }

// t contiguous, of dtype, on like's device: a kernel's parameter read where the kernel runs (a CUDA
// one is never copied to the host, which would wait for the device).
inline Tensor dense_on(const Tensor& t, ScalarType dtype, const Tensor& like) {
  return dense(to_dtype(t.device() == like.device() ? t : to_device(t, like.device()), dtype));
}

// grad as x's dtype, contiguous.
inline Tensor dense_as(const Tensor& g, const Tensor& x) {
  return dense(g.dtype() == x.dtype() ? g : to_dtype(g, x.dtype()));
}

// aten's is_mixed_type / check_mixed_data_type, before the kernel reads the parameters: when the
// first defined parameter's dtype differs from the input's, every parameter must be float32 and
// the input float16 / bfloat16 (the kernels then read float32 parameters, in op-math). Returns
// whether that mixed pairing holds; otherwise each parameter is read as the input's dtype
// (check_affine, after the kernel's dtype dispatch).
inline bool mixed_params(const Tensor& x, std::initializer_list<const Tensor*> params) {
  const Tensor* first = nullptr;
  for (const Tensor* p : params)
    if (p->defined()) {
      first = p;
      break;
    }
  if (!first || first->dtype() == x.dtype()) return false;
  for (const Tensor* p : params)
    EMBER_CHECK(!p->defined() || p->dtype() == ScalarType::Float32,
                "mixed dtype (CPU): expect parameter to have scalar type of Float");
  EMBER_CHECK(x.dtype() == ScalarType::BFloat16 || x.dtype() == ScalarType::Float16,
              "mixed dtype (CPU): all inputs must share same datatype.");
  return true;
}

// The dtype a norm's parameter gradients are made in: float32 for a half-type input (its op-math;
// the engine rounds them to a half-type parameter's dtype once), else the input's.
inline ScalarType param_grad_dtype(const Tensor& x) {
  return x.dtype() == ScalarType::BFloat16 || x.dtype() == ScalarType::Float16 ? ScalarType::Float32 : x.dtype();
}

inline void check_affine(const Tensor& w, const Tensor& x) {
  if (!w.defined()) return;
  EMBER_CHECK(w.dtype() == x.dtype(), "expected scalar type ", legacy_name(x.dtype()), " but found ",
              legacy_name(w.dtype()));
}

inline void check_float(const Tensor& x, const char* name) {
  EMBER_CHECK_NOTIMPL(is_floating(x.dtype()), "\"", name, "\" not implemented for '", legacy_name(x.dtype()), "'");
}

}  // namespace ember::norm_detail
