// Continuous samplers: uniform_, normal_, exponential_, cauchy_, log_normal_,
// geometric_, bernoulli_ (in place; the factories in sampling_ops.cpp call these).
//
// Note [RNG streams]
// Each sampler consumes the generator exactly as PyTorch's CPU kernel does --
// which draws (32- or 64-bit), how many, in which element order, and the same
// transform -- so ember.manual_seed(s) then any op gives PyTorch's numbers.
// Words are drawn serially in bulk (that *is* the stream); the transforms
// after them run vectorised and, where costly, on threads. So the numbers
// never depend on set_num_threads.
#include <limits>

#include "core/cpu_capability.h"
#include "kernels/cpu/vec_math.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/random/random.h"
#include "ops/random/random_internal.h"

// x86 builds add AVX2+FMA versions of the vector loops, picked at run time.
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define EMBER_RNG_X86 1
#endif

namespace ember {

namespace rng {
DimVector iteration_strides(const Tensor& self) {
  // PyTorch's TensorIterator order for one operand: insertion-sort dims by
  // stride (innermost first); equal strides put the smaller size inside.
  int64_t nd = self.dim();
  IntArrayRef sz = self.sizes(), st = self.strides();
  DimVector perm(nd);
  for (int64_t d = 0; d < nd; ++d) perm[d] = nd - 1 - d;
  auto should_swap = [&](int64_t inner, int64_t outer) {
    int64_t a = st[inner], b = st[outer];
    if (a == 0 || b == 0) return false;
    if (a != b) return a > b;
    return sz[inner] > sz[outer];
  };
  for (int64_t i = 1; i < nd; ++i)
    for (int64_t j = i; j > 0 && should_swap(perm[j - 1], perm[j]); --j) std::swap(perm[j - 1], perm[j]);
  DimVector out(nd);
  int64_t s = 1;
  for (int64_t k = 0; k < nd; ++k) {
    out[perm[k]] = s;
    s *= std::max<int64_t>(sz[perm[k]], 1);
  }
  return out;
}
}  // namespace rng

using namespace rng;

namespace {

// Common preamble of the in-place samplers once their argument checks passed:
// false when there is nothing to write.
bool prepare_target(const Tensor& self, const char* name) {
  check_inplace(self, name);
  if (self.numel() == 0) return false;
  check_no_internal_overlap(self);
  return true;
}

// (the autograd wrapper then marks self overwritten: yaml grad: overwritten)
void finish(const Tensor& self) { self.bump_version(); }

// What PyTorch names a dtype in "... is out of bounds for float" (its TypeMeta name).
const char* meta_name(ScalarType t) { return c_type_name(t); }

// ---- uniform ----------------------------------------------------------------

// x * (to - from) + from, fused as PyTorch's vectorised build computes it, and
// a value that rounds up to `to` becomes `from` (the range is half-open).
// Built twice, picked by CPU features: without hardware FMA the fused
// multiply-add is a libm call per element.
template <bool kFma>
EMBER_VEC_INLINE void uniform_f32_body(const uint32_t* __restrict w, float* __restrict out, int64_t n, float from,
                                       float to) {
  const float range = to - from;
  for (int64_t i = 0; i < n; ++i) {
    const float x = unit_float(w[i]);
    const float v = kFma ? __builtin_fmaf(x, range, from) : std::fma(x, range, from);
    out[i] = vec::detail::sel(v == to, from, v);
  }
}
#ifdef EMBER_RNG_X86
bool has_avx2_fma() { return cpu_has_avx2(); }
__attribute__((target("avx2,fma"))) void uniform_f32_avx2(const uint32_t* w, float* out, int64_t n, float from,
                                                          float to) {
  uniform_f32_body<true>(w, out, n, from, to);
}
#endif
void uniform_f32(const uint32_t* w, float* out, int64_t n, float from, float to) {
#ifdef EMBER_RNG_X86
  if (has_avx2_fma()) return uniform_f32_avx2(w, out, n, from, to);
#endif
  uniform_f32_body<false>(w, out, n, from, to);
}

template <bool kFma>
EMBER_VEC_INLINE void uniform_f64_body(const uint64_t* __restrict w, double* __restrict out, int64_t n, double from,
                                       double to) {
  const double range = to - from;
  for (int64_t i = 0; i < n; ++i) {
    const double x = unit_double(w[i]);
    const double v = kFma ? __builtin_fma(x, range, from) : std::fma(x, range, from);
    out[i] = v == to ? from : v;
  }
}
#ifdef EMBER_RNG_X86
__attribute__((target("avx2,fma"))) void uniform_f64_avx2(const uint64_t* w, double* out, int64_t n, double from,
                                                          double to) {
  uniform_f64_body<true>(w, out, n, from, to);
}
#endif
void uniform_f64(const uint64_t* w, double* out, int64_t n, double from, double to) {
#ifdef EMBER_RNG_X86
  if (has_avx2_fma()) return uniform_f64_avx2(w, out, n, from, to);
#endif
  uniform_f64_body<false>(w, out, n, from, to);
}

template <class T>
void uniform_fill(T* out, int64_t n, double from, double to, Generator* gen) {
  DrawScope s(gen, n);
  if constexpr (std::is_same_v<T, double>) {
    draw<uint64_t>(s.gen(), n, false,
                   [&](const uint64_t* w, int64_t b, int64_t m) { uniform_f64(w, out + b, m, from, to); });
  } else if constexpr (std::is_same_v<T, float>) {
    draw<uint32_t>(s.gen(), n, false, [&](const uint32_t* w, int64_t b, int64_t m) {
      uniform_f32(w, out + b, m, static_cast<float>(from), static_cast<float>(to));
    });
  } else {  // half / bfloat16: drawn as float, then rounded
    const float f = static_cast<float>(from), t = static_cast<float>(to);
    const float tq = static_cast<float>(T(t)), range = t - f;
    draw<uint32_t>(s.gen(), n, false, [&](const uint32_t* w, int64_t b, int64_t m) {
      for (int64_t i = 0; i < m; ++i) {
        T v(std::fma(unit_float(w[i]), range, f));
        out[b + i] = static_cast<float>(v) == tq ? T(f) : v;
      }
    });
  }
}

// ---- normal -----------------------------------------------------------------

// PyTorch's normal_fill_16: Box-Muller over 8 pairs (u1 = 1 - d[j], u2 = d[j+8]).
// Doubles use libm as PyTorch does, so double results match it bit for bit.
inline void box_muller16(double* d, double mean, double std) {
  for (int j = 0; j < 8; ++j) {
    const double u1 = 1 - d[j];
    const double u2 = d[j + 8];
    const double radius = std::sqrt(-2 * std::log(u1));
    const double theta = 2.0 * kPi * u2;
    d[j] = std::fma(radius * std::cos(theta), std, mean);
    d[j + 8] = std::fma(radius * std::sin(theta), std, mean);
  }
}

// The same over many float blocks, 8 lanes at a time with ember's vectorised
// log/sin/cos (<= 1.5 ulp). PyTorch's vectorised builds use approximations of
// their own here, so float normals agree with PyTorch's to ~1e-6, not bitwise.
// Three passes, each a clean vector loop: sqrt sits alone in the middle one
// because a libm sqrt call (errno) would keep the others from vectorising.
EMBER_VEC_INLINE void box_muller_f32_prep(float* d, int64_t nblocks) {
  for (int64_t k = 0; k < nblocks; ++k) {
    float* b = d + 16 * k;
#pragma omp simd
    for (int j = 0; j < 8; ++j) {
      b[j] = -2.0f * vec::log(1.0f - b[j]);                                      // radius^2
      b[j + 8] = static_cast<float>(2.0 * kPi * static_cast<double>(b[j + 8]));  // theta
    }
  }
}
template <bool kFma>
EMBER_VEC_INLINE void box_muller_f32_finish(float* d, int64_t nblocks, float mean, float std) {
  for (int64_t k = 0; k < nblocks; ++k) {
    float* b = d + 16 * k;
#pragma omp simd
    for (int j = 0; j < 8; ++j) {
      const float radius = b[j], theta = b[j + 8];
      const float c = radius * vec::cos(theta), s = radius * vec::sin(theta);
      b[j] = kFma ? __builtin_fmaf(c, std, mean) : c * std + mean;
      b[j + 8] = kFma ? __builtin_fmaf(s, std, mean) : s * std + mean;
    }
  }
}
#ifdef EMBER_RNG_X86
__attribute__((target("avx2,fma"))) void box_muller_f32_avx2(float* d, int64_t nblocks, float mean, float std) {
  box_muller_f32_prep(d, nblocks);
  for (int64_t k = 0; k < nblocks; ++k) _mm256_storeu_ps(d + 16 * k, _mm256_sqrt_ps(_mm256_loadu_ps(d + 16 * k)));
  box_muller_f32_finish<true>(d, nblocks, mean, std);
}
#endif
void box_muller_f32_base(float* d, int64_t nblocks, float mean, float std) {
  box_muller_f32_prep(d, nblocks);
  for (int64_t k = 0; k < nblocks; ++k)
    for (int j = 0; j < 8; ++j) d[16 * k + j] = std::sqrt(d[16 * k + j]);
  box_muller_f32_finish<false>(d, nblocks, mean, std);
}
void box_muller_f32(float* d, int64_t nblocks, float mean, float std) {
#ifdef EMBER_RNG_X86
  if (has_avx2_fma()) return box_muller_f32_avx2(d, nblocks, mean, std);
#endif
  box_muller_f32_base(d, nblocks, mean, std);
}

// The contiguous path (n >= 16): uniforms in blocks of 16 made normal in place;
// a ragged end is redone from 16 fresh uniforms. float/double draw all n
// uniforms first, half/bfloat16 only the full blocks (PyTorch's two loops).
template <class T>
void normal_fill_blocks(T* out, int64_t n, double mean, double std, Generator& g) {
  using Op = opmath_t<T>;
  using Word = std::conditional_t<std::is_same_v<Op, double>, uint64_t, uint32_t>;
  const Op m = static_cast<Op>(mean), sd = static_cast<Op>(std);
  // nb blocks of words -> nb blocks of normals at dst.
  auto blocks = [&](const Word* w, T* dst, int64_t nb) {
    if constexpr (std::is_same_v<Op, double>) {
      for (int64_t k = 0; k < nb; ++k) {
        double d[16];
        for (int j = 0; j < 16; ++j) d[j] = unit_double(w[16 * k + j]);
        box_muller16(d, m, sd);
        for (int j = 0; j < 16; ++j) dst[16 * k + j] = static_cast<T>(d[j]);
      }
    } else {
      constexpr int64_t kBatch = 64;
      float buf[16 * kBatch];
      for (int64_t k0 = 0; k0 < nb; k0 += kBatch) {
        const int64_t kb = std::min(kBatch, nb - k0), cnt = 16 * kb;
        const Word* src = w + 16 * k0;
        for (int64_t i = 0; i < cnt; ++i) buf[i] = unit_float(src[i]);
        box_muller_f32(buf, kb, m, sd);
        T* o = dst + 16 * k0;
        for (int64_t i = 0; i < cnt; ++i) o[i] = static_cast<T>(buf[i]);
      }
    }
  };
  const int64_t full = n / 16;
  // Vectorised float blocks cost ~1 ns per element: threads only pay off for big ones.
  const int64_t grain = (std::is_same_v<Op, double> ? kTransformGrain : kVectorGrain) / 16;
  if constexpr (std::is_same_v<T, Op>) {
    // float/double: PyTorch draws all n uniforms first. A word is as wide as an
    // element, so draw into the output itself and transform it in one pass.
    Word* w = reinterpret_cast<Word*>(out);
    if constexpr (sizeof(Word) == 4) g.fill32(w, n);
    else g.fill64(w, n);
    parallel_for(0, full, grain, [&](int64_t s, int64_t e) { blocks(w + s * 16, out + s * 16, e - s); });
  } else {
    draw<Word>(g, full * 16, false, [&](const Word* w, int64_t b, int64_t cnt) {
      // Rounds start on a block boundary (kChunk is a multiple of 16).
      parallel_for(b / 16, (b + cnt) / 16, grain,
                   [&](int64_t s, int64_t e) { blocks(w + (s * 16 - b), out + s * 16, e - s); });
    });
  }
  if (n % 16 != 0) {
    Word w[16];
    if constexpr (sizeof(Word) == 4) g.fill32(w, 16);
    else g.fill64(w, 16);
    blocks(w, out + n - 16, 1);
  }
}

template <class T>
void normal_fill(T* out, int64_t n, bool blocks, double mean, double std, Generator* gen) {
  DrawScope s(gen, n);
  if (blocks) {
    normal_fill_blocks(out, n, mean, std, s.gen());
  } else {
    normal_doubles(s.gen(), n, mean, std, [&](int64_t i, double v) { out[i] = from_double<T>(v); });
  }
}

// Elementwise transforms of one 64-bit uniform draw, in double (PyTorch's
// exponential/cauchy/geometric distributions), threaded: they are the costly part.
template <class T, class F>
void unit_double_map(T* out, int64_t n, Generator* gen, const F& f) {
  DrawScope s(gen, n);
  draw<uint64_t>(s.gen(), n, true, [&](const uint64_t* w, int64_t b, int64_t m) {
    for (int64_t i = 0; i < m; ++i) out[b + i] = from_double<T>(f(unit_double(w[i])));
  });
}

}  // namespace

// ---- public ops ---------------------------------------------------------------

Tensor uniform_(const Tensor& self, double from, double to, Generator* gen) {
  check_inplace(self, "uniform_");
  ScalarType dt = self.dtype();
  if (is_complex(dt)) {  // PyTorch: real and imaginary parts each uniform in [from, to)
    uniform_(view_as_real(self), from, to, gen);
    return self;
  }
  EMBER_DISPATCH_FLOAT(dt, "check_uniform_bounds", [&] {
    const double hi = float_max<scalar_t>(), lo = -hi;
    EMBER_CHECK(from >= lo && from <= hi, "from is out of bounds for ", meta_name(dt));
    EMBER_CHECK(to >= lo && to <= hi, "to is out of bounds for ", meta_name(dt));
    EMBER_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from, " > to=", to);
    EMBER_CHECK(to - from <= hi, "uniform_ expects to-from <= std::numeric_limits<", legacy_name(dt),
                ">::max(), but found to=", to, " and from=", from, " which result in to-from to exceed the limit");
  });
  if (!prepare_target(self, "uniform_")) return self;
  EMBER_DISPATCH_FLOAT(dt, "uniform_kernel_cpu", [&] {
    fill_in_order(self, [&](char* p, int64_t n) { uniform_fill(reinterpret_cast<scalar_t*>(p), n, from, to, gen); });
  });
  finish(self);
  return self;
}

