// Accuracy and throughput check for ember::vec (csrc/kernels/cpu/vec_math.h).
//
// Build and run (from packages/core), once per target:
//   g++ -std=c++17 -O3 -fopenmp -Icsrc tests/cpp/vec_math_check.cpp -o /tmp/vmc && /tmp/vmc
//   ... -mavx2 -mfma ...        ... -mavx512f ...
// Options: --quick (fewer samples, small benchmark), --no-bench,
//          --exhaustive[=exp,log,...] (every float bit pattern for the float
//          functions, threaded with OpenMP; minutes per function on 2 cores).
// Vectorisation: add -fopt-info-vec-optimized; each VEC_F / VEC_D line below
// must be reported as "loop vectorized" (the function is named on that line).
// Exit status is non-zero if any function exceeds kMaxUlp or gets a special
// value wrong.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "kernels/cpu/vec_erfc.h"
#include "kernels/cpu/vec_hyperbolic.h"
#include "kernels/cpu/vec_inverse_trig.h"
#include "kernels/cpu/vec_lgamma.h"
#include "kernels/cpu/vec_math.h"

namespace {

constexpr double kMaxUlp = 2.0;

// What code would call without ember::vec.
namespace base {
using std::cos; using std::erf; using std::erfc; using std::exp; using std::exp2; using std::expm1; using std::log;
using std::log10; using std::log1p; using std::log2; using std::sin; using std::tan; using std::tanh;
using std::acos; using std::acosh; using std::asin; using std::asinh; using std::atan; using std::atanh;
using std::cosh; using std::sinh;
template <class T> T sigmoid(T x) { return T(1) / (T(1) + std::exp(-x)); }
}  // namespace base

#define NOINL __attribute__((noinline))
#define LOOP(T, F)                                                              \
  NOINL void F##_##T(const T* __restrict a, T* __restrict o, int64_t n) {      \
    _Pragma("omp simd") for (int64_t i = 0; i < n; ++i) o[i] = F(a[i]);         \
  }
#define VEC_F(name) namespace v { using ember::vec::name; LOOP(float, name) }
#define VEC_D(name) namespace v { using ember::vec::name; LOOP(double, name) }
#define STD_FD(name) namespace s { using base::name; LOOP(float, name) LOOP(double, name) }
// One function per line so -fopt-info-vec reports can be matched to names.
VEC_F(exp)
VEC_D(exp)
VEC_F(exp2)
VEC_D(exp2)
VEC_F(expm1)
VEC_D(expm1)
VEC_F(log)
VEC_D(log)
VEC_F(log2)
VEC_D(log2)
VEC_F(log10)
VEC_D(log10)
VEC_F(log1p)
VEC_D(log1p)
VEC_F(sin)
VEC_D(sin)
VEC_F(cos)
VEC_D(cos)
VEC_F(tan)
VEC_D(tan)
VEC_F(tanh)
VEC_D(tanh)
VEC_F(sigmoid)
VEC_D(sigmoid)
VEC_F(erf)
VEC_D(erf)
VEC_F(erfc)
VEC_D(erfc)
VEC_F(atan)
VEC_D(atan)
VEC_F(asin)
VEC_D(asin)
VEC_F(acos)
VEC_D(acos)
VEC_F(sinh)
VEC_D(sinh)
VEC_F(cosh)
VEC_D(cosh)
VEC_F(asinh)
VEC_D(asinh)
VEC_F(acosh)
VEC_D(acosh)
VEC_F(atanh)
VEC_D(atanh)
STD_FD(exp) STD_FD(exp2) STD_FD(expm1) STD_FD(log) STD_FD(log2) STD_FD(log10) STD_FD(log1p)
STD_FD(sin) STD_FD(cos) STD_FD(tan) STD_FD(tanh) STD_FD(sigmoid) STD_FD(erf) STD_FD(erfc)
STD_FD(atan) STD_FD(asin) STD_FD(acos) STD_FD(sinh) STD_FD(cosh) STD_FD(asinh) STD_FD(acosh) STD_FD(atanh)

// Input distributions: uniform on [lo, hi], log-uniform |x| in [2^lo, 2^hi] with
// random sign (or positive), or random bit patterns.
enum Kind { U, LOG, LOGPOS, BITS, NEARPI2 };
struct Dom { Kind k; double lo, hi; };

