// Reduction kernels (compiled once per CPU capability). Sums use a cascade:
// 16-lane partial sums over blocks, blocks combined pairwise, which keeps a
// 16M-element float32 sum accurate without a double accumulator per element.
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#if defined(__F16C__) && defined(__AVX2__)
#include <immintrin.h>
#endif

#include "core/profiler.h"
#include "iter/reduce_iter.h"
#include "kernels/backend.h"
#include "kernels/cpu/loops.h"

namespace ember::cpu::EMBER_CAP {
namespace {

constexpr int kLanes = 16;
constexpr int64_t kBlock = 4096;

#if defined(__F16C__) && defined(__AVX2__)
// float16 widened 8 at a time into a float block (exact), so the lane loop below runs on floats
// and vectorises; a per-element conversion kept it scalar. (bfloat16's conversion is a shift,
// which the lane loop vectorises by itself: a block pass would only add one.)
inline void widen(const Half* x, int64_t n, float* out) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i))));
  for (; i < n; ++i) out[i] = static_cast<float>(x[i]);
}
#endif

template <class In, class Acc, class Op>
Acc lane_reduce(const In* x, int64_t n, const Op& op) {
#if defined(__F16C__) && defined(__AVX2__)
  if constexpr (std::is_same_v<In, Half> && std::is_same_v<Acc, float>) {
    if (n <= kBlock) {  // always, from cascade_reduce; the same lanes, so the same sum
      float buf[kBlock];
      widen(x, n, buf);
      return lane_reduce<float, Acc>(buf, n, op);
    }
  }
#endif
  Acc acc[kLanes];
  for (int j = 0; j < kLanes; ++j) acc[j] = op.identity();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
#pragma omp simd
    for (int j = 0; j < kLanes; ++j) acc[j] = op.combine(acc[j], op.map(static_cast<Acc>(x[i + j])));
  Acc r = op.identity();
  for (int j = 0; j < kLanes; ++j) r = op.combine(r, acc[j]);
  for (; i < n; ++i) r = op.combine(r, op.map(static_cast<Acc>(x[i])));
  return r;
}

template <class In, class Acc, class Op>
Acc cascade_reduce(const In* x, int64_t n, const Op& op) {
  if (n <= kBlock) return lane_reduce<In, Acc>(x, n, op);
  int64_t half = (n / 2 + kLanes - 1) / kLanes * kLanes;
  // Left half first, as named statements: as combine's arguments GCC reads the right half first,
  // so the blocks streamed from memory backwards, which halved a 64 MB sum's bandwidth.
  Acc left = cascade_reduce<In, Acc>(x, half, op);
  Acc right = cascade_reduce<In, Acc>(x + half, n - half, op);
  return op.combine(left, right);
}