Tensor normal_(const Tensor& self, double mean, double std, Generator* gen) {
  check_inplace(self, "normal_");
  EMBER_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  if (self.numel() == 0) return self;
  ScalarType dt = self.dtype();
  if (is_complex(dt)) {  // PyTorch: real and imaginary parts each with half the variance
    normal_(view_as_real(self), mean, std / std::sqrt(2.0), gen);
    return self;
  }
  EMBER_DISPATCH_FLOAT(dt, "normal_kernel_cpu", [&] {
    // PyTorch takes its blockwise path only for contiguous targets of 16 or more.
    bool blocks = self.is_contiguous() && self.numel() >= 16;
    if (!self.is_contiguous()) check_no_internal_overlap(self);
    fill_in_order(self,
                  [&](char* p, int64_t n) { normal_fill(reinterpret_cast<scalar_t*>(p), n, blocks, mean, std, gen); });
  });
  finish(self);
  return self;
}

Tensor exponential_(const Tensor& self, double lambd, Generator* gen) {
  EMBER_CHECK(lambd > 0.0, "exponential_ expects lambda > 0.0, but found lambda=", lambd);
  if (!prepare_target(self, "exponential_")) return self;
  EMBER_CHECK(self.is_floating(),
              "Exponential distribution is a continuous probability distribution. "
              "dtype must be a floating point but you specified ",
              legacy_name(self.dtype()));
  const double scale = -1.0 / lambd;
  EMBER_DISPATCH_FLOAT(self.dtype(), "exponential_cpu", [&] {
    fill_in_order(self, [&](char* p, int64_t n) {
      unit_double_map(reinterpret_cast<scalar_t*>(p), n, gen, [scale](double u) { return scale * std::log1p(-u); });
    });
  });
  finish(self);
  return self;
}

