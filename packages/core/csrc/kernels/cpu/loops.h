// The one strided inner loop per arity that every pointwise kernel shares.
// A functor computes on the "opmath" type (float for half types); the loop
// converts, and picks a vectorisable path for contiguous and scalar operands.
#pragma once
#include <cstdint>
#include <type_traits>

#include "../../core/host_device.h"
#include "../../core/scalar_type.h"
#include "half_blocks.h"

// `for (i < n) stmt` under omp simd when every element type is a plain number. With a Half /
// BFloat16 struct GCC 12's omp simd gives up ("more than one data ref": the struct temporary),
// leaving a scalar loop (bfloat16 relu ran 100x float's time); its auto-vectoriser does not.
#define EMBER_SIMD_FOR(plain, i, n, stmt)                       \
  if constexpr (plain) {                                        \
    _Pragma("omp simd") for (int64_t i = 0; i < (n); ++i) stmt; \
  } else {                                                      \
    for (int64_t i = 0; i < (n); ++i) stmt;                     \
  }

namespace ember::cpu {
// Internal linkage: this header is compiled once per CPU capability (see
// backend_cpu.cpp), so its functions must not merge across those builds.
namespace {

template <class T>
EMBER_VEC_INLINE opmath_t<T> ld(const char* p) {
  return static_cast<opmath_t<T>>(*reinterpret_cast<const T*>(p));
}
template <class T, class V>
EMBER_VEC_INLINE void st(char* p, V v) {
  *reinterpret_cast<T*>(p) = static_cast<T>(v);
}

template <class Out, class In, class F>
inline void unary_loop(char** data, const int64_t* strides, int64_t n, const F& f) {
  char* o = data[0];
  const char* a = data[1];
  if (strides[0] == sizeof(Out) && strides[1] == sizeof(In)) {
    Out* __restrict out = reinterpret_cast<Out*>(o);
    const In* __restrict in = reinterpret_cast<const In*>(a);
    if constexpr (kHalfBlocks<Out, In, std::invoke_result_t<const F&, opmath_t<In>>>) {
      const In* xs[1] = {in};
      const bool bcast[1] = {false};
      return half_blocks(out, xs, bcast, n, f);
    }
    EMBER_SIMD_FOR((std::is_arithmetic_v<Out> && std::is_arithmetic_v<In>), i, n,
                   out[i] = static_cast<Out>(f(static_cast<opmath_t<In>>(in[i]))))
    return;
  }
  if (strides[1] == 0) {
    Out v = static_cast<Out>(f(ld<In>(a)));
    for (int64_t i = 0; i < n; ++i) *reinterpret_cast<Out*>(o + i * strides[0]) = v;
    return;
  }
  for (int64_t i = 0; i < n; ++i) st<Out>(o + i * strides[0], f(ld<In>(a + i * strides[1])));
}

template <class Out, class In, class F>
inline void binary_loop(char** data, const int64_t* strides, int64_t n, const F& f) {
  using M = opmath_t<In>;
  constexpr bool plain = std::is_arithmetic_v<Out> && std::is_arithmetic_v<In>;
  char* o = data[0];
  const char* a = data[1];
  const char* b = data[2];
  if (strides[0] == sizeof(Out)) {
    Out* __restrict out = reinterpret_cast<Out*>(o);
    const In* __restrict x = reinterpret_cast<const In*>(a);
    const In* __restrict y = reinterpret_cast<const In*>(b);
    if constexpr (kHalfBlocks<Out, In, std::invoke_result_t<const F&, M, M>>) {
      const bool bcast[2] = {strides[1] == 0, strides[2] == 0};
      if ((bcast[0] || strides[1] == sizeof(In)) && (bcast[1] || strides[2] == sizeof(In)) && !(bcast[0] && bcast[1])) {
        const In* xs[2] = {x, y};
        return half_blocks(out, xs, bcast, n, f);
      }
    }
    if (strides[1] == sizeof(In) && strides[2] == sizeof(In)) {
      EMBER_SIMD_FOR(plain, i, n, out[i] = static_cast<Out>(f(static_cast<M>(x[i]), static_cast<M>(y[i]))))
      return;
    }
    if (strides[1] == sizeof(In) && strides[2] == 0) {
      const M yv = static_cast<M>(*y);
      EMBER_SIMD_FOR(plain, i, n, out[i] = static_cast<Out>(f(static_cast<M>(x[i]), yv)))
      return;
    }
    if (strides[1] == 0 && strides[2] == sizeof(In)) {
      const M xv = static_cast<M>(*x);
      EMBER_SIMD_FOR(plain, i, n, out[i] = static_cast<Out>(f(xv, static_cast<M>(y[i]))))
      return;
    }
  }
  for (int64_t i = 0; i < n; ++i)
    st<Out>(o + i * strides[0], f(ld<In>(a + i * strides[1]), ld<In>(b + i * strides[2])));
}

template <class Out, class In, class F>
inline void ternary_loop(char** data, const int64_t* strides, int64_t n, const F& f) {
  using M = opmath_t<In>;
  if constexpr (kHalfBlocks<Out, In, std::invoke_result_t<const F&, M, M, M>>) {
    const bool bcast[3] = {strides[1] == 0, strides[2] == 0, strides[3] == 0};
    bool blocks = strides[0] == sizeof(Out) && !(bcast[0] && bcast[1] && bcast[2]);
    for (int k = 0; k < 3; ++k) blocks = blocks && (bcast[k] || strides[k + 1] == sizeof(In));
    if (blocks) {
      const In* xs[3] = {reinterpret_cast<const In*>(data[1]), reinterpret_cast<const In*>(data[2]),
                         reinterpret_cast<const In*>(data[3])};
      return half_blocks(reinterpret_cast<Out*>(data[0]), xs, bcast, n, f);
    }
  }
  if (strides[0] == sizeof(Out) && strides[1] == sizeof(In) && strides[2] == sizeof(In) && strides[3] == sizeof(In)) {
    Out* __restrict out = reinterpret_cast<Out*>(data[0]);
    const In* __restrict x = reinterpret_cast<const In*>(data[1]);
    const In* __restrict y = reinterpret_cast<const In*>(data[2]);
    const In* __restrict z = reinterpret_cast<const In*>(data[3]);
    constexpr bool plain = std::is_arithmetic_v<Out> && std::is_arithmetic_v<In>;
    EMBER_SIMD_FOR(plain, i, n,
                   out[i] = static_cast<Out>(f(static_cast<M>(x[i]), static_cast<M>(y[i]), static_cast<M>(z[i]))))
    return;
  }
  // clamp(x, lo, hi) and addcmul with number operands: two 0-d operands beside a contiguous one
  if (strides[0] == sizeof(Out) && strides[1] == sizeof(In) && strides[2] == 0 && strides[3] == 0) {
    Out* __restrict out = reinterpret_cast<Out*>(data[0]);
    const In* __restrict x = reinterpret_cast<const In*>(data[1]);
    const M yv = ld<In>(data[2]), zv = ld<In>(data[3]);
    constexpr bool plain = std::is_arithmetic_v<Out> && std::is_arithmetic_v<In>;
    EMBER_SIMD_FOR(plain, i, n, out[i] = static_cast<Out>(f(static_cast<M>(x[i]), yv, zv)))
    return;
  }
  // a reduced loss's backward: self and target contiguous, the incoming gradient 0-d
  if (strides[0] == sizeof(Out) && strides[1] == sizeof(In) && strides[2] == sizeof(In) && strides[3] == 0) {
    Out* __restrict out = reinterpret_cast<Out*>(data[0]);
    const In* __restrict x = reinterpret_cast<const In*>(data[1]);
    const In* __restrict y = reinterpret_cast<const In*>(data[2]);
    const M zv = ld<In>(data[3]);
    constexpr bool plain = std::is_arithmetic_v<Out> && std::is_arithmetic_v<In>;
    EMBER_SIMD_FOR(plain, i, n, out[i] = static_cast<Out>(f(static_cast<M>(x[i]), static_cast<M>(y[i]), zv)))
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    st<Out>(data[0] + i * strides[0],
            f(ld<In>(data[1] + i * strides[1]), ld<In>(data[2] + i * strides[2]), ld<In>(data[3] + i * strides[3])));
}

}  // namespace
}  // namespace ember::cpu
