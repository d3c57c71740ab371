// The arguments of the fused attention kernels (kernels/backend.h, AttentionKernels):
// device-independent, so the backend table can name them for every device.
#pragma once
#include <cstdint>

#include "core/scalar_type.h"

namespace ember::attention {

// (batch, heads, query rows, keys, head size of Q/K, head size of V)
struct Dims {
  int64_t B, H, L, S, E, Ev;
};

// The additive mask seen as (B, H, L, S), stride 0 where it broadcasts; p null for none. Its
// elements have the kernel's type.
struct MaskView {
  const void* p = nullptr;
  int64_t sb = 0, sh = 0, sl = 0, ss = 0;
};

// Contiguous (B, H, L|S, E|Ev) operands of one floating type T (float or double).
template <class T>
struct FlashForward {
  const T *q, *k, *v;
  T* out;  // (B, H, L, Ev)
  T* lse;  // (B, H, L): each row's log-sum-exp, for the backward
  Dims d;
  bool is_causal;
  MaskView mask;
  double scale;
  // The exps P V reads are rounded to this half type (aten's buffer of the input's dtype);
  // Float32 / Float64 for none.
  ScalarType round_to;
};

template <class T>
struct FlashBackward {
  const T *q, *k, *v, *out, *grad_out, *lse;
  T *dq, *dk, *dv;  // dk and dv zeroed by the caller: every block adds its share
  Dims d;
  bool is_causal;
  MaskView mask;
  double scale;
};

}  // namespace ember::attention
