// CPU-feature (ISA) variants: the one scheme every kernel family follows.
//
// One decision: cpu_capability() (core/cpu_capability.h) says, once per process, the widest
// ISA the kernels may use -- Default, Avx2 (AVX2 + FMA) or Avx512 (F/DQ/VL/BW) -- capped by
// EMBER_CPU_CAPABILITY so tests can run the narrower paths on a wide machine. Every variant is
// chosen by that answer (cpu_has_avx2() / cpu_has_avx512()), never by compile flags alone.
// Every file is built for baseline x86-64; wider code is produced in one of three forms:
//
//  1. EMBER_ISA_VARIANTS (below), the default for a new kernel: one always-inline range
//     kernel compiled three ways (baseline, AVX2+FMA, AVX-512) in the same file through
//     target attributes, the widest allowed variant picked at run time (norms, softmax,
//     upsample, attention, rnn gates).
//  2. Hand-written intrinsics for one ISA (the AVX-512 tiles of kernels/cpu/gemm, conv, pool,
//     rnn/gate_math512.h, index/gather_contig, complex/complex_vector_loops): functions marked EMBER_TARGET_AVX512 (or
//     _AVX2), called only after the matching cpu_has_* check, with a portable fallback.
//  3. The table families (kernels/cpu/pointwise, kernels/cpu/reduce and the generated
//     pointwise kernels): whole files compiled once per capability by CMake (ember_kernels()
//     in CMakeLists.txt: base and avx2) into ember::cpu::<cap>, the table filled from the
//     allowed build by kernels/cpu/backend_cpu.cpp. Used only there: ~100 generated kernels
//     rely on the auto-vectoriser, which needs the ISA as a compile flag.
//     The generated kernels marked `avx512: true` in ops.yaml (the compute-bound ones: exp, erf,
//     tanh, gelu, ...) are built a third time, for AVX-512 (kernels_pointwise_avx512.cpp), and
//     replace their AVX2 entries where AVX-512 is allowed.
//
// Form 1:
//
//   template <class T> EMBER_VEC_INLINE void my_rows(const Args<T>& p, int64_t b, int64_t e);
//   EMBER_ISA_VARIANTS(my_rows, Args)
//   ... my_rows_best<float>()(p, b, e);
#pragma once
#include <cstdint>

#include "../../core/cpu_capability.h"

#ifdef EMBER_HAVE_TARGETS
#define EMBER_ISA_VARIANTS(name, Args)                                             \
  template <class T>                                                               \
  void name##_base(const Args<T>& p, int64_t b, int64_t e) {                       \
    name<T>(p, b, e);                                                              \
  }                                                                                \
  template <class T>                                                               \
  EMBER_TARGET_AVX2 void name##_avx2(const Args<T>& p, int64_t b, int64_t e) {     \
    name<T>(p, b, e);                                                              \
  }                                                                                \
  template <class T>                                                               \
  EMBER_TARGET_AVX512 void name##_avx512(const Args<T>& p, int64_t b, int64_t e) { \
    name<T>(p, b, e);                                                              \
  }                                                                                \
  template <class T>                                                               \
  auto name##_best() -> void (*)(const Args<T>&, int64_t, int64_t) {               \
    if (::ember::cpu_has_avx512()) return name##_avx512<T>;                        \
    if (::ember::cpu_has_avx2()) return name##_avx2<T>;                            \
    return name##_base<T>;                                                         \
  }
#else
#define EMBER_ISA_VARIANTS(name, Args)                                       \
  template <class T>                                                         \
  auto name##_best() -> void (*)(const Args<T>&, int64_t, int64_t) {         \
    return [](const Args<T>& p, int64_t b, int64_t e) { name<T>(p, b, e); }; \
  }
#endif
