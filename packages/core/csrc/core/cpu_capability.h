// The widest vector instruction set the CPU kernels may use, decided once per process.
#pragma once

// Function attributes that compile one function for a wider ISA than the file's baseline;
// call such a function only after the matching cpu_has_* check.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define EMBER_HAVE_TARGETS 1
#define EMBER_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define EMBER_TARGET_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,avx2,fma")))
#else
#define EMBER_TARGET_AVX2
#define EMBER_TARGET_AVX512
#endif

namespace ember {

enum class CpuCapability { Default = 0, Avx2 = 1, Avx512 = 2 };

// What this CPU supports (AVX2 means AVX2 + FMA; AVX-512 means F, DQ, VL and BW), capped by
// the environment variable EMBER_CPU_CAPABILITY ("default", "avx2" or "avx512"), as
// PyTorch's ATEN_CPU_CAPABILITY: so tests can run the narrower kernels on a wide machine.
CpuCapability cpu_capability();

inline bool cpu_has_avx2() { return cpu_capability() >= CpuCapability::Avx2; }
inline bool cpu_has_avx512() { return cpu_capability() >= CpuCapability::Avx512; }
// The CPU's own AVX-512 (F, DQ, VL, BW), whatever EMBER_CPU_CAPABILITY caps: for a choice PyTorch
// makes from the hardware (its oneDNN bfloat16 convolution path).
bool cpu_hardware_has_avx512();

}  // namespace ember
