// What the emulator's runtime (runtime.cpp) and kernel scheduler (scheduler.cpp) share.
#pragma once
#include <cstddef>
#include <string>

#include "cuda_runtime_api.h"

namespace emu {

// An environment setting, or fallback when unset.
long env_long(const char* name, long fallback);
// Records a failed call's error for cudaGetLastError, with the emulator's explanation (printed too).
cudaError_t set_error(cudaError_t e, const std::string& detail);
// A kernel that went wrong while running (a deadlock, an exception): reported at the next
// synchronising call, as an asynchronous CUDA error is.
void report_failure(const std::string& detail);
// Runs a kernel grid (scheduler.cpp); throws std::runtime_error when the kernel goes wrong.
struct Config;
struct Kernel;
void run_grid(const Config& c, Kernel& k);

}  // namespace emu
