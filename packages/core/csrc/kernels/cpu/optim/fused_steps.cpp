// torch's fused optimizer steps (_fused_adam_, _fused_adamw_, _fused_sgd_): the whole update
// of one parameter in a single pass over its elements, instead of one pass per foreach op.
// Each element follows the same float operations, in the same order, as the optimizer's
// per-parameter path (lerp, addcmul, sqrt / bias2_sqrt + eps, addcdiv), so results agree
// with it (to the last bit unless the compiler contracts a multiply-add differently).
// The op bodies are ops/core/foreach_fused.cpp.
#include "kernels/cpu/optim/fused_steps.h"

#include <algorithm>
#include <cmath>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define EMBER_FUSED_X86 1
#endif

#include "core/cpu_capability.h"
#include "core/parallel.h"
#include "kernels/optim_consts.h"

namespace ember::optim {

namespace {

template <class T>
inline T lerp_like(T a, T b, T w) {  // ember's lerp kernel (exact at w = 0 and 1)
  return std::abs(w) < T(0.5) ? a + w * (b - a) : b - (b - a) * (T(1) - w);
}

// The element loops, compiled twice: for the build's baseline and for AVX2 (picked at run
// time). No FMA is enabled, so each multiply and add rounds as in the per-parameter kernels.
// The options are template parameters so that the loops have no branches, and sqrt (which
// GCC will not vectorise while it may set errno) runs in its own small loop over a block
// that stays in L1: the other two loops vectorise.
constexpr int64_t kBlock = 512;

// sqrt over a block, with explicit SIMD (GCC will not vectorise std::sqrt while it may set
// errno). Square roots are correctly rounded in every form, so results do not change.
template <class T>
inline void sqrt_block_base(T* x, int64_t n) {
  int64_t i = 0;
#ifdef EMBER_FUSED_X86
  if constexpr (sizeof(T) == 4) {
    for (; i + 4 <= n; i += 4) _mm_storeu_ps(x + i, _mm_sqrt_ps(_mm_loadu_ps(x + i)));
  } else {
    for (; i + 2 <= n; i += 2) _mm_storeu_pd(x + i, _mm_sqrt_pd(_mm_loadu_pd(x + i)));
  }
#endif
  for (; i < n; ++i) x[i] = std::sqrt(x[i]);
}

#ifdef EMBER_FUSED_X86
template <class T>
__attribute__((target("avx2"))) inline void sqrt_block_avx2(T* x, int64_t n) {
  int64_t i = 0;
  if constexpr (sizeof(T) == 4) {
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, _mm256_sqrt_ps(_mm256_loadu_ps(x + i)));
  } else {
    for (; i + 4 <= n; i += 4) _mm256_storeu_pd(x + i, _mm256_sqrt_pd(_mm256_loadu_pd(x + i)));
  }
  for (; i < n; ++i) x[i] = std::sqrt(x[i]);
}
#endif

// Wd: 0 none, 1 L2 (added to the gradient), 2 decoupled (AdamW). LowW: |1 - beta1| < 0.5,
// which picks the branch of lerp (a + w (b - a) or b - (b - a)(1 - w)).
#define EMBER_ADAM_LOOP(NAME, ATTRS, SQRT)                                                                        \
  template <class T, bool Scaled, int Wd, bool Ams, bool LowW>                                                    \
  ATTRS void NAME(T* __restrict__ p, T* __restrict__ g, T* __restrict__ m, T* __restrict__ v, T* __restrict__ mx, \
                  const AdamConsts<T> c, int64_t begin, int64_t end) {                                            \
    /* locals: fields of type T could alias the stores and block hoisting */                                      \
    const T wd = c.wd, decay = c.decay, w1 = c.w1, b2 = c.b2, c2 = c.c2, b2s = c.b2s;                             \
    const T eps = c.eps, step_size = c.step_size, scale = c.scale, sign = c.sign;                                 \
    T root[kBlock];                                                                                               \
    for (int64_t b0 = begin; b0 < end; b0 += kBlock) {                                                            \
      const int64_t n = std::min(kBlock, end - b0);                                                               \
      T* __restrict__ pb = p + b0;                                                                                \
      T* __restrict__ gb = g + b0;                                                                                \
      T* __restrict__ mb = m + b0;                                                                                \
      T* __restrict__ vb = v + b0;                                                                                \
      for (int64_t i = 0; i < n; ++i) {                                                                           \
        T gi = gb[i];                                                                                             \
        if constexpr (Scaled) {                                                                                   \
          gi = gi / scale;                                                                                        \
          gb[i] = gi;                                                                                             \
        }                                                                                                         \
        gi = gi * sign; /* maximize: times -1 is exact negation */                                                \
        T pi = pb[i];                                                                                             \
        if constexpr (Wd == 2) pb[i] = pi * decay;                                                                \
        if constexpr (Wd == 1) gi = gi + wd * pi;                                                                 \
        T mi;                                                                                                     \
        if constexpr (LowW) mi = mb[i] + w1 * (gi - mb[i]);                                                       \
        else mi = gi - (gi - mb[i]) * (T(1) - w1);                                                                \
        T vi = vb[i] * b2;                                                                                        \
        vi = vi + c2 * gi * gi;                                                                                   \
        mb[i] = mi;                                                                                               \
        vb[i] = vi;                                                                                               \
        if constexpr (Ams) {                                                                                      \
          const T old = mx[b0 + i];                                                                               \
          vi = (old != old) ? old : (vi != vi) ? vi : (old > vi ? old : vi);                                      \
          mx[b0 + i] = vi;                                                                                        \
        }                                                                                                         \
        root[i] = vi;                                                                                             \
      }                                                                                                           \
      SQRT<T>(root, n);                                                                                           \
      for (int64_t i = 0; i < n; ++i) {                                                                           \
        T denom = root[i] / b2s;                                                                                  \
        denom = denom + eps;                                                                                      \
        pb[i] = pb[i] + step_size * (mb[i] / denom);                                                              \
      }                                                                                                           \
    }                                                                                                             \
  }

EMBER_ADAM_LOOP(adam_range_base, , sqrt_block_base)
#ifdef EMBER_FUSED_X86
EMBER_ADAM_LOOP(adam_range_avx2, __attribute__((target("avx2"))), sqrt_block_avx2)
bool has_avx2() { return cpu_has_avx2(); }
#endif

template <class T, bool Scaled, int Wd, bool Ams, bool LowW>
void adam_range(T* p, T* g, T* m, T* v, T* mx, const AdamConsts<T> c, int64_t begin, int64_t end) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (has_avx2()) return adam_range_avx2<T, Scaled, Wd, Ams, LowW>(p, g, m, v, mx, c, begin, end);
#endif
  adam_range_base<T, Scaled, Wd, Ams, LowW>(p, g, m, v, mx, c, begin, end);
}