template <class T> using Loop = void (*)(const T*, T*, int64_t);
struct Fn {
  const char* name;
  Loop<float> vf, sf;
  Loop<double> vd, sd;
  double (*ref_f)(double);            // reference for float inputs
  long double (*ref_d)(long double);  // reference for double inputs
  std::vector<Dom> dom_f, dom_d;
  double bench_lo, bench_hi;          // benchmark input range
};

#define ENTRY(name) #name, v::name##_float, s::name##_float, v::name##_double, s::name##_double, \
  [](double x) { return base::name(x); }, [](long double x) { return base::name(x); }

const double kPi = 3.14159265358979323846;
// Per function: test distributions for float, then double, then the benchmark range.
std::vector<Fn> functions() {
  const Dom bits{BITS, 0, 0}, small{LOG, -60, 0}, near1{U, 0.5, 2}, pm1{U, -1, 1};
  const Dom posf{LOGPOS, -150, 128}, posd{LOGPOS, -1075, 1024};
  const std::vector<Dom> trig_f = {{U, -10, 10}, {U, -1e5, 1e5}, {U, -0x1p24, 0x1p24},
                                   {NEARPI2, 0, 1e5}, small};
  const std::vector<Dom> trig_d = {{U, -10, 10}, {U, -1e5, 1e5}, {U, -0x1p26, 0x1p26},
                                   {NEARPI2, 0, 1e7}, small};
  return {
      {ENTRY(exp), {{U, -105, 90}, small, bits}, {{U, -750, 712}, small, bits}, -10, 10},
      {ENTRY(exp2), {{U, -152, 130}, small, bits}, {{U, -1080, 1030}, small, bits}, -10, 10},
      {ENTRY(expm1), {{U, -20, 90}, pm1, small, bits}, {{U, -40, 712}, pm1, small, bits}, -10, 10},
      {ENTRY(log), {posf, near1, bits}, {posd, near1, bits}, 0.01, 100},
      {ENTRY(log2), {posf, near1, bits}, {posd, near1, bits}, 0.01, 100},
      {ENTRY(log10), {posf, near1, bits}, {posd, near1, bits}, 0.01, 100},
      {ENTRY(log1p), {{U, -1, 4}, {LOGPOS, -60, 128}, small, bits},
       {{U, -1, 4}, {LOGPOS, -60, 1024}, small, bits}, -0.5, 10},
      {ENTRY(sin), trig_f, trig_d, -10, 10},
      {ENTRY(cos), trig_f, trig_d, -10, 10},
      {ENTRY(tan), trig_f, trig_d, -10, 10},
      {ENTRY(tanh), {{U, -10, 10}, pm1, small, bits}, {{U, -20, 20}, pm1, small, bits}, -5, 5},
      {ENTRY(sigmoid), {{U, -110, 110}, {U, -10, 10}, small, bits},
       {{U, -750, 750}, {U, -10, 10}, small, bits}, -10, 10},
      {ENTRY(erf), {{U, -5, 5}, pm1, small, bits}, {{U, -7, 7}, {U, -2, 2}, small, bits}, -3, 3},
      // double erfc is glibc's (vec_erfc.h): no double domains, no double row
      {ENTRY(erfc), {{U, -5, 11}, {U, 9, 10.2}, pm1, small, bits}, {}, -3, 3},
      {ENTRY(atan), {{U, -10, 10}, pm1, {LOG, -60, 128}, bits}, {{U, -10, 10}, pm1, {LOG, -60, 1024}, bits}, -10, 10},
      {ENTRY(asin), {pm1, {U, 0.4, 0.6}, {U, 0.9, 1}, small, bits}, {pm1, {U, 0.4, 0.6}, {U, 0.9, 1}, small, bits},
       -1, 1},
      {ENTRY(acos), {pm1, {U, 0.4, 0.6}, {U, -0.6, -0.4}, {U, 0.9, 1}, {U, -1, -0.9}, small, bits},
       {pm1, {U, 0.4, 0.6}, {U, -0.6, -0.4}, {U, 0.9, 1}, {U, -1, -0.9}, small, bits}, -1, 1},
      {ENTRY(sinh), {{U, -90, 90}, {U, -2, 2}, small, bits}, {{U, -712, 712}, {U, -2, 2}, small, bits}, -5, 5},
      {ENTRY(cosh), {{U, -90, 90}, {U, -2, 2}, small, bits}, {{U, -712, 712}, {U, -2, 2}, small, bits}, -5, 5},
      {ENTRY(asinh), {{U, -10, 10}, {LOG, -60, 128}, bits}, {{U, -10, 10}, {LOG, -60, 1024}, bits}, -10, 10},
      {ENTRY(acosh), {{U, 1, 3}, {LOGPOS, 0, 128}, bits}, {{U, 1, 3}, {LOGPOS, 0, 1024}, bits}, 1, 10},
      {ENTRY(atanh), {pm1, {U, 0.9, 1}, {U, 0.4, 0.6}, small, bits}, {pm1, {U, 0.9, 1}, {U, 0.4, 0.6}, small, bits},
       -1, 1},
  };
}

