// The CUDA backend table: every family starts raising "no CUDA kernel" (kernels/cuda/
// backend_fill.h); the entries with a CUDA kernel are set here as they land.
#include "kernels/cuda/backend_fill.h"
#include "kernels/cuda/fill_kernels.h"

namespace ember {

namespace {
[[noreturn]] void no_cuda_kernel() {
  fail(ErrorKind::NotImplemented, "this operation has no CUDA kernel in ember yet (CUDA backend: issue 24)");
}
}  // namespace

const Backend& cuda_backend() {
  static const Backend table = [] {
    Backend b = backend_fill::raising_backend<no_cuda_kernel>(DeviceType::CUDA);
    b.fill.fill = cuda::fill;
    return b;
  }();
  return table;
}

}  // namespace ember