// Runtime options -> the matching instantiation.
template <class T, bool Scaled, int Wd, bool Ams>
auto pick_lerp(bool low) {
  return low ? &adam_range<T, Scaled, Wd, Ams, true> : &adam_range<T, Scaled, Wd, Ams, false>;
}
template <class T, bool Scaled, int Wd>
auto pick_ams(bool ams, bool low) {
  return ams ? pick_lerp<T, Scaled, Wd, true>(low) : pick_lerp<T, Scaled, Wd, false>(low);
}
template <class T, bool Scaled>
auto pick_wd(int wd, bool ams, bool low) {
  return wd == 2   ? pick_ams<T, Scaled, 2>(ams, low)
         : wd == 1 ? pick_ams<T, Scaled, 1>(ams, low)
                   : pick_ams<T, Scaled, 0>(ams, low);
}

template <class T>
void adam_one(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
              const Tensor& max_sq, double step, const AdamArgs& a, const double* grad_scale) {
  T* p = param.data<T>();
  T* g = grad.data<T>();
  T* m = exp_avg.data<T>();
  T* v = exp_avg_sq.data<T>();
  T* mx = a.amsgrad ? max_sq.data<T>() : nullptr;
  const AdamConsts<T> c = adam_consts<T>(a, step, grad_scale);
  const int wd = adam_wd_kind(a);
  const bool low = std::abs(T(1 - a.beta1)) < T(0.5);
  const auto fn = grad_scale ? pick_wd<T, true>(wd, a.amsgrad, low) : pick_wd<T, false>(wd, a.amsgrad, low);
  parallel_for(0, param.numel(), kGrainSize, [&](int64_t begin, int64_t end) { fn(p, g, m, v, mx, c, begin, end); });
}

// SGD's element loop, branch-free per option set (as for Adam). Mom: sgd_momentum_phase.

