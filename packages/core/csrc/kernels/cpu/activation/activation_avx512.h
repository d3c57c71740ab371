// The hot activations' table kernels (gelu, silu, sigmoid) compiled for AVX-512, on CPUs that allow
// it (see activation_avx512.cpp).
#pragma once
#include "kernel_table.h"

namespace ember::cpu {

// Replaces those entries of a filled table when cpu_has_avx512(); otherwise leaves them.
void use_avx512_activations(PointwiseKernels& t);

}  // namespace ember::cpu
