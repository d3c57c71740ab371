// What ember.cuda asks of the CUDA runtime (kernels/cuda/cuda_device.cpp; in a build without
// EMBER_CUDA, cuda_stub.cpp, where the queries answer "no GPU" and the rest raise "Torch not
// compiled with CUDA enabled"). Device indices of -1 mean the current device.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ember {

bool cuda_is_compiled();
int cuda_device_count();
bool cuda_is_initialized();
int cuda_device_index(int index);  // initialises CUDA; PyTorch's errors; -1 -> the current device
void cuda_set_device(int index);
void cuda_synchronize(int index);

struct CudaDeviceProperties {
  std::string name;
  int major = 0, minor = 0, multi_processor_count = 0;
  int64_t total_memory = 0;
};
CudaDeviceProperties cuda_device_properties(int index);

std::vector<std::pair<std::string, int64_t>> cuda_memory_stats(int index);
void cuda_empty_cache();
void cuda_reset_peak_memory_stats(int index);

// Where a CUDA library (by soname) lives when dlopen cannot find it by name: ember.cuda registers
// one that looks through NVIDIA's pip packages on sys.path; "" when it is not there either.
using LibraryLocator = std::string (*)(const std::string& soname);
namespace cuda {
void set_library_locator(LibraryLocator locator);
}

}  // namespace ember
