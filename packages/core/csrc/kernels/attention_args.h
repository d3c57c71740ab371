// The arguments of the fused attention kernels (kernels/backend.h, AttentionKernels):
// device-independent, so the backend table can name them for every device.
#pragma once
#include <cstdint>

#include "core/half.h"
#include "core/host_device.h"
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

// A (B, H, rows, E) operand read through its strides, E's being 1: the rows of (batch, head) bh
// start at head(bh, H), sl apart (a transposed (B, L, H, E) layout needs no copy).
template <class T>
struct HeadRows {
  const T* p;
  int64_t sb, sh, sl;
  EMBER_VEC_INLINE const T* head(int64_t bh, int64_t H) const { return p + bh / H * sb + bh % H * sh; }
};

// (B, H, L|S, E|Ev) operands of one floating type T (float or double); out, lse and the
// gradients written are contiguous.
template <class T>
struct FlashForward {
  HeadRows<T> q, k, v;
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
  HeadRows<T> q, k, v, grad_out;
  const T *out, *lse;
  T *dq, *dk, *dv;  // contiguous, written whole by the kernel
  Dims d;
  bool is_causal;
  MaskView mask;
  double scale;
};

// An exp P V reads, rounded to the half type `to` (aten's buffer of the input's dtype); Float32 /
// Float64 leave it.
template <class T>
EMBER_VEC_INLINE T rounded(T v, ScalarType to) {
  if (to == ScalarType::Float16) return static_cast<T>(static_cast<float>(Half(static_cast<float>(v))));
  if (to == ScalarType::BFloat16) return static_cast<T>(static_cast<float>(BFloat16(static_cast<float>(v))));
  return v;
}

}  // namespace ember::attention
