// The current CUDA stream, per thread and device, as PyTorch keeps it: every kernel launch, cuBLAS
// call and copy in the CUDA backend goes onto current_stream(device), and the caching allocator
// tags each block with it. nullptr is the default (legacy) stream, ember.cuda.default_stream().
#pragma once
#include <cuda_runtime_api.h>

namespace ember::cuda {

// The calling thread's current stream on `device` (an index >= 0; -1: the current device).
cudaStream_t current_stream(int device);
// Makes `s` current for the calling thread on `device` (ember.cuda.set_stream, the stream() context).
void set_current_stream(int device, cudaStream_t s);

}  // namespace ember::cuda
