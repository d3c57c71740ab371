// The bfloat16 extensions on top of AVX-512 the GEMM kernels may use, decided once per process
// (implemented in cpu_capability.cpp, beside the capability they extend).
#pragma once

namespace ember {

// VDPBF16PS (AVX512-BF16), and the AMX-BF16 tiles (which also need the kernel's permission for the
// tile state, asked once here; false when refused). Capped by EMBER_CPU_CAPABILITY too: "avx512"
// (or narrower) turns both off, "avx512_bf16" only AMX.
bool cpu_has_avx512_bf16();
bool cpu_has_amx_bf16();

}  // namespace ember