template <class T> T draw(const Dom& d, std::mt19937_64& g) {
  std::uniform_real_distribution<double> u(0, 1);
  switch (d.k) {
    case U: return T(d.lo + (d.hi - d.lo) * u(g));
    case LOG:
    case LOGPOS: {
      T x = T(std::exp2(d.lo + (d.hi - d.lo) * u(g)));
      return d.k == LOG && (g() & 1) ? -x : x;
    }
    case NEARPI2: {  // a few ulps around k*pi/2
      T x = T(std::floor(u(g) * d.hi / (kPi / 2)) * (kPi / 2));
      for (int s = int(g() % 9) - 4; s != 0; s += s > 0 ? -1 : 1)
        x = std::nextafter(x, s > 0 ? T(INFINITY) : T(-INFINITY));
      return (g() & 1) ? -x : x;
    }
    case BITS: {
      uint64_t b = g();
      T x;
      std::memcpy(&x, &b, sizeof x);
      return x;
    }
  }
  return 0;
}

// |got - ref| in units of the spacing of T at |ref| (subnormal spacing below).
// Float results are measured against a double reference in double arithmetic
// (fast enough for the exhaustive mode), double results against long double.
template <class T> using Ref = std::conditional_t<sizeof(T) == 4, double, long double>;
template <class T> double ulp_err(T got, Ref<T> ref) {
  if (std::isnan(ref)) return std::isnan(got) ? 0 : INFINITY;
  if (std::isnan(got)) return INFINITY;
  if (std::isinf(got) || std::isinf(ref))
    return T(ref) == got ? 0 : INFINITY;  // T(ref) rounds to inf beyond max
  using L = std::numeric_limits<T>;
  if constexpr (sizeof(T) == 4) {  // bit arithmetic instead of ilogb/ldexp (exhaustive mode)
    double a = std::fabs(ref);
    uint64_t b;
    std::memcpy(&b, &a, sizeof b);
    int e = std::min(std::max(int(b >> 52) - 1023, -126), 127);
    uint64_t ub = uint64_t(e - 23 + 1023) << 52;
    double ulp;
    std::memcpy(&ulp, &ub, sizeof ulp);
    return std::fabs(double(got) - ref) / ulp;
  }
  Ref<T> a = std::fabs(ref);
  int e = a < L::min() ? L::min_exponent - 1 : std::ilogb(a);
  if (e > L::max_exponent - 1) e = L::max_exponent - 1;
  Ref<T> ulp = std::ldexp(Ref<T>(1), e - L::digits + 1);
  return double(std::fabs(Ref<T>(got) - ref) / ulp);
}

template <class T> Ref<T> reference(const Fn& f, T x) {
  if constexpr (sizeof(T) == 4) return f.ref_f(double(x));
  else return f.ref_d(x);
}

bool is_trig(const Fn& f) {
  return !std::strcmp(f.name, "sin") || !std::strcmp(f.name, "cos") || !std::strcmp(f.name, "tan");
}
template <class T> Loop<T> vec_loop(const Fn& f) {
  if constexpr (sizeof(T) == 4) return f.vf; else return f.vd;
}
template <class T> Loop<T> std_loop(const Fn& f) {
  if constexpr (sizeof(T) == 4) return f.sf; else return f.sd;
}

