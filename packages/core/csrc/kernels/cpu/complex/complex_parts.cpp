// complex() / polar(), conj_physical and angle over dense buffers (kernels/backend.h,
// ComplexKernels::from_parts / conj / angle).
#include "kernels/cpu/complex/complex_parts.h"

#include <cmath>
#include <complex>

#include "core/half.h"
#include "core/parallel.h"
#include "kernels/cpu/complex/complex_angle.h"

namespace ember {

namespace {

// out[i] = f(a[i], b[i]): a complex result from two real parts.
template <class F>
void from_parts(ScalarType ct, const void* a, const void* b, void* out, int64_t n, F f) {
  if (ct == ScalarType::ComplexHalf) {  // complex() of two float16 parts: the parts as they are
    const auto* pa = static_cast<const Half*>(a);
    const auto* pb = static_cast<const Half*>(b);
    auto* pr = static_cast<ComplexHalf*>(out);
    parallel_for(0, n, kGrainSize, [&](int64_t s, int64_t e) {
      for (int64_t i = s; i < e; ++i) pr[i] = ComplexHalf(pa[i], pb[i]);
    });
    return;
  }
  EMBER_DISPATCH_COMPLEX(ct, "complex", [&] {
    using R = typename scalar_t::value_type;
    const R* pa = static_cast<const R*>(a);
    const R* pb = static_cast<const R*>(b);
    scalar_t* pr = static_cast<scalar_t*>(out);
    parallel_for(0, n, kGrainSize, [&](int64_t s, int64_t e) {
      for (int64_t i = s; i < e; ++i) pr[i] = f(pa[i], pb[i]);
    });
  });
}

}  // namespace

void complex_from_parts(ScalarType ct, const void* a, const void* b, void* out, int64_t n, bool polar) {
  if (polar)
    from_parts(ct, a, b, out, n,
               [](auto r, auto th) { return std::complex<decltype(r)>(r * std::cos(th), r * std::sin(th)); });
  else from_parts(ct, a, b, out, n, [](auto re, auto im) { return std::complex<decltype(re)>(re, im); });
}

void complex_conj(ScalarType ct, const void* in, void* out, int64_t n) {
  if (ct == ScalarType::ComplexHalf) {  // a float16 part's sign is its top bit
    const auto* p = static_cast<const uint16_t*>(in);
    auto* q = static_cast<uint16_t*>(out);
    GilRelease nogil;
    parallel_for(0, n, kGrainSize, [&](int64_t s, int64_t e) {
      for (int64_t i = 2 * s; i < 2 * e; i += 2) {
        q[i] = p[i];
        q[i + 1] = static_cast<uint16_t>(p[i + 1] ^ 0x8000u);
      }
    });
    return;
  }
  EMBER_DISPATCH_COMPLEX(ct, "conj_physical", [&] {
    using R = typename scalar_t::value_type;  // as interleaved reals: every odd one changes sign
    const R* p = static_cast<const R*>(in);
    R* q = static_cast<R*>(out);
    GilRelease nogil;
    parallel_for(0, n, kGrainSize, [&](int64_t s, int64_t e) {
      for (int64_t i = 2 * s; i < 2 * e; i += 2) {
        q[i] = p[i];
        q[i + 1] = -p[i + 1];
      }
    });
  });
}

void complex_angle(ScalarType dt, const void* in, void* out, int64_t n) {
  if (is_complex(dt)) {
    EMBER_DISPATCH_COMPLEX(dt, "angle", [&] {
      using R = typename scalar_t::value_type;
      const scalar_t* px = static_cast<const scalar_t*>(in);
      R* pr = static_cast<R*>(out);
      GilRelease nogil;
      parallel_for(0, n, kGrainSize,
                   [&](int64_t s, int64_t e) { complex_angle_run(reinterpret_cast<const R*>(px + s), pr + s, e - s); });
    });
    return;
  }
  EMBER_DISPATCH_FLOAT(dt, "angle", [&] {
    using M = opmath_t<scalar_t>;
    const scalar_t* px = static_cast<const scalar_t*>(in);
    scalar_t* pr = static_cast<scalar_t*>(out);
    parallel_for(0, n, kGrainSize, [&](int64_t s, int64_t e) {
      for (int64_t i = s; i < e; ++i) {
        const M v = static_cast<M>(px[i]);
        pr[i] = static_cast<scalar_t>(std::isnan(v) ? v : v < 0 ? static_cast<M>(M_PI) : M(0));
      }
    });
  });
}

}  // namespace ember