#define EMBER_SGD_LOOP(NAME, ATTRS)                                                                               \
  template <class T, bool Scaled, bool Wd, int Mom, bool Nesterov>                                                \
  ATTRS void NAME(T* __restrict__ p, T* __restrict__ g, T* __restrict__ buf, const SgdConsts<T> c, int64_t begin, \
                  int64_t end) {                                                                                  \
    const T wd = c.wd, mu = c.mu, keep = c.keep, step = c.step, scale = c.scale, sign = c.sign;                   \
    for (int64_t i = begin; i < end; ++i) {                                                                       \
      T gi = g[i];                                                                                                \
      if constexpr (Scaled) {                                                                                     \
        gi = gi / scale;                                                                                          \
        g[i] = gi;                                                                                                \
      }                                                                                                           \
      gi = gi * sign;                                                                                             \
      if constexpr (Wd) gi = gi + wd * p[i];                                                                      \
      if constexpr (Mom == 1) buf[i] = gi;                                                                        \
      if constexpr (Mom == 2) {                                                                                   \
        T b = buf[i] * mu;                                                                                        \
        b = b + keep * gi;                                                                                        \
        buf[i] = b;                                                                                               \
      }                                                                                                           \
      if constexpr (Mom != 0) gi = Nesterov ? gi + mu * buf[i] : buf[i];                                          \
      p[i] = p[i] + step * gi;                                                                                    \
    }                                                                                                             \
  }

EMBER_SGD_LOOP(sgd_range_base, )
#ifdef EMBER_FUSED_X86
EMBER_SGD_LOOP(sgd_range_avx2, __attribute__((target("avx2"))))
#endif

template <class T, bool Scaled, bool Wd, int Mom, bool Nesterov>
void sgd_range(T* p, T* g, T* buf, const SgdConsts<T> c, int64_t begin, int64_t end) {
#ifdef EMBER_FUSED_X86
  if (has_avx2()) return sgd_range_avx2<T, Scaled, Wd, Mom, Nesterov>(p, g, buf, c, begin, end);
#endif
  sgd_range_base<T, Scaled, Wd, Mom, Nesterov>(p, g, buf, c, begin, end);
}

template <class T, bool Scaled, bool Wd>
auto pick_sgd(int mom, bool nesterov) {
  if (mom == 0) return &sgd_range<T, Scaled, Wd, 0, false>;
  if (mom == 1) return nesterov ? &sgd_range<T, Scaled, Wd, 1, true> : &sgd_range<T, Scaled, Wd, 1, false>;
  return nesterov ? &sgd_range<T, Scaled, Wd, 2, true> : &sgd_range<T, Scaled, Wd, 2, false>;
}

template <class T>
void sgd_one(const Tensor& param, const Tensor& grad, const Tensor& buf_t, const SgdArgs& a, bool first,
             const double* grad_scale) {
  T* p = param.data<T>();
  T* g = grad.data<T>();
  T* buf = a.momentum != 0 ? buf_t.data<T>() : nullptr;
  const SgdConsts<T> c = sgd_consts<T>(a, grad_scale);
  const int mom = sgd_momentum_phase(a, first);
  const bool wd = a.weight_decay != 0;
  const bool nesterov = a.nesterov;
  const auto fn = grad_scale
                      ? (wd ? pick_sgd<T, true, true>(mom, nesterov) : pick_sgd<T, true, false>(mom, nesterov))
                      : (wd ? pick_sgd<T, false, true>(mom, nesterov) : pick_sgd<T, false, false>(mom, nesterov));
  parallel_for(0, param.numel(), kGrainSize, [&](int64_t begin, int64_t end) { fn(p, g, buf, c, begin, end); });
}

}  // namespace

void adam_steps(const AdamItem* items, size_t n, const AdamArgs& a, const double* grad_scale) {
  for (const AdamItem* it = items; it != items + n; ++it) {
    if (it->param.dtype() == ScalarType::Float32)
      adam_one<float>(it->param, it->grad, it->exp_avg, it->exp_avg_sq, it->max_sq, it->step, a, grad_scale);
    else adam_one<double>(it->param, it->grad, it->exp_avg, it->exp_avg_sq, it->max_sq, it->step, a, grad_scale);
  }
}

void sgd_step(const Tensor& param, const Tensor& grad, const Tensor& buf, const SgdArgs& a, bool first,
              const double* grad_scale) {
  if (param.dtype() == ScalarType::Float32) sgd_one<float>(param, grad, buf, a, first, grad_scale);
  else sgd_one<double>(param, grad, buf, a, first, grad_scale);
}

}  // namespace ember::optim