Tensor cauchy_(const Tensor& self, double median, double sigma, Generator* gen) {
  EMBER_CHECK(sigma > 0.0, "cauchy_ expects sigma > 0.0, but found sigma=", sigma);
  EMBER_CHECK(self.is_floating(),
              "Cauchy distribution is a continuous probability distribution. "
              "dtype must be a floating point but you specified ",
              meta_name(self.dtype()));
  if (!prepare_target(self, "cauchy_")) return self;
  EMBER_DISPATCH_FLOAT(self.dtype(), "cauchy_cpu", [&] {
    fill_in_order(self, [&](char* p, int64_t n) {
      unit_double_map(reinterpret_cast<scalar_t*>(p), n, gen,
                      [median, sigma](double u) { return std::fma(sigma, std::tan(kPi * (u - 0.5)), median); });
    });
  });
  finish(self);
  return self;
}

Tensor log_normal_(const Tensor& self, double mean, double std, Generator* gen) {
  EMBER_CHECK(std > 0.0, "log_normal_ expects std > 0.0, but found std=", std);
  if (!prepare_target(self, "log_normal_")) return self;
  EMBER_DISPATCH_FLOAT(self.dtype(), "log_normal_cpu", [&] {
    fill_in_order(self, [&](char* p, int64_t n) {
      auto* out = reinterpret_cast<scalar_t*>(p);
      DrawScope s(gen, n);
      normal_doubles(s.gen(), n, mean, std, [&](int64_t i, double v) { out[i] = from_double<scalar_t>(std::exp(v)); });
    });
  });
  finish(self);
  return self;
}

