// kernels/complex_math.h (the GPU's complex functions) against <complex> (glibc's, the CPU's):
// every pair of special parts (Annex G's infinities, NaNs and signed zeros, the branch points,
// overflow and underflow edges) and random values near the branch points and across magnitudes.
// complex128 in double; complex64 as the GPU computes it (in double, rounded once) against
// glibc's float functions. Prints each mismatch and "N failing".
#include <complex>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "kernels/complex_math.h"

namespace cm = ember::complex_math;

namespace {

struct Pair {
  double re, im;
};

int failing = 0;

// torch.isclose's rule for complex numbers, part by part where a part is infinite.
template <class R>
bool close(std::complex<R> want, Pair got_d, double rtol) {
  const R gr = R(got_d.re), gi = R(got_d.im);
  const bool nan_w = std::isnan(want.real()) || std::isnan(want.imag());
  if (nan_w || std::isnan(gr) || std::isnan(gi)) return nan_w == (std::isnan(gr) || std::isnan(gi));
  const double tiny = std::numeric_limits<R>::min();
  auto part = [&](double g, double w) { return g == w || std::fabs(g - w) <= rtol * std::fabs(w) + tiny; };
  if (std::isinf(want.real()) || std::isinf(want.imag()) || std::isinf(gr) || std::isinf(gi))
    return part(gr, want.real()) && part(gi, want.imag());
  const double d = std::hypot(double(gr) - want.real(), double(gi) - want.imag());
  return d <= rtol * std::hypot(double(want.real()), double(want.imag())) + tiny;
}

template <class R, class Mine, class Ref>
void check_one(const char* name, double x, double y, Mine mine, Ref ref, double rtol) {
  // (volatile: GCC 12's SLP vectorizer here takes double(float(x)) for x, skipping the rounding)
  const volatile R a = R(x), b = R(y);
  const std::complex<R> want = ref(std::complex<R>(a, b));
  const Pair got = mine(Pair{double(a), double(b)});
  if (close(want, got, rtol)) return;
  if (failing++ < 40)
    std::printf("%s<%s>(%.17g, %.17g): glibc (%.17g, %.17g), ours (%.17g, %.17g)\n", name, sizeof(R) == 4 ? "f" : "d",
                double(a), double(b), double(want.real()), double(want.imag()), got.re, got.im);
}

std::vector<double> special_parts() {
  const double inf = std::numeric_limits<double>::infinity();
  return {0.,
          -0.,
          1.,
          -1.,
          0.5,
          -0.5,
          2.,
          -2.,
          1e-3,
          -1e-3,
          1e-10,
          -1e-10,
          1e3,
          -1e3,
          1e10,
          -1e10,
          1e30,
          -1e30,
          0.999,
          -0.999,
          1.001,
          -1.001,
          1.5707963267948966,
          100.,
          -100.,
          710.,
          88.,
          -3.5,
          0.25,
          1e-30,
          3e38,
          1e300,
          inf,
          -inf,
          std::numeric_limits<double>::quiet_NaN()};
}

// Random parts: a third across magnitudes 1e-13..1e13, some near +-1, some tiny, the rest in [-4, 4].
double random_part(std::mt19937_64& g) {
  std::uniform_real_distribution<double> u(0, 1);
  const double k = u(g), s = u(g) < 0.5 ? -1 : 1;
  if (k < 0.3) return s * std::exp(u(g) * 60 - 30);
  if (k < 0.5) return s * (1 + (u(g) - 0.5) * std::exp(-u(g) * 40));
  if (k < 0.6) return s * std::exp(-u(g) * 40);
  return (u(g) - 0.5) * 8;
}

template <class Mine, class RefD, class RefF>
void check(const char* name, Mine mine, RefD ref_d, RefF ref_f, int randoms) {
  const std::vector<double> parts = special_parts();
  for (double x : parts)
    for (double y : parts) {
      check_one<double>(name, x, y, mine, ref_d, 1e-14);
      check_one<float>(name, x, y, mine, ref_f, 6e-7);  // (glibc's float functions: a few ulps)
    }
  std::mt19937_64 g(7);
  for (int i = 0; i < randoms; ++i) {
    const double x = random_part(g), y = random_part(g);
    check_one<double>(name, x, y, mine, ref_d, 1e-13);
    check_one<float>(name, x, y, mine, ref_f, 6e-7);  // (glibc's float functions: a few ulps)
  }
}

}  // namespace

#define CHECK(f, n)                                                                          \
  check(                                                                                     \
      #f, [](Pair z) { return cm::f(z); }, [](std::complex<double> z) { return std::f(z); }, \
      [](std::complex<float> z) { return std::f(z); }, n)

int main(int argc, char** argv) {
  const int n = argc > 1 && std::string(argv[1]) == "--quick" ? 20000 : 400000;
  CHECK(exp, n);
  CHECK(log, n);
  CHECK(sqrt, n);
  CHECK(sinh, n);
  CHECK(cosh, n);
  CHECK(tanh, n);
  CHECK(sin, n);
  CHECK(cos, n);
  CHECK(tan, n);
  CHECK(asinh, n);
  CHECK(asin, n);
  CHECK(acos, n);
  CHECK(acosh, n);
  CHECK(atanh, n);
  CHECK(atan, n);
  std::printf("%d failing\n", failing);
  return failing ? 1 : 0;
}
