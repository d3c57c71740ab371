// ember.cuda.nvtx: NVTX ranges and marks for NVIDIA's profilers (Nsight Systems), through the CUDA
// toolkit's header-only NVTX 3 (it finds the profiler's injection library at run time; without
// one every call returns at once).
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <string>

#include "kernels/cuda/cuda_runtime_api.h"

namespace ember {

int cuda_nvtx_range_push(const std::string& message) { return nvtxRangePushA(message.c_str()); }
int cuda_nvtx_range_pop() { return nvtxRangePop(); }
uint64_t cuda_nvtx_range_start(const std::string& message) { return nvtxRangeStartA(message.c_str()); }
void cuda_nvtx_range_end(uint64_t range) { nvtxRangeEnd(range); }
void cuda_nvtx_mark(const std::string& message) { nvtxMarkA(message.c_str()); }

}  // namespace ember
