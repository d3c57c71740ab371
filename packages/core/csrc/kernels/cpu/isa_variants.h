// One always-inline range kernel compiled three ways (baseline, AVX2+FMA, AVX-512) in a
// file built for baseline x86-64, and the widest variant this CPU allows picked at run time.
//
//   template <class T> EMBER_VEC_INLINE void my_rows(const Args<T>& p, int64_t b, int64_t e);
//   EMBER_ISA_VARIANTS(my_rows, Args)
//   ... my_rows_best<float>()(p, b, e);
#pragma once
#include <cstdint>

#include "../../core/cpu_capability.h"

#ifdef EMBER_HAVE_TARGETS
#define EMBER_ISA_VARIANTS(name, Args)                                                              \
  template <class T>                                                                                \
  void name##_base(const Args<T>& p, int64_t b, int64_t e) { name<T>(p, b, e); }                    \
  template <class T>                                                                                \
  EMBER_TARGET_AVX2 void name##_avx2(const Args<T>& p, int64_t b, int64_t e) { name<T>(p, b, e); }  \
  template <class T>                                                                                \
  EMBER_TARGET_AVX512 void name##_avx512(const Args<T>& p, int64_t b, int64_t e) { name<T>(p, b, e); } \
  template <class T>                                                                                \
  auto name##_best() -> void (*)(const Args<T>&, int64_t, int64_t) {                                \
    if (::ember::cpu_has_avx512()) return name##_avx512<T>;                                         \
    if (::ember::cpu_has_avx2()) return name##_avx2<T>;                                             \
    return name##_base<T>;                                                                          \
  }
#else
#define EMBER_ISA_VARIANTS(name, Args)                                \
  template <class T>                                                  \
  auto name##_best() -> void (*)(const Args<T>&, int64_t, int64_t) {  \
    return [](const Args<T>& p, int64_t b, int64_t e) { name<T>(p, b, e); }; \
  }
#endif