// Largest ulp error and where.  For trig, ember::vec must return NaN for
// |x| > kTrigMax (by design); those inputs are counted separately.
struct Worst {
  double ulp = 0, x = 0;
  int64_t not_nan_beyond = 0;
  void add(double u, double at) { if (!(u <= ulp)) { ulp = u; x = at; } }
  void merge(const Worst& o) {
    if (!(o.ulp <= ulp)) { ulp = o.ulp; x = o.x; }
    not_nan_beyond += o.not_nan_beyond;
  }
};
template <class T>
void accuracy(const Fn& f, Loop<T> loop, bool is_vec, const T* xs, int64_t n, T* y, Worst& w) {
  loop(xs, y, n);
  const bool trig = is_trig(f) && is_vec;
  const T lim = ember::vec::kTrigMax<T>;
#pragma omp parallel
  {
    Worst loc;
#pragma omp for schedule(static)
    for (int64_t i = 0; i < n; ++i) {
      if (trig && std::fabs(xs[i]) > lim) {
        loc.not_nan_beyond += !std::isnan(y[i]);
        continue;
      }
      loc.add(ulp_err<T>(y[i], reference(f, xs[i])), double(xs[i]));
    }
#pragma omp critical
    w.merge(loc);
  }
}

// Special values: NaN-ness, infinities and signed zeros must match std::
// exactly; other results must be within kMaxUlp of the reference.
template <class T> std::vector<T> special_inputs() {
  using L = std::numeric_limits<T>;
  std::vector<double> v = {
      0, 1, 2, 3, 10, 20, 0.5, 0.25, 0.55, 0.75, 1.5, 1e-8, 1e-30, 1e-300, 0x1p-26, 0x1p-27, 4, 6, 7,
      88.72283, 88.72284, 88.7229, 89, 87.33, 87.34, 103.97, 103.98, 104, 126, 127.99, 128, 129,
      149, 149.5, 150, 151, 709.78, 709.79, 710, 708.39, 708.4, 745.13, 745.14, 746, 1022, 1023.99,
      1024, 1025, 1074, 1075, 1080, 100, 1000, 1e4, 1e5, 1e6, 1e7, 1e15, 1e22, 0.1, 0.01, 1e-3,
      kPi / 4, kPi / 2, kPi, 3 * kPi / 2, 2 * kPi, 1e5 * kPi, 0x1p24, 0x1p26, 0x1p30, 1e30, 1e300};
  std::vector<T> out = {L::quiet_NaN(), L::infinity(), L::denorm_min(), L::min(), L::max(),
                        std::nextafter(T(1), T(0)), std::nextafter(T(1), T(2)),
                        ember::vec::kTrigMax<T>, std::nextafter(ember::vec::kTrigMax<T>, T(INFINITY))};
  for (double d : v) out.push_back(T(d));
  const size_t m = out.size();
  for (size_t i = 0; i < m; ++i) out.push_back(-out[i]);
  return out;
}
template <class T> int specials(const Fn& f) {
  std::vector<T> xs = special_inputs<T>(), y(xs.size()), s(xs.size());
  vec_loop<T>(f)(xs.data(), y.data(), int64_t(xs.size()));
  std_loop<T>(f)(xs.data(), s.data(), int64_t(xs.size()));
  int bad = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    T x = xs[i], got = y[i], want = s[i];
    if (is_trig(f) && std::isfinite(x) && std::fabs(x) > ember::vec::kTrigMax<T>) want = NAN;
    bool ok;
    if (std::isnan(want) || std::isnan(got)) ok = std::isnan(want) && std::isnan(got);
    else if (std::isinf(want) || std::isinf(got)) ok = got == want;
    else if (got == 0 && want == 0) ok = std::signbit(got) == std::signbit(want);
    else ok = ulp_err<T>(got, reference(f, x)) <= kMaxUlp;
    if (!ok) {
      std::printf("  SPECIAL %s<%s>(%a) = %a, std:: gives %a\n", f.name,
                  sizeof(T) == 4 ? "float" : "double",
                  double(x), double(got), double(want));
      ++bad;
    }
  }
  return bad;
}