template <class Acc>
struct SumOp {
  Acc identity() const { return Acc(0); }
  Acc map(Acc x) const { return x; }
  Acc combine(Acc a, Acc b) const { return a + b; }
};
template <class Acc>
struct NanSumOp {
  Acc identity() const { return Acc(0); }
  Acc map(Acc x) const { return x != x ? Acc(0) : x; }
  Acc combine(Acc a, Acc b) const { return a + b; }
};
// Each square rounded before it is added, as aten's norm adds them: `+ 0` keeps the compiler from fusing
// the square into the sum's add (an FMA where -mfma allows), which had a strided run differ from a
// contiguous one in the last bit (fma(x, x, 0) is the rounded square; x * x is never -0, so the sum is the same)
template <class Acc>
struct SumSqOp {
  Acc identity() const { return Acc(0); }
  Acc map(Acc x) const { return x * x + Acc(0); }
  Acc combine(Acc a, Acc b) const { return a + b; }
};
template <class Acc>
struct ProdOp {
  Acc identity() const { return Acc(1); }
  Acc map(Acc x) const { return x; }
  Acc combine(Acc a, Acc b) const { return a * b; }
};
// complex products by the textbook formula, as c10::complex multiplies (std::complex's operator*
// adds C99's inf / NaN recovery, a library call per product)
template <class R>
struct ComplexProdOp {
  using C = std::complex<R>;
  C identity() const { return C(1); }
  C map(C x) const { return x; }
  C combine(C a, C b) const {
    return C(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
  }
};

// aten multiplies a half type in its own precision: every product rounds to T (in float lanes)
template <class T>
struct HalfProdOp {
  float identity() const { return 1.0f; }
  float map(float x) const { return x; }
  float combine(float a, float b) const { return static_cast<float>(static_cast<T>(a * b)); }
};
template <class Op>
constexpr bool kProd = false;
template <class Acc>
constexpr bool kProd<ProdOp<Acc>> = true;
template <class T>
constexpr bool kProd<HalfProdOp<T>> = true;

// aten's order for a floating product of a contiguous run (binary_kernel_reduce_vec with its
// 32-byte vectors, whatever the CPU): 4 * V lane products seeded by the first 4 * V values,
// folded as (a0 * a1) * (a2 * a3) and then lane by lane into dst; the rest one by one into dst.
// Where a product overflows or rounds (a half type) is then aten's.
template <class In, class Acc, class Op>
Acc aten_prod_run(const In* x, int64_t n, Acc dst, const Op& op) {
  constexpr int64_t V = 32 / static_cast<int64_t>(sizeof(In)), W = 4 * V;
  const int64_t count = n / W;
  if (count > 0) {
    Acc acc[W];
    for (int64_t l = 0; l < W; ++l) acc[l] = static_cast<Acc>(x[l]);
    for (int64_t i = 1; i < count; ++i)
#pragma omp simd
      for (int64_t l = 0; l < W; ++l) acc[l] = op.combine(acc[l], static_cast<Acc>(x[i * W + l]));
    Acc r = op.identity();
    for (int64_t l = 0; l < V; ++l) {
      const Acc lane = op.combine(op.combine(acc[l], acc[V + l]), op.combine(acc[2 * V + l], acc[3 * V + l]));
      r = l ? op.combine(r, lane) : lane;
    }
    dst = op.combine(dst, r);
  }
  for (int64_t i = count * W; i < n; ++i) dst = op.combine(dst, static_cast<Acc>(x[i]));
  return dst;
}
template <class Acc>
struct MaxOp {
  Acc identity() const {
    if constexpr (std::numeric_limits<Acc>::has_infinity) return -std::numeric_limits<Acc>::infinity();
    else return std::numeric_limits<Acc>::lowest();
  }
  Acc map(Acc x) const { return x; }
  Acc combine(Acc a, Acc b) const { return (a != a || a > b) ? a : b; }  // NaN wins
};
template <class Acc>
struct MinOp {
  Acc identity() const {
    if constexpr (std::numeric_limits<Acc>::has_infinity) return std::numeric_limits<Acc>::infinity();
    else return std::numeric_limits<Acc>::max();
  }
  Acc map(Acc x) const { return x; }
  Acc combine(Acc a, Acc b) const { return (a != a || a < b) ? a : b; }
};
struct AllOp {
  bool identity() const { return true; }
  bool map(bool x) const { return x; }
  bool combine(bool a, bool b) const { return a && b; }
};
struct AnyOp {
  bool identity() const { return false; }
  bool map(bool x) const { return x; }
  bool combine(bool a, bool b) const { return a || b; }
};
// xor of the accumulators' bit patterns (int64, or float64 for floating inputs)
template <class Acc>
struct XorOp {
  Acc identity() const { return Acc(0); }
  Acc map(Acc x) const { return x; }
  Acc combine(Acc a, Acc b) const {
    uint64_t u, v;
    std::memcpy(&u, &a, 8);
    std::memcpy(&v, &b, 8);
    u ^= v;
    std::memcpy(&a, &u, 8);
    return a;
  }
};

template <class In, class Acc, class Op>
void run_reduce(ReduceIter& it, const Op& op) {
  Acc* obase = it.out.data<Acc>();
  {  // the result starts as the identity, as aten fills its reductions' results (its fill_ event)
    profiler::Scope fill_prof("aten::fill_", profiler::EventKind::Op);
    for (int64_t k = 0; k < it.out.numel(); ++k) obase[k] = op.identity();
  }
  auto body = [&](char* out, const char* in, int64_t os, int64_t is, int64_t n) {
    if (os == 0) {
      Acc* o = reinterpret_cast<Acc*>(out);
      if constexpr (kProd<Op> && std::is_floating_point_v<Acc>) {  // into dst, in aten's order
        if (is == sizeof(In)) {
          *o = aten_prod_run<In, Acc>(reinterpret_cast<const In*>(in), n, *o, op);
        } else {
          for (int64_t k = 0; k < n; ++k)
            *o = op.combine(*o, static_cast<Acc>(*reinterpret_cast<const In*>(in + k * is)));
        }
        return;
      }
      Acc r;
      if (is == sizeof(In)) {
        r = cascade_reduce<In, Acc>(reinterpret_cast<const In*>(in), n, op);
      } else {
        r = op.identity();
        for (int64_t k = 0; k < n; ++k)
          r = op.combine(r, op.map(static_cast<Acc>(*reinterpret_cast<const In*>(in + k * is))));
      }
      *o = op.combine(*o, r);
    } else if (os == sizeof(Acc) && is == sizeof(In)) {
      Acc* __restrict o = reinterpret_cast<Acc*>(out);
      const In* __restrict x = reinterpret_cast<const In*>(in);
#pragma omp simd
      for (int64_t k = 0; k < n; ++k) o[k] = op.combine(o[k], op.map(static_cast<Acc>(x[k])));
    } else {
      for (int64_t k = 0; k < n; ++k) {
        Acc* o = reinterpret_cast<Acc*>(out + k * os);
        *o = op.combine(*o, op.map(static_cast<Acc>(*reinterpret_cast<const In*>(in + k * is))));
      }
    }
  };
  int nthreads = get_num_threads();
  if (it.numel < kGrainSize || nthreads == 1) {
    it.serial(body);
    return;
  }
  bool private_acc = false;
  int d = it.split_dim(&private_acc);
  int64_t len = it.shape[d];
  GilRelease nogil;
  if (!private_acc) {
    parallel_for(0, len, 1, [&](int64_t b, int64_t e) { it.slice(d, b, e).serial(body); });
    return;
  }
  // Each thread reduces its slice into its own copy of the output.
  int64_t chunks = std::min<int64_t>(nthreads, len);
  int64_t per = (len + chunks - 1) / chunks;
  int64_t onum = it.out.numel();
  // (not std::vector: vector<bool> has no data())
  std::unique_ptr<Acc[]> partial(new Acc[static_cast<size_t>(chunks * onum)]);
  for (int64_t k = 0; k < chunks * onum; ++k) partial[k] = op.identity();
  parallel_for(0, chunks, 1, [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; ++c) {
      int64_t b = c * per, e = std::min(len, b + per);
      if (b >= e) continue;
      ReduceIter s = it.slice(d, b, e);
      s.optr = reinterpret_cast<char*>(partial.get() + c * onum) + (it.optr - reinterpret_cast<char*>(obase));
      s.serial(body);
    }
  });
  for (int64_t c = 0; c < chunks; ++c)
    for (int64_t k = 0; k < onum; ++k) obase[k] = op.combine(obase[k], partial[c * onum + k]);
}

