// The generated bindings' CUDA guards (issue 24; codegen/cuda_support.py). An op that
// cuda_support.yaml marks unsupported checks its tensor arguments before its body runs: one on a
// CUDA device raises PyTorch's NotImplementedError for an operator without a CUDA kernel (a
// `host` op refuses meta tensors alone). Every
// binding also renames the CUDA table's "no CUDA kernel" error (kernels/cuda/cuda_backend.cpp)
// after its op, in the same words, as it leaves: nothing runs for that on the way in.
#pragma once
#include <initializer_list>
#include <string_view>

#include "core/error.h"
#include "device_check.h"

namespace ember::python {

// What kernels/cuda/cuda_backend.cpp's no_cuda_kernel() says (its message begins with this).
inline constexpr std::string_view kNoCudaKernel = "Could not run this operation with arguments from the 'CUDA' backend";

[[noreturn]] inline void fail_no_cuda(const char* aten_name, std::string_view why) {
  fail(ErrorKind::NotImplemented, "Could not run '", aten_name,
       "' with arguments from the 'CUDA' backend. This could be because the operator doesn't exist for this "
       "backend, or was omitted during the selective/custom build process (if using custom build). If you are a "
       "Facebook employee using PyTorch on mobile, please visit https://fburl.com/ptmfixes for possible "
       "resolutions. '",
       aten_name, "' is only available for these backends: [CPU]. (ember: ", why, "; issue 24)");
}

// The meta device runs the ops whose bodies reach only backend entries (the CUDA `kernel` ones):
// the others read tensor memory on the host, which a meta tensor has none of.
[[noreturn]] inline void fail_no_meta(const char* aten_name) {
  fail(ErrorKind::NotImplemented, aten_name,
       ": attempted to run this operator with Meta tensors, but there was no fake impl or Meta kernel registered.");
}

// An unsupported op's guard: a device-type test per tensor argument (Tensor[] elements and out= too).
inline void check_no_cuda(const ParsedArgs& A, std::initializer_list<int> idx, const char* aten_name, const char* why) {
  bool device = false, meta = false;
  for_each_tensor_arg(A, idx, [&](const Tensor& t) {
    device = device || !t.device().is_cpu();
    meta = meta || t.device().is_meta();
  });
  if (device) [[unlikely]] {
    if (meta) fail_no_meta(aten_name);
    fail_no_cuda(aten_name, why);
  }
}

// A host op's guard (cuda_support.yaml's `host`): a CUDA tensor is copied to the host and back
// by the op body; a meta tensor has no memory to copy.
inline void check_no_meta(const ParsedArgs& A, std::initializer_list<int> idx, const char* aten_name) {
  bool meta = false;
  for_each_tensor_arg(A, idx, [&](const Tensor& t) { meta = meta || t.device().is_meta(); });
  if (meta) [[unlikely]]
    fail_no_meta(aten_name);
}

// The binding's catch for the CUDA table's error: rethrown naming the op, anything else as it was.
[[noreturn]] inline void rethrow_naming_op(const Error& e, const char* aten_name) {
  const std::string_view msg = e.what();
  if (e.kind() == ErrorKind::NotImplemented && msg.substr(0, kNoCudaKernel.size()) == kNoCudaKernel)
    fail_no_cuda(aten_name, "no CUDA kernel for this operation or dtype yet");
  throw;
}

}  // namespace ember::python