// Cases std:: gets exactly right and callers may rely on: log2(2^k) = k,
// exp2(k) = 2^k, log10(10^k) = k, exp(0) = 1, log(1) = +0, cos(0) = 1.
template <class T> int exactness() {
  namespace e = ember::vec;
  int bad = 0;
  for (int k = std::numeric_limits<T>::min_exponent - std::numeric_limits<T>::digits;
       k < std::numeric_limits<T>::max_exponent; ++k) {
    T x = std::ldexp(T(1), k);
    bad += e::log2(x) != T(k);
    bad += e::exp2(T(k)) != x;
  }
  T p = 1;
  for (int k = 0; k <= (sizeof(T) == 4 ? 10 : 22); ++k, p *= 10) bad += e::log10(p) != T(k);
  bad += e::exp(T(0)) != 1 || e::log(T(1)) != 0 || std::signbit(e::log(T(1))) || e::cos(T(0)) != 1;
  std::printf("exact cases (log2/exp2 of powers of 2, log10 of powers of 10, ...) %s: %s\n",
              sizeof(T) == 4 ? "float" : "double", bad ? "FAIL" : "ok");
  return bad != 0;
}

template <class T> double ns_per_elem(Loop<T> loop, const T* in, T* out, int64_t n, int64_t total) {
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    for (int64_t done = 0; done < total; done += n) loop(in, out, n);
    auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::nano>(t1 - t0).count() / double(total));
  }
  return best;
}

struct Opts { bool quick = false, bench = true, exhaustive = false; std::string only; };

template <class T> int run_type(const std::vector<Fn>& fns, const Opts& o) {
  const char* tn = sizeof(T) == 4 ? "float" : "double";
  const int64_t per_dom = o.quick ? (1 << 16) : (sizeof(T) == 4 ? (1 << 21) : (1 << 19));
  const int64_t big = 1 << 24, small = 4096;
  std::mt19937_64 g(12345);
  std::vector<T> in(big), out(big), xs(per_dom), y(per_dom);
  int failures = 0;
  std::printf("\n%-8s %-6s %9s %-16s %9s | %9s %9s %7s | %9s %9s %7s\n", "function", "type", "vec ulp",
              "(at x)", "std ulp", "std ns/el", "vec ns/el", "speedup", "L1 std", "L1 vec", "speedup");
  for (const Fn& f : fns) {
    if (sizeof(T) == 8 && f.dom_d.empty()) continue;
    Worst wv, ws;
    for (const Dom& d : (sizeof(T) == 4 ? f.dom_f : f.dom_d)) {
      for (auto& x : xs) x = draw<T>(d, g);
      accuracy<T>(f, vec_loop<T>(f), true, xs.data(), per_dom, y.data(), wv);
      accuracy<T>(f, std_loop<T>(f), false, xs.data(), per_dom, y.data(), ws);
    }
    int bad = specials<T>(f);
    bool fail = !(wv.ulp <= kMaxUlp) || bad || wv.not_nan_beyond;
    failures += fail;
    char at[32];
    std::snprintf(at, sizeof at, "(%.6g)", wv.x);
    if (fail) std::printf("  worst %s<%s> input: %a\n", f.name, tn, wv.x);
    std::printf("%-8s %-6s %9.3f %-16s %9.3f |", f.name, tn, wv.ulp, at, ws.ulp);
    if (o.bench) {
      std::uniform_real_distribution<double> u(f.bench_lo, f.bench_hi);
      const int64_t n = o.quick ? small * 64 : big;
      for (int64_t i = 0; i < n; ++i) in[i] = T(u(g));
      double s1 = ns_per_elem<T>(std_loop<T>(f), in.data(), out.data(), n, n);
      double v1 = ns_per_elem<T>(vec_loop<T>(f), in.data(), out.data(), n, n);
      double s2 = ns_per_elem<T>(std_loop<T>(f), in.data(), out.data(), small, 1 << 22);
      double v2 = ns_per_elem<T>(vec_loop<T>(f), in.data(), out.data(), small, 1 << 22);
      std::printf(" %9.3f %9.3f %6.1fx | %9.3f %9.3f %6.1fx", s1, v1, s1 / v1, s2, v2, s2 / v2);
    }
    std::printf("%s\n", fail ? "  FAIL" : "");
  }
  return failures;
}

