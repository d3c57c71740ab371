// The widest vector instruction set the CPU kernels may use, decided once per process.
#pragma once

namespace ember {

enum class CpuCapability { Default = 0, Avx2 = 1, Avx512 = 2 };

// What this CPU supports (AVX2 means AVX2 + FMA; AVX-512 means F, DQ, VL and BW), capped by
// the environment variable EMBER_CPU_CAPABILITY ("default", "avx2" or "avx512"), as
// PyTorch's ATEN_CPU_CAPABILITY: so tests can run the narrower kernels on a wide machine.
CpuCapability cpu_capability();

inline bool cpu_has_avx2() { return cpu_capability() >= CpuCapability::Avx2; }
inline bool cpu_has_avx512() { return cpu_capability() >= CpuCapability::Avx512; }

}  // namespace ember
