// The CUDA table's error for an entry it lacks (kernels/cuda/cuda_backend.cpp): PyTorch's
// NotImplementedError, which the generated binding that called in names after its op
// ("Could not run 'aten::exp' with arguments from the 'CUDA' backend", python/cuda_support.h).
#pragma once

namespace ember {

[[noreturn]] void no_cuda_kernel();

}  // namespace ember