// sin_n/cos_n/tan_n: whole range (huge arguments go through std::), in place too.
template <class T> int check_trig_arrays() {
  std::mt19937_64 g(7);
  const int64_t n = 100000;
  std::vector<T> xs(n), y(n);
  for (int64_t i = 0; i < n; ++i) {
    T mag = T(std::exp2(std::uniform_real_distribution<double>(-10, sizeof(T) == 4 ? 127 : 1023)(g)));
    xs[i] = (g() & 1) ? -mag : mag;
  }
  int fails = 0;
  const char* names[3] = {"sin_n", "cos_n", "tan_n"};
  for (int k = 0; k < 3; ++k) {
    y = xs;  // in place
    if (k == 0) ember::vec::sin_n(y.data(), y.data(), n);
    if (k == 1) ember::vec::cos_n(y.data(), y.data(), n);
    if (k == 2) ember::vec::tan_n(y.data(), y.data(), n);
    double worst = 0;
    for (int64_t i = 0; i < n; ++i) {
      Ref<T> x = xs[i];
      Ref<T> r = k == 0 ? std::sin(x) : k == 1 ? std::cos(x) : std::tan(x);
      worst = std::max(worst, ulp_err<T>(y[i], r));
    }
    bool fail = !(worst <= kMaxUlp);
    fails += fail;
    std::printf("%-8s %-6s %9.3f   (|x| up to max, in place)%s\n", names[k],
                sizeof(T) == 4 ? "float" : "double",
                worst, fail ? "  FAIL" : "");
  }
  return fails;
}

// atan2 (binary): random pairs of several magnitudes and every pair of special values.
template <class T>
NOINL void atan2_loop(const T* __restrict y, const T* __restrict x, T* __restrict o, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) o[i] = ember::vec::atan2(y[i], x[i]);
}
template <class T> int check_atan2() {
  std::mt19937_64 g(11);
  const int64_t n = 1 << 18;
  std::vector<T> ys(n), xs(n), o(n);
  const Dom doms[] = {{U, -10, 10}, {LOG, -60, 60}, {LOG, -140, 120}, {BITS, 0, 0}};
  double worst = 0, wy = 0, wx = 0;
  for (const Dom& d : doms) {
    for (int64_t i = 0; i < n; ++i) ys[i] = draw<T>(d, g), xs[i] = draw<T>(d, g);
    atan2_loop(ys.data(), xs.data(), o.data(), n);
    for (int64_t i = 0; i < n; ++i) {
      double u = ulp_err<T>(o[i], std::atan2(Ref<T>(ys[i]), Ref<T>(xs[i])));
      if (!(u <= worst)) worst = u, wy = double(ys[i]), wx = double(xs[i]);
    }
  }
  using L = std::numeric_limits<T>;
  const T sp[] = {T(0), -T(0), L::infinity(), -L::infinity(), L::quiet_NaN(), T(1), T(-1), L::denorm_min(),
                  -L::denorm_min(), L::max(), -L::max(), T(3)};
  int bad = 0;
  for (T y : sp)
    for (T x : sp) {
      T got, want = std::atan2(y, x);
      atan2_loop(&y, &x, &got, 1);
      bool ok = std::isnan(want) ? std::isnan(got)
                : (got == 0 && want == 0) ? std::signbit(got) == std::signbit(want)
                : ulp_err<T>(got, std::atan2(Ref<T>(y), Ref<T>(x))) <= kMaxUlp;
      if (!ok) {
        std::printf("  SPECIAL atan2(%a, %a) = %a, std:: gives %a\n", double(y), double(x), double(got), double(want));
        ++bad;
      }
    }
  bool fail = !(worst <= kMaxUlp) || bad;
  std::printf("%-8s %-6s %9.3f   (at y=%g, x=%g)%s\n", "atan2", sizeof(T) == 4 ? "float" : "double", worst, wy, wx,
              fail ? "  FAIL" : "");
  return fail;
}

