// The CUDA backend when ember is built without EMBER_CUDA: linked instead of kernels/cuda/, so
// op code needs no #ifdefs. Its backend table (kernels/backend.h) has every entry, each raising
// PyTorch's error (AssertionError "Torch not compiled with CUDA enabled"); the CUDA backend
// fills the same table with its kernels.
#include "kernels/backend.h"

namespace ember {

bool cuda_is_compiled() { return false; }
int cuda_device_count() { return 0; }

void cuda_backend_unavailable() { fail(ErrorKind::NoCuda, "Torch not compiled with CUDA enabled"); }

namespace {

// One stub per entry type: the template takes the signature of the pointer it is assigned to.
template <class R, class... Args>
R unavailable(Args...) {
  cuda_backend_unavailable();
}

template <class T>
LapackKernels<T> lapack_stub() {
  return {unavailable, unavailable, unavailable, unavailable, unavailable, unavailable,
          unavailable, unavailable, unavailable, unavailable, unavailable, unavailable};
}

template <class T>
MatrixPasses<T> matrix_stub() {
  return {unavailable, unavailable, unavailable, unavailable, unavailable};
}

Backend make_cuda_stub() {
  Backend b{};
  b.device = DeviceType::CUDA;
  fill_pointwise_with(b.pointwise, unavailable);
  b.copy = {unavailable, unavailable};
  b.reduce = {unavailable, unavailable, unavailable};
  b.gemm = {unavailable, unavailable, unavailable, unavailable, unavailable, unavailable, unavailable, unavailable};
  b.conv = {unavailable, unavailable, unavailable};
  b.pool = {unavailable, unavailable, unavailable, unavailable, unavailable,
            unavailable, unavailable, unavailable, unavailable};
  b.index = {unavailable, unavailable, unavailable, unavailable, unavailable, unavailable, unavailable, unavailable,
             unavailable, unavailable, unavailable, unavailable, unavailable, unavailable, unavailable, unavailable,
             unavailable, unavailable, unavailable, unavailable, unavailable, unavailable, unavailable};
  b.shape = {unavailable, unavailable, unavailable, unavailable};
  b.linalg = {lapack_stub<float>(), lapack_stub<double>(), unavailable, unavailable};
  b.softmax = {unavailable, unavailable};
  b.attention = {unavailable, unavailable, unavailable, unavailable};
  b.random = {unavailable, unavailable, unavailable, unavailable, unavailable, unavailable, unavailable, unavailable,
              unavailable, unavailable, unavailable, unavailable, unavailable, unavailable, unavailable, unavailable};
  b.scan = {unavailable, unavailable};
  b.upsample = {unavailable};
  b.norm = {unavailable, unavailable, unavailable, unavailable, unavailable, unavailable, unavailable};
  b.sort = {unavailable, unavailable, unavailable};
  b.rnn = {unavailable, unavailable, unavailable, unavailable};
  b.optim = {unavailable, unavailable};
  b.embedding = {unavailable, unavailable, unavailable};
  b.loss = {unavailable, unavailable};
  b.fill = {unavailable, unavailable, unavailable, unavailable};
  b.matrix = {matrix_stub<float>(), matrix_stub<double>(), unavailable, unavailable};
  b.complex = {unavailable, unavailable, unavailable, unavailable, unavailable, unavailable, unavailable};
  return b;
}

}  // namespace

const Backend& cuda_backend() {
  static const Backend table = make_cuda_stub();
  return table;
}

}  // namespace ember