Tensor geometric_(const Tensor& self, double p, Generator* gen) {
  EMBER_CHECK(0 < p && p < 1, "geometric_ expects p to be in (0, 1), but got p=", p);
  if (!prepare_target(self, "geometric_")) return self;
  const double denom = std::log1p(-p);
  EMBER_DISPATCH_NO_BOOL(self.dtype(), "geometric_cpu", [&] {
    fill_in_order(self, [&](char* ptr, int64_t n) {
      unit_double_map(reinterpret_cast<scalar_t*>(ptr), n, gen,
                      [denom](double u) { return std::ceil(std::log(u) / denom); });
    });
  });
  finish(self);
  return self;
}

Tensor bernoulli_(const Tensor& self, double p, Generator* gen) {
  EMBER_CHECK(0 <= p && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  if (!prepare_target(self, "bernoulli_")) return self;
  EMBER_DISPATCH_ALL(self.dtype(), "bernoulli_scalar_cpu_", [&] {
    fill_in_order(self, [&](char* ptr, int64_t n) {
      auto* out = reinterpret_cast<scalar_t*>(ptr);
      // unit_double(w) < p  <=>  (w's low 53 bits) < p * 2^53 (exact scaling), an
      // integer compare that vectorises.
      const uint64_t threshold = static_cast<uint64_t>(std::ceil(p * 9007199254740992.0));
      constexpr uint64_t kLow53 = (uint64_t(1) << 53) - 1;
      DrawScope s(gen, n);
      draw<uint64_t>(s.gen(), n, false, [&](const uint64_t* w, int64_t b, int64_t m) {
        for (int64_t i = 0; i < m; ++i) out[b + i] = static_cast<scalar_t>((w[i] & kLow53) < threshold);
      });
    });
  });
  finish(self);
  return self;
}

Tensor bernoulli_(const Tensor& self, const Tensor& p, Generator* gen) {
  if (!prepare_target(self, "bernoulli_")) return self;
  Tensor pe = expand(p, self.sizes(), false);
  if (!is_floating(p.dtype())) dtype_not_implemented("bernoulli_tensor_cpu_p_", p.dtype());
  // p in self's iteration order, as the type PyTorch compares in (double stays
  // double, narrower floats become float).
  const bool dbl = p.dtype() == ScalarType::Float64;
  Tensor pv = empty_strided(self.sizes(), iteration_strides(self), dbl ? ScalarType::Float64 : ScalarType::Float32);
  copy_into(pv, pe);
  const int64_t n = pv.numel();
  EMBER_DISPATCH_FLOAT(pv.dtype(), "bernoulli_tensor_cpu_p_", [&] {
    const scalar_t* pp = pv.data<scalar_t>();
    for (int64_t i = 0; i < n; ++i)
      EMBER_CHECK(pp[i] >= 0 && pp[i] <= 1,
                  "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
                  "message be improved?  If so, please report an enhancement request to PyTorch.)");
  });
  EMBER_DISPATCH_ALL(self.dtype(), "bernoulli_tensor_cpu_self_", [&] {
    using self_t = scalar_t;
    fill_in_order(self, [&](char* ptr, int64_t cnt) {
      auto* out = reinterpret_cast<self_t*>(ptr);
      DrawScope s(gen, cnt);
      if (dbl) {
        const double* pp = pv.data<double>();
        draw<uint64_t>(s.gen(), cnt, false, [&](const uint64_t* w, int64_t b, int64_t m) {
          for (int64_t i = 0; i < m; ++i) out[b + i] = from_double<self_t>(unit_double(w[i]) < pp[b + i]);
        });
      } else {
        const float* pp = pv.data<float>();
        draw<uint32_t>(s.gen(), cnt, false, [&](const uint32_t* w, int64_t b, int64_t m) {
          for (int64_t i = 0; i < m; ++i) out[b + i] = from_double<self_t>(unit_float(w[i]) < pp[b + i]);
        });
      }
    });
  });
  finish(self);
  return self;
}

}  // namespace ember
