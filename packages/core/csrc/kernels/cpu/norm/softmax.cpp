// softmax / log_softmax along the middle dim of a contiguous (outer, size, inner) view, and their
// backward passes, fused: one read of the input per pass, no temporaries (kernels/backend.h,
// SoftmaxKernels). The op bodies are ops/nn/nn_softmax.cpp.
#include "kernels/cpu/norm/softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/parallel.h"
#include "kernels/cpu/isa_variants.h"
#include "kernels/cpu/vec_math.h"

namespace ember::softmax {

namespace {

struct Geometry {
  int64_t outer = 1, size = 1, inner = 1;
};

// Accumulation type: double for double, float otherwise.
template <class T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// One (outer index) slab: `size` rows of `inner` contiguous values; buffers hold a row each.
// The reductions are `omp simd` loops so vec::exp vectorises (the order of the adds is free).
template <class T, bool Log>
EMBER_VEC_INLINE void softmax_slab(const T* x, T* y, int64_t size, int64_t inner, std::vector<acc_t<T>>& mx,
                                   std::vector<acc_t<T>>& sum) {
  using A = acc_t<T>;
  constexpr A kNegInf = -std::numeric_limits<A>::infinity();
  if (inner == 1) {
    A m = kNegInf;
#pragma omp simd reduction(max : m)
    for (int64_t d = 0; d < size; ++d) m = std::max(m, static_cast<A>(x[d]));
    if (m == kNegInf) m = 0;  // all -inf: exp(-inf - 0) = 0 keeps NaN out of the max shift
    A s = 0;
    if constexpr (Log) {
#pragma omp simd reduction(+ : s)
      for (int64_t d = 0; d < size; ++d) s += vec::exp(static_cast<A>(x[d]) - m);
      // PyTorch's last-dim kernel keeps the sum and its log in the input's type (matters for float16 /
      // bfloat16 only: both rounded to it)
      const A ls = static_cast<A>(T(std::log(static_cast<A>(T(s)))));
#pragma omp simd
      for (int64_t d = 0; d < size; ++d) y[d] = T((static_cast<A>(x[d]) - m) - ls);
    } else if constexpr (std::is_same_v<T, A>) {
#pragma omp simd reduction(+ : s)
      for (int64_t d = 0; d < size; ++d) {
        A e = vec::exp(static_cast<A>(x[d]) - m);
        y[d] = T(e);
        s += e;
      }
      const A r = A(1) / s;
#pragma omp simd
      for (int64_t d = 0; d < size; ++d) y[d] = T(static_cast<A>(y[d]) * r);
    } else {
      // float16 / bfloat16: exp again rather than store it rounded, so each output rounds once (PyTorch
      // keeps the exps in a float buffer)
#pragma omp simd reduction(+ : s)
      for (int64_t d = 0; d < size; ++d) s += vec::exp(static_cast<A>(x[d]) - m);
      const A r = A(1) / s;
#pragma omp simd
      for (int64_t d = 0; d < size; ++d) y[d] = T(vec::exp(static_cast<A>(x[d]) - m) * r);
    }
    return;
  }
  std::fill(mx.begin(), mx.end(), kNegInf);
  std::fill(sum.begin(), sum.end(), A(0));
  A* mp = mx.data();
  A* sp = sum.data();
  for (int64_t d = 0; d < size; ++d) {
    const T* xr = x + d * inner;
#pragma omp simd
    for (int64_t i = 0; i < inner; ++i) mp[i] = std::max(mp[i], static_cast<A>(xr[i]));
  }
  for (int64_t i = 0; i < inner; ++i)
    if (mp[i] == kNegInf) mp[i] = 0;
  for (int64_t d = 0; d < size; ++d) {
    const T* xr = x + d * inner;
#pragma omp simd
    for (int64_t i = 0; i < inner; ++i) sp[i] += vec::exp(static_cast<A>(xr[i]) - mp[i]);
  }
  if constexpr (Log) {
    // here aten keeps the sums in float (unlike its last-dim kernel above): one rounding per output
    for (int64_t i = 0; i < inner; ++i) sp[i] = std::log(sp[i]);
    for (int64_t d = 0; d < size; ++d) {
      const T* xr = x + d * inner;
      T* yr = y + d * inner;
#pragma omp simd
      for (int64_t i = 0; i < inner; ++i) yr[i] = T((static_cast<A>(xr[i]) - mp[i]) - sp[i]);
    }
  } else if constexpr (std::is_same_v<T, A>) {
    for (int64_t i = 0; i < inner; ++i) sp[i] = A(1) / sp[i];
    for (int64_t d = 0; d < size; ++d) {
      const T* xr = x + d * inner;
      T* yr = y + d * inner;
#pragma omp simd
      for (int64_t i = 0; i < inner; ++i) yr[i] = T(vec::exp(static_cast<A>(xr[i]) - mp[i]) * sp[i]);
    }
  } else {
    // float16 / bfloat16: aten's general kernel stores each exp in the input's type and divides it by
    // the float sum of the unrounded exps
    for (int64_t d = 0; d < size; ++d) {
      const T* xr = x + d * inner;
      T* yr = y + d * inner;
#pragma omp simd
      for (int64_t i = 0; i < inner; ++i) yr[i] = T(static_cast<A>(T(vec::exp(static_cast<A>(xr[i]) - mp[i]))) / sp[i]);
    }
  }
}

template <class T>
EMBER_VEC_INLINE void run_slabs(const T* xp, T* yp, const Geometry& g, int64_t b, int64_t e, bool log) {
  const int64_t span = g.size * g.inner;
  std::vector<acc_t<T>> mx(g.inner), sum(g.inner);
  for (int64_t o = b; o < e; ++o) {
    if (log) softmax_slab<T, true>(xp + o * span, yp + o * span, g.size, g.inner, mx, sum);
    else softmax_slab<T, false>(xp + o * span, yp + o * span, g.size, g.inner, mx, sum);
  }
}

// One pass over slabs o in [b, e): forward reads x and writes y; backward reads x (the
// forward's result) and g and writes y (the input's gradient).
template <class T>
struct Slabs {
  const T *x, *g;
  T* y;
  const Geometry* geo;
  bool log;
};

template <class T>
EMBER_VEC_INLINE void forward_slabs(const Slabs<T>& p, int64_t b, int64_t e) {
  run_slabs(p.x, p.y, *p.geo, b, e, p.log);
}
// The core files build for baseline x86-64; the slab loops are also compiled for AVX2 and
// AVX-512 (16 lanes: the exp of every element dominates) and picked at run time.
EMBER_ISA_VARIANTS(forward_slabs, Slabs)

template <class T>
EMBER_VEC_INLINE void backward_range(const T* yp, const T* gp, T* dp, const Geometry& geo, int64_t b, int64_t e,
                                     bool log) {
  using A = acc_t<T>;
  const int64_t S = geo.size, I = geo.inner;
  std::vector<A> acc(static_cast<size_t>(I));
  A* ap = acc.data();
  for (int64_t o = b; o < e; ++o) {
    const int64_t off = o * S * I;
    const T *ys = yp + off, *gs = gp + off;
    T* ds = dp + off;
    if (I == 1) {
      A a = 0;
      if (log) {
#pragma omp simd reduction(+ : a)
        for (int64_t d = 0; d < S; ++d) a += static_cast<A>(gs[d]);
#pragma omp simd
        for (int64_t d = 0; d < S; ++d) ds[d] = T(static_cast<A>(gs[d]) - vec::exp(static_cast<A>(ys[d])) * a);
      } else {
#pragma omp simd reduction(+ : a)
        for (int64_t d = 0; d < S; ++d) a += static_cast<A>(gs[d]) * static_cast<A>(ys[d]);
#pragma omp simd
        for (int64_t d = 0; d < S; ++d) ds[d] = T(static_cast<A>(ys[d]) * (static_cast<A>(gs[d]) - a));
      }
      continue;
    }
    std::fill(acc.begin(), acc.end(), A(0));
    for (int64_t d = 0; d < S; ++d) {
      const T *yr = ys + d * I, *gr = gs + d * I;
#pragma omp simd
      for (int64_t i = 0; i < I; ++i)
        ap[i] += log ? static_cast<A>(gr[i]) : static_cast<A>(gr[i]) * static_cast<A>(yr[i]);
    }
    for (int64_t d = 0; d < S; ++d) {
      const T *yr = ys + d * I, *gr = gs + d * I;
      T* dr = ds + d * I;
      if (log) {
#pragma omp simd
        for (int64_t i = 0; i < I; ++i) dr[i] = T(static_cast<A>(gr[i]) - vec::exp(static_cast<A>(yr[i])) * ap[i]);
      } else {
#pragma omp simd
        for (int64_t i = 0; i < I; ++i) dr[i] = T(static_cast<A>(yr[i]) * (static_cast<A>(gr[i]) - ap[i]));
      }
    }
  }
}

template <class T>
EMBER_VEC_INLINE void backward_slabs(const Slabs<T>& p, int64_t b, int64_t e) {
  backward_range(p.x, p.g, p.y, *p.geo, b, e, p.log);
}
EMBER_ISA_VARIANTS(backward_slabs, Slabs)

}  // namespace

void forward(const Tensor& x, const Tensor& y, int64_t outer, int64_t size, int64_t inner, bool log) {
  const Geometry g{outer, size, inner};
  int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, g.size * g.inner));
  EMBER_DISPATCH_FLOAT(x.dtype(), log ? "log_softmax" : "softmax", [&] {
    const Slabs<scalar_t> p{x.data<scalar_t>(), nullptr, y.data<scalar_t>(), &g, log};
    auto fn = forward_slabs_best<scalar_t>();
    parallel_for(0, g.outer, grain, [&](int64_t b, int64_t e) { fn(p, b, e); });
  });
}

// softmax: dx = y * (g - sum(g * y));  log_softmax: dx = g - exp(y) * sum(g).
void backward(const Tensor& y, const Tensor& grad, const Tensor& dx, int64_t outer, int64_t size, int64_t inner,
              bool log) {
  const Geometry g{outer, size, inner};
  int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, g.size * g.inner));
  EMBER_DISPATCH_FLOAT(y.dtype(), "softmax_backward", [&] {
    const Slabs<scalar_t> p{y.data<scalar_t>(), grad.data<scalar_t>(), dx.data<scalar_t>(), &g, log};
    auto fn = backward_slabs_best<scalar_t>();
    parallel_for(0, g.outer, grain, [&](int64_t b, int64_t e) { fn(p, b, e); });
  });
}

}  // namespace ember::softmax