// No subnormal intermediates (builds with FMA; vec_math.h's header): a normal input whose result
// is zero or normal, at least 2^-86 / 2^-952 (so that low-order parts of results near underflow,
// 2^-24..-40 / 2^-53..-70 of them, may be subnormal), must not raise MXCSR's denormal-operand or
// underflow flag.  On x86 each vector instruction that meets a subnormal costs a ~100-cycle
// microcode assist, so a band of such inputs runs 10-30x slower.
template <class T> int subnormal_free(const std::vector<Fn>& fns, int64_t per_dom) {
#if defined(__SSE2__) && defined(__FP_FAST_FMAF) && defined(__FP_FAST_FMA)
  using L = std::numeric_limits<T>;
  const char* tn = sizeof(T) == 4 ? "float" : "double";
  const Dom whole{LOG, double(L::min_exponent - 1), double(L::max_exponent)};
  const Ref<T> floor_ = sizeof(T) == 4 ? 0x1p-86 : 0x1p-952;
  std::mt19937_64 g(99);
  int failures = 0;
  for (const Fn& f : fns) {
    const std::vector<Dom>& own = sizeof(T) == 4 ? f.dom_f : f.dom_d;
    if (own.empty()) continue;
    std::vector<Dom> doms = own;
    doms.push_back(whole);
    std::vector<T> xs, y;
    for (const Dom& d : doms)
      for (int64_t i = 0; i < per_dom; ++i) {
        T x = draw<T>(d, g);
        if (std::fpclassify(x) != FP_NORMAL || (is_trig(f) && std::fabs(x) > ember::vec::kTrigMax<T>)) continue;
        // doubles below 2^-300 (no float data makes them) and atan's -1/x beyond 2^126 / 2^1022 are
        // left: the clamps cost 5-25% on every input (vec_math.h's, vec_inverse_trig.h's headers)
        if (sizeof(T) == 8 && std::fabs(x) < T(0x1p-300)) continue;
        if (!std::strcmp(f.name, "atan") && std::fabs(x) > T(sizeof(T) == 4 ? 0x1p126 : 0x1p1022)) continue;
        Ref<T> r = std::fabs(reference(f, x));
        if (r == 0 || (r >= floor_ && r <= Ref<T>(L::max()))) xs.push_back(x);
      }
    y.resize(xs.size());
    _mm_setcsr(_mm_getcsr() & ~0x3fu);
    vec_loop<T>(f)(xs.data(), y.data(), int64_t(xs.size()));
    if (!(_mm_getcsr() & 0x12u)) continue;  // DE | UE
    ++failures;
    int64_t bad = 0;
    double first = 0;
    for (size_t i = 0; i < xs.size(); ++i) {  // which inputs (the loop's scalar remainder path)
      _mm_setcsr(_mm_getcsr() & ~0x3fu);
      vec_loop<T>(f)(&xs[i], &y[i], 1);
      if (_mm_getcsr() & 0x12u) first = bad++ ? first : double(xs[i]);
    }
    std::printf("  SUBNORMAL %s<%s>: %" PRId64 " of %zu normal inputs make subnormal intermediates (e.g. %a)\n",
                f.name, tn, bad, xs.size(), first);
  }
  std::printf("no subnormal intermediates for normal inputs and results, %s: %s\n", tn,
              failures ? "FAIL" : "ok");
  return failures;
#else
  (void)fns, (void)per_dom;
  std::printf("no subnormal intermediates: not checked (needs x86 and FMA)\n");
  return 0;
#endif
}

// lgamma_n (float, vectorised) against double std::lgamma: floats log-uniform over the whole range
// (both signs), dense near the zeros 1 and 2 and in (-5, 0), blocks of positive inputs alone (the
// loop without the reflection), and the special values (as std::: poles, infinities, NaN);
// exhaustive: every float, in chunks.
int check_lgamma(bool quick, bool exhaustive) {
  double worst = 0, wx = 0;
  int bad = 0;
  auto check = [&](const std::vector<float>& xs) {
    std::vector<float> y(xs.size());
    ember::vec::lgamma_n(xs.data(), y.data(), int64_t(xs.size()));
    for (size_t i = 0; i < xs.size(); ++i) {
      float x = xs[i], want = std::lgamma(x);
      if (std::isnan(want) || std::isinf(want)) {  // exactly std::'s
        bad += !(std::isnan(want) ? std::isnan(y[i]) : y[i] == want);
        continue;
      }
      bad += (x == 1.0f || x == 2.0f) && y[i] != 0.0f;
      double e = ulp_err<float>(y[i], std::lgamma(double(x)));
      if (!(e <= worst)) worst = e, wx = x;
    }
  };
  std::mt19937_64 g(5);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<float> xs = {0.0f, -0.0f, 1.0f, 2.0f, -1.0f, -2.5f, -0.5f, 0.5f, 7.0f, 6.9999995f, 1e-45f,
                           4.08e36f, 4.1e36f, 3.4e38f, INFINITY, -INFINITY, NAN};
  for (int64_t i = 0; i < (quick ? (1 << 16) : (1 << 20)); ++i) {
    float v = float(std::exp2(-149 + 277 * u(g)));
    xs.push_back((g() & 1) ? -v : v);
    xs.push_back(float(10 * u(g)));
    xs.push_back(float(1 + (u(g) - 0.5) * 0x1p-8));
    xs.push_back(float(2 + (u(g) - 0.5) * 0x1p-8));
    xs.push_back(float(-5 * u(g)));
  }
  check(xs);
  xs.clear();
  for (int64_t i = 0; i < (quick ? (1 << 16) : (1 << 20)); ++i) xs.push_back(float(std::exp2(-149 + 277 * u(g))));
  check(xs);
  if (exhaustive)
    for (uint64_t base = 0; base < (uint64_t(1) << 32); base += 1u << 22) {
      xs.clear();
      for (uint64_t b = base; b < base + (1u << 22); ++b) {
        float v;
        uint32_t b32 = uint32_t(b);
        std::memcpy(&v, &b32, 4);
        xs.push_back(v);
      }
      check(xs);
    }
  bool fail = !(worst <= kMaxUlp) || bad;
  std::printf("%-8s %-6s %9.3f   (at %a)%s%s\n", "lgamma_n", "float", worst, wx, exhaustive ? ", every float" : "",
              fail ? "  FAIL" : "");
  return fail;
}

