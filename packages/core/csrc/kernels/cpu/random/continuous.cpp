// The continuous samplers and bernoulli on the CPU (kernels/backend.h, RandomKernels): each
// draws from the generator exactly as PyTorch's CPU kernel does (Note [RNG streams] in
// ops/random/random.cpp) into n contiguous elements of the given dtype.
#include <cmath>
#include <type_traits>

#include "core/scalar_type.h"
#include "kernels/cpu/random/draw.h"
#include "kernels/cpu/random/sample_transforms.h"
#include "kernels/cpu/random/samplers.h"

namespace ember::sampling {

using namespace rng;

namespace {

// ---- uniform ----------------------------------------------------------------

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
        box_muller_f64(d, m, sd);
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

void uniform(ScalarType dt, void* out, int64_t n, double from, double to, Generator* gen) {
  EMBER_DISPATCH_FLOAT(dt, "uniform_kernel_cpu", [&] { uniform_fill(static_cast<scalar_t*>(out), n, from, to, gen); });
}

void normal(ScalarType dt, void* out, int64_t n, bool blocks, double mean, double std, Generator* gen) {
  EMBER_DISPATCH_FLOAT(dt, "normal_kernel_cpu",
                       [&] { normal_fill(static_cast<scalar_t*>(out), n, blocks, mean, std, gen); });
}

void exponential(ScalarType dt, void* out, int64_t n, double lambd, Generator* gen) {
  const double scale = -1.0 / lambd;
  EMBER_DISPATCH_FLOAT(dt, "exponential_cpu", [&] {
    unit_double_map(static_cast<scalar_t*>(out), n, gen, [scale](double u) { return scale * std::log1p(-u); });
  });
}

void cauchy(ScalarType dt, void* out, int64_t n, double median, double sigma, Generator* gen) {
  EMBER_DISPATCH_FLOAT(dt, "cauchy_cpu", [&] {
    unit_double_map(static_cast<scalar_t*>(out), n, gen,
                    [median, sigma](double u) { return std::fma(sigma, std::tan(kPi * (u - 0.5)), median); });
  });
}

void log_normal(ScalarType dt, void* out, int64_t n, double mean, double std, Generator* gen) {
  EMBER_DISPATCH_FLOAT(dt, "log_normal_cpu", [&] {
    auto* o = static_cast<scalar_t*>(out);
    DrawScope s(gen, n);
    normal_doubles(s.gen(), n, mean, std, [&](int64_t i, double v) { o[i] = from_double<scalar_t>(std::exp(v)); });
  });
}

void geometric(ScalarType dt, void* out, int64_t n, double p, Generator* gen) {
  const double denom = std::log1p(-p);
  EMBER_DISPATCH_NO_BOOL(dt, "geometric_cpu", [&] {
    unit_double_map(static_cast<scalar_t*>(out), n, gen, [denom](double u) { return std::ceil(std::log(u) / denom); });
  });
}

void bernoulli(ScalarType dt, void* out, int64_t n, double p, Generator* gen) {
  EMBER_DISPATCH_ALL(dt, "bernoulli_scalar_cpu_", [&] {
    auto* o = static_cast<scalar_t*>(out);
    // unit_double(w) < p  <=>  (w's low 53 bits) < p * 2^53 (exact scaling). Both sides are below
    // 2^54, so the difference's sign bit is the answer: arithmetic that vectorises, where the
    // compare compiled to a branch that mispredicted on random bits (16M draws: 50 -> 20 ms).
    const int64_t threshold = static_cast<int64_t>(std::ceil(p * 9007199254740992.0));
    constexpr uint64_t kLow53 = (uint64_t(1) << 53) - 1;
    DrawScope s(gen, n);
    draw<uint64_t>(s.gen(), n, false, [&](const uint64_t* w, int64_t b, int64_t m) {
      for (int64_t i = 0; i < m; ++i) {
        const auto below =
            static_cast<int32_t>(static_cast<uint64_t>(static_cast<int64_t>(w[i] & kLow53) - threshold) >> 63);
        if constexpr (std::is_arithmetic_v<scalar_t>) o[b + i] = static_cast<scalar_t>(below);
        else o[b + i] = static_cast<scalar_t>(below != 0);
      }
    });
  });
}

void bernoulli_tensor(ScalarType dt, void* out, int64_t n, const void* p, bool p_double, Generator* gen) {
  EMBER_DISPATCH_ALL(dt, "bernoulli_tensor_cpu_self_", [&] {
    using self_t = scalar_t;
    auto* o = static_cast<self_t*>(out);
    DrawScope s(gen, n);
    if (p_double) {
      const auto* pp = static_cast<const double*>(p);
      draw<uint64_t>(s.gen(), n, false, [&](const uint64_t* w, int64_t b, int64_t m) {
        for (int64_t i = 0; i < m; ++i) o[b + i] = from_double<self_t>(unit_double(w[i]) < pp[b + i]);
      });
    } else {
      const auto* pp = static_cast<const float*>(p);
      draw<uint32_t>(s.gen(), n, false, [&](const uint32_t* w, int64_t b, int64_t m) {
        for (int64_t i = 0; i < m; ++i) o[b + i] = from_double<self_t>(unit_float(w[i]) < pp[b + i]);
      });
    }
  });
}

}  // namespace ember::sampling
