// PyTorch's deterministic mode, as far as the CPU ops see it: with fill_uninitialized_memory on,
// the empty() family returns NaN (floats) / the dtype's maximum (integers) / True instead of
// whatever the allocator handed out.
#pragma once
#include <atomic>

namespace ember {

class Tensor;
inline std::atomic<bool> g_fill_uninitialized{false};

// Fills t as above when the flag is on; returns t.
const Tensor& fill_uninitialized(const Tensor& t);

}  // namespace ember
