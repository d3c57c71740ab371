// Copy/cast and where (compiled once per CPU capability), and fill_cpu, which puts them and the
// reduce/ kernels (reduce_kernels.cpp, arg_reduce_scan_kernels.cpp) into the CPU backend table.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "iter/elementwise_iter.h"
#include "kernels/backend.h"
#include "kernels/cpu/loops.h"
#include "kernels/cpu/shape/transpose_tile.h"

namespace ember::cpu::EMBER_CAP {

void reduce_kernel(ReduceIter& it, ReduceKind kind);
void arg_reduce_kernel(const Tensor& in, const Tensor& values, const Tensor& indices, bool is_max);
void cumulative_kernel(const Tensor& in, const Tensor& out, int64_t dim, bool is_prod);

namespace {

// A transposing copy -- dst contiguous along the dim where src is strided, src contiguous along
// another dim -- in square tiles, so that both sides use whole cache lines: row by row, every src
// element was a cache miss (a 1024 x 1024 float transpose ran 4x slower than PyTorch's). Inside
// a tile, elements up to 8 bytes go through in-register transposes (transpose_tile.h).
template <class T>
bool tiled_transpose_copy(ElementwiseIter& it) {
  constexpr int64_t es = sizeof(T), kTile = es >= 8 ? 16 : 128 / es;
  const int nd = it.ndim();
  if (nd < 2 || it.numel() < 4096 || it.stride(0, 0) != es || it.stride(1, 0) == es) return false;
  int d = 1;
  while (d < nd && it.stride(1, d) != es) ++d;
  if (d == nd) return false;
  const int64_t n0 = it.shape(0), n1 = it.shape(d);
  const int64_t ds0 = it.stride(0, 0), ds1 = it.stride(0, d), ss0 = it.stride(1, 0), ss1 = it.stride(1, d);
  const int64_t tiles1 = (n1 + kTile - 1) / kTile, work = it.numel() / (n0 * n1) * tiles1;
  GilRelease nogil;
  parallel_for(0, work, std::max<int64_t>(1, kGrainSize / (n0 * kTile)), [&](int64_t b, int64_t e) {
    for (int64_t w = b; w < e; ++w) {
      char* dp = it.data(0);
      const char* sp = it.data(1);
      int64_t rem = w / tiles1;  // the index over the dims other than 0 and d
      for (int k = 1; k < nd; ++k) {
        if (k == d) continue;
        const int64_t i = rem % it.shape(k);
        rem /= it.shape(k);
        dp += i * it.stride(0, k);
        sp += i * it.stride(1, k);
      }
      const int64_t j0 = w % tiles1 * kTile, j1 = std::min(n1, j0 + kTile);
      for (int64_t i0 = 0; i0 < n0; i0 += kTile) {
        const int64_t i1 = std::min(n0, i0 + kTile);
        if constexpr (es <= 8) {  // dst is contiguous along i (dim 0), src along j (dim d)
          shapes::transpose_tile(sp + i0 * ss0 + j0 * es, ss0, dp + j0 * ds1 + i0 * es, ds1, i1 - i0, j1 - j0, es);
          continue;
        }
        for (int64_t j = j0; j < j1; ++j)
          for (int64_t i = i0; i < i1; ++i)
            *reinterpret_cast<T*>(dp + j * ds1 + i * ds0) = *reinterpret_cast<const T*>(sp + j * ss1 + i * ss0);
      }
    }
  });
  return true;
}

// x86's float -> int64 conversion, defined: out of range or NaN gives INT64_MIN.
inline int64_t x86_int64(double x) {
  return x >= -0x1p63 && x < 0x1p63 ? static_cast<int64_t>(x) : std::numeric_limits<int64_t>::min();
}

// A float into uint16 / uint32 / uint64 as PyTorch's (scalar) copy does it on x86: through int32
// for uint16, modulo 2^32 for uint32 with its out-of-range values, and the compiler's
// two-step conversion for uint64 (x >= 2^63 converted less 2^63); never UB here. The uint16 and
// uint32 forms are selects in F (float or double) around one int32 conversion, so the loop
// vectorises (through double and with branches, float -> uint32 ran 7x slower than PyTorch).
template <class D, class F>
inline D float_to_unsigned(F x) {
  if constexpr (std::is_same_v<D, uint16_t>) {
    const bool in = x > F(-0x1p31 - 1) && x < F(0x1p31);
    return static_cast<D>(
        static_cast<uint32_t>(in ? static_cast<int32_t>(in ? x : F(0)) : std::numeric_limits<int32_t>::min()));
  } else if constexpr (std::is_same_v<D, uint32_t>) {
    // [2^31, 2^32) converts as x - 2^32 (exact), after truncation where F has fractions there
    const bool in = x >= F(-0x1p31) && x < F(0x1p32);
    F y = x < F(0x1p31) ? x : (std::is_same_v<F, float> ? x : std::trunc(x)) - F(0x1p32);
    const uint32_t r = static_cast<uint32_t>(static_cast<int32_t>(in ? y : F(0)));
    const bool nan_or_below = !(x >= F(-0x1p31)) && x != -std::numeric_limits<F>::infinity();
    return in ? r : (nan_or_below ? 0x80000000u : 0u);
  } else {
    const double d = x;
    if (d >= 0x1p63) return static_cast<uint64_t>(x86_int64(d - 0x1p63)) ^ (uint64_t{1} << 63);
    return static_cast<uint64_t>(x86_int64(d));
  }
}
template <class T>
inline constexpr bool is_shell_unsigned_v =
    std::is_same_v<T, uint16_t> || std::is_same_v<T, uint32_t> || std::is_same_v<T, uint64_t>;

// A cast where either side is complex: real -> complex has a zero imaginary part, complex ->
// real keeps the real part, complex -> bool tests both parts (as c10's casts do).
template <class D, class S>
inline D complex_cast(S x) {
  if constexpr (is_complex_v<D> && is_complex_v<S>) {
    return D(static_cast<typename D::value_type>(x.real()), static_cast<typename D::value_type>(x.imag()));
  } else if constexpr (is_complex_v<D>) {
    using R = typename D::value_type;  // complex32's parts round from float, as c10's cast does
    return D(static_cast<R>(static_cast<opmath_t<S>>(x)), R(0));
  } else if constexpr (std::is_same_v<D, bool>) {
    return x.real() != 0 || x.imag() != 0;
  } else if constexpr (is_shell_unsigned_v<D>) {
    return float_to_unsigned<D>(static_cast<double>(x.real()));
  } else {
    return static_cast<D>(static_cast<opmath_t<D>>(x.real()));
  }
}

// One (dst, src) pair of the copy; a template so that `if constexpr` drops the other branches.
template <class dst_t, class src_t>
void copy_typed(ElementwiseIter& it) {
  if constexpr (!std::is_same_v<dst_t, src_t> && (is_complex_v<dst_t> || is_complex_v<src_t>)) {
    it.for_each([](char** d, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<dst_t*>(d[0] + i * s[0]) =
            complex_cast<dst_t>(*reinterpret_cast<const src_t*>(d[1] + i * s[1]));
    });
  } else {
    if constexpr (std::is_same_v<dst_t, src_t>) {
      if (tiled_transpose_copy<dst_t>(it)) return;
    }
    it.for_each([](char** d, const int64_t* s, int64_t n) {
      if constexpr (std::is_same_v<dst_t, src_t>) {
        if (s[0] == sizeof(dst_t) && s[1] == sizeof(src_t)) {
          std::memcpy(d[0], d[1], n * sizeof(dst_t));
          return;
        }
        if (s[0] == sizeof(dst_t) && s[1] == 0) {  // a broadcast row (expanded dim innermost)
          std::fill_n(reinterpret_cast<dst_t*>(d[0]), n, *reinterpret_cast<const src_t*>(d[1]));
          return;
        }
      }
      if constexpr (std::is_same_v<dst_t, uint8_t> && std::is_floating_point_v<opmath_t<src_t>>) {
        // c10 casts a float to uint8 through int64 (its value modulo 256), not directly
        unary_loop<dst_t, src_t>(d, s, n, [](auto x) { return x86_int64(static_cast<double>(x)); });
      } else if constexpr (is_shell_unsigned_v<dst_t> && std::is_floating_point_v<opmath_t<src_t>>) {
        unary_loop<dst_t, src_t>(d, s, n, [](auto x) { return float_to_unsigned<dst_t>(x); });
      } else if constexpr (is_complex_v<dst_t>) {  // the same complex type, strided
        for (int64_t i = 0; i < n; ++i)
          *reinterpret_cast<dst_t*>(d[0] + i * s[0]) = *reinterpret_cast<const src_t*>(d[1] + i * s[1]);
      } else {
        unary_loop<dst_t, src_t>(d, s, n, [](auto x) { return x; });
      }
    });
  }
}

void copy_kernel(ElementwiseIter& it) {
  EMBER_DISPATCH_EVERY_TYPE(it.compute_dtype(), "copy_", [&] {
    using dst_t = scalar_t;
    EMBER_DISPATCH_EVERY_TYPE(it.input_dtype(0), "copy_", [&] { copy_typed<dst_t, scalar_t>(it); });
  });
}

void where_kernel(ElementwiseIter& it) {
  EMBER_DISPATCH_EVERY_TYPE(it.compute_dtype(), "where_cpu", [&] {
    it.for_each([](char** d, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        bool c = *reinterpret_cast<const bool*>(d[1] + i * s[1]);
        *reinterpret_cast<scalar_t*>(d[0] + i * s[0]) =
            *reinterpret_cast<const scalar_t*>(c ? d[2] + i * s[2] : d[3] + i * s[3]);
      }
    });
  });
}

void widen_half_n(const uint16_t* h, float* f, int64_t n) {
  const auto* x = reinterpret_cast<const Half*>(h);
  if constexpr (kHalfSimd) widen_half(x, f, n);
  else
    for (int64_t i = 0; i < n; ++i) f[i] = static_cast<float>(x[i]);
}
void narrow_half_n(const float* f, uint16_t* h, int64_t n) {
  auto* x = reinterpret_cast<Half*>(h);
  if constexpr (kHalfSimd) narrow_half(f, x, n);
  else
    for (int64_t i = 0; i < n; ++i) x[i] = Half(f[i]);
}

}  // namespace

void fill_cpu(Backend& b) {
  b.copy.copy = copy_kernel;
  b.copy.where = where_kernel;
  b.copy.widen_half = widen_half_n;
  b.copy.narrow_half = narrow_half_n;
  b.reduce.reduce = reduce_kernel;
  b.reduce.arg_reduce = arg_reduce_kernel;
  b.reduce.cumulative = cumulative_kernel;
}

}  // namespace ember::cpu::EMBER_CAP
