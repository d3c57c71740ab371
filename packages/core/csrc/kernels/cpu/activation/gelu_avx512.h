// gelu's four table kernels compiled for AVX-512, on CPUs that allow it (see gelu_avx512.cpp).
#pragma once
#include "kernel_table.h"

namespace ember::cpu {

// Replaces the gelu entries of a filled table when cpu_has_avx512(); otherwise leaves them.
void use_avx512_gelu(PointwiseKernels& t);

}  // namespace ember::cpu
