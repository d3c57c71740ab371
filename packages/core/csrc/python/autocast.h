// Autocast (ember.autocast): the generated binding of each op on PyTorch's CPU autocast lists
// casts its floating tensor arguments before the call. Off, the cost is one relaxed load of a
// process-wide counter and a predicted branch, in those bindings only.
#pragma once
#include <atomic>

#include "arg_parser.h"

namespace ember::python {

// What an op does under one device type's autocast (the CPU's and CUDA's lists differ).
enum class AutocastPolicy : uint8_t {
  None,     // not on this device type's lists: arguments as they are
  Lower,    // run in the autocast dtype (matmul, linear, conv, bmm, addmm, ...)
  Fp32,     // run in float32 (losses, linalg, 3-d pools, ...)
  Promote,  // run in the widest floating type among the arguments (cat, stack, index_copy)
};

// Threads whose autocast is on right now; nonzero sends a binding to the thread-local check.
inline std::atomic<int> g_autocast_threads{0};

bool autocast_enabled_here();  // this thread's state (the slow part of the check)

inline bool autocast_active() {
  return g_autocast_threads.load(std::memory_order_relaxed) != 0 && autocast_enabled_here();
}

// Casts A's tensor (and tensor-list) arguments named by `mask` (bit i = parameter i), replacing
// them in A, under the policy of the op's device type (CUDA when any of them is on a GPU, as
// PyTorch's AutocastCUDA key outranks AutocastCPU) if that device type's autocast is on; only
// tensors on that device type are cast. Owns the new Python objects until the call returns.
class AutocastArgs {
 public:
  AutocastArgs() = default;
  AutocastArgs(const AutocastArgs&) = delete;
  AutocastArgs& operator=(const AutocastArgs&) = delete;
  ~AutocastArgs();
  void apply(AutocastPolicy cpu, AutocastPolicy cuda, ParsedArgs& A, uint32_t mask);

 private:
  PyObject* held_[kMaxParams] = {};
};

// One tensor cast as a lower-precision-list op casts it on its device type (for bindings written
// by hand; both device types list matmul).
Tensor autocast_lower(const Tensor& t);

void init_autocast(PyObject* module);

}  // namespace ember::python