// Every float bit pattern (reference: double std::), float functions only.
int exhaustive(const std::vector<Fn>& fns, const std::string& only) {
  int failures = 0;
  const int64_t chunk = 1 << 22;
  std::vector<float> xs(chunk), y(chunk);
  for (const Fn& f : fns) {
    if (!only.empty() && ("," + only + ",").find("," + std::string(f.name) + ",") == std::string::npos)
      continue;
    Worst w;
    auto t0 = std::chrono::steady_clock::now();
    for (uint64_t base = 0; base < (uint64_t(1) << 32); base += chunk) {
#pragma omp parallel for
      for (int64_t i = 0; i < chunk; ++i) {
        uint32_t b = uint32_t(base + i);
        std::memcpy(&xs[i], &b, 4);
      }
      accuracy<float>(f, f.vf, true, xs.data(), chunk, y.data(), w);
    }
    double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    bool fail = !(w.ulp <= kMaxUlp) || w.not_nan_beyond;
    failures += fail;
    std::printf("%-8s float  exhaustive max ulp %.3f at %a (%.7g)%s [%.0fs]\n", f.name, w.ulp, w.x, w.x,
                fail ? "  FAIL" : "", sec);
    std::fflush(stdout);
  }
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  Opts o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") o.quick = true;
    else if (a == "--no-bench") o.bench = false;
    else if (a == "--exhaustive") o.exhaustive = true;
    else if (a.rfind("--exhaustive=", 0) == 0) o.exhaustive = true, o.only = a.substr(13);
    else {
      std::fprintf(stderr, "usage: %s [--quick] [--no-bench] [--exhaustive[=fn,...]]\n", argv[0]);
      return 2;
    }
  }
  std::vector<Fn> fns = functions();
  std::printf("ember::vec check: max ulp vs reference (double for float, long double for double),\n"
              "throughput single-threaded on 16M elements and on an L1-resident 4096 (best of 3).\n"
              "FMA: %s, vector ISA: %s\n",
#ifdef __FP_FAST_FMA
              "yes",
#else
              "no",
#endif
#if defined(__AVX512F__)
              "AVX-512"
#elif defined(__AVX2__)
              "AVX2"
#elif defined(__AVX__)
              "AVX"
#else
              "SSE2"
#endif
  );
  int failures = run_type<float>(fns, o) + run_type<double>(fns, o);
  std::printf("\n");
  failures += check_trig_arrays<float>() + check_trig_arrays<double>();
  failures += check_atan2<float>() + check_atan2<double>();
  failures += check_lgamma(o.quick, o.exhaustive && (o.only.empty() || o.only.find("lgamma") != std::string::npos));
  failures += exactness<float>() + exactness<double>();
  const int64_t quiet_n = o.quick ? (1 << 14) : (1 << 18);
  failures += subnormal_free<float>(fns, quiet_n) + subnormal_free<double>(fns, quiet_n);
  if (o.exhaustive) failures += exhaustive(fns, o.only);
  std::printf("\n%s (%d failing)\n", failures ? "FAILED" : "all within tolerance", failures);
  return failures ? 1 : 0;
}
