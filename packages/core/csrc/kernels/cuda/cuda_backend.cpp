// The CUDA backend table: every family starts raising "no CUDA kernel" (kernels/cuda/
// backend_fill.h); the entries with a CUDA kernel are set here as they land.
#include "cuda_pointwise.h"  // generated: the ops.yaml kernels' CUDA entries
#include "kernels/cuda/attention_kernels.h"
#include "kernels/cuda/backend_fill.h"
#include "kernels/cuda/copy_kernels.h"
#include "kernels/cuda/cublas_gemm.h"
#include "kernels/cuda/fill_kernels.h"
#include "kernels/cuda/nll_kernels.h"
#include "kernels/cuda/optim_kernels.h"
#include "kernels/cuda/random_kernels.h"
#include "kernels/cuda/reduce_kernels.h"
#include "kernels/cuda/rnn_kernels.h"
#include "kernels/cuda/softmax_kernels.h"

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
    b.copy = {cuda::copy, cuda::where};
    cuda::fill_pointwise(b.pointwise);
    b.reduce.reduce = cuda::reduce;
    b.gemm.sgemm = cuda::sgemm;
    b.gemm.dgemm = cuda::dgemm;
    b.gemm.bf16_available = [] { return false; };  // half types widen to float32 (linalg.cpp's gemm)
    b.gemm.packed_available = [] { return false; };
    b.gemm.igemm = cuda::igemm;
    b.complex.cgemm = cuda::cgemm;
    b.complex.zgemm = cuda::zgemm;
    b.softmax = {cuda::softmax_forward, cuda::softmax_backward};
    b.loss = {cuda::nll_forward, cuda::nll_backward};
    b.optim = {cuda::adam_step, cuda::sgd_step};
    const RandomKernels& r = b.random;  // multinomial and poisson stay raising
    b.random = {cuda::uniform,         cuda::normal,       cuda::exponential,   cuda::cauchy,
                cuda::log_normal,      cuda::geometric,    cuda::bernoulli,     cuda::bernoulli_tensor,
                cuda::random_bits,     cuda::random_range, cuda::random_full64, cuda::randperm,
                r.multinomial_replace, r.multinomial_race, r.poisson,           cuda::dropout};
    b.attention = {cuda::flash_forward_f, cuda::flash_forward_d, cuda::flash_backward_f, cuda::flash_backward_d};
    b.rnn = {cuda::cell_rows_f, cuda::cell_rows_d, cuda::lstm_seq_f, cuda::lstm_seq_d};
    return b;
  }();
  return table;
}

}  // namespace ember