template <class In>
void reduce_typed(ReduceIter& it, ReduceKind kind) {
  using M = opmath_t<In>;
  using SumAcc = std::conditional_t<std::is_integral_v<In>, int64_t, M>;
  switch (kind) {
    case ReduceKind::Sum:
      return run_reduce<In, SumAcc>(it, SumOp<SumAcc>{});
    case ReduceKind::NanSum:
      return run_reduce<In, SumAcc>(it, NanSumOp<SumAcc>{});
    case ReduceKind::Prod:
      if constexpr (std::is_same_v<In, Half> || std::is_same_v<In, BFloat16>)
        return run_reduce<In, float>(it, HalfProdOp<In>{});
      else return run_reduce<In, SumAcc>(it, ProdOp<SumAcc>{});
    case ReduceKind::SumSq:
      return run_reduce<In, M>(it, SumSqOp<M>{});
    case ReduceKind::Max:
      return run_reduce<In, M>(it, MaxOp<M>{});
    case ReduceKind::Min:
      return run_reduce<In, M>(it, MinOp<M>{});
    case ReduceKind::All:
      return run_reduce<In, bool>(it, AllOp{});
    case ReduceKind::Any:
      return run_reduce<In, bool>(it, AnyOp{});
    case ReduceKind::XorSum:
      if constexpr (std::is_floating_point_v<M>) return run_reduce<In, double>(it, XorOp<double>{});
      else return run_reduce<In, int64_t>(it, XorOp<int64_t>{});
  }
}

}  // namespace

void reduce_kernel(ReduceIter& it, ReduceKind kind) {
  // complex: prod only (sum and mean reduce the real pairs, ops/core/reduce.cpp)
  if (kind == ReduceKind::Prod && it.in.dtype() == ScalarType::ComplexFloat)
    return run_reduce<std::complex<float>, std::complex<float>>(it, ComplexProdOp<float>{});
  if (kind == ReduceKind::Prod && it.in.dtype() == ScalarType::ComplexDouble)
    return run_reduce<std::complex<double>, std::complex<double>>(it, ComplexProdOp<double>{});
  EMBER_DISPATCH_ALL(it.in.dtype(), "reduce_cpu", [&] { reduce_typed<scalar_t>(it, kind); });
}

}  // namespace ember::cpu::EMBER_CAP
