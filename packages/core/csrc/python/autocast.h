// Autocast (ember.autocast): the generated binding of each op on PyTorch's CPU autocast lists
// casts its floating tensor arguments before the call. Off, the cost is one relaxed load of a
// process-wide counter and a predicted branch, in those bindings only.
#pragma once
#include <atomic>

#include "arg_parser.h"

namespace ember::python {

enum class AutocastPolicy : uint8_t {
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

// Casts A's tensor (and tensor-list) arguments named by `mask` (bit i = parameter i) under
// `policy`, replacing them in A; owns the new Python objects until the call returns.
class AutocastArgs {
 public:
  AutocastArgs() = default;
  AutocastArgs(const AutocastArgs&) = delete;
  AutocastArgs& operator=(const AutocastArgs&) = delete;
  ~AutocastArgs();
  void apply(AutocastPolicy policy, ParsedArgs& A, uint32_t mask);

 private:
  PyObject* held_[kMaxParams] = {};
};

// One tensor cast as a lower-precision-list op casts it (for bindings written by hand).
Tensor autocast_lower(const Tensor& t);

void init_autocast(PyObject* module);

}  // namespace ember::python
