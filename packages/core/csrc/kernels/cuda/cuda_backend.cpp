// The CUDA backend table: every family starts raising "no CUDA kernel" (kernels/cuda/
// backend_fill.h); the entries with a CUDA kernel are set here as they land.
#include "cuda_pointwise.h"  // generated: the ops.yaml kernels' CUDA entries
#include "kernels/backend_fill.h"
#include "kernels/cuda/arg_reduce_kernels.h"
#include "kernels/cuda/attention_kernels.h"
#include "kernels/cuda/complex_kernels.h"
#include "kernels/cuda/conv_kernels.h"
#include "kernels/cuda/copy_kernels.h"
#include "kernels/cuda/cublas_gemm.h"
#include "kernels/cuda/embedding_kernels.h"
#include "kernels/cuda/fill_kernels.h"
#include "kernels/cuda/grid_sample_kernels.h"
#include "kernels/cuda/index_kernels.h"
#include "kernels/cuda/nll_kernels.h"
#include "kernels/cuda/no_cuda_kernel.h"
#include "kernels/cuda/norm_kernels.h"
#include "kernels/cuda/optim_kernels.h"
#include "kernels/cuda/pool_kernels.h"
#include "kernels/cuda/random_kernels.h"
#include "kernels/cuda/reduce_kernels.h"
#include "kernels/cuda/rnn_kernels.h"
#include "kernels/cuda/scan_kernels.h"
#include "kernels/cuda/sequence_kernels.h"
#include "kernels/cuda/shape_kernels.h"
#include "kernels/cuda/softmax_kernels.h"
#include "kernels/cuda/sort_kernels.h"
#include "kernels/cuda/upsample_kernels.h"

namespace ember {

// PyTorch's words for an operator without a CUDA kernel (python/cuda_support.h matches this opening).
void no_cuda_kernel() {
  fail(ErrorKind::NotImplemented,
       "Could not run this operation with arguments from the 'CUDA' backend: ember has no CUDA kernel for it "
       "yet (issue 24)");
}

const Backend& cuda_backend() {
  static const Backend table = [] {
    Backend b = backend_fill::raising_backend<no_cuda_kernel>(DeviceType::CUDA);
    b.fill.fill = cuda::fill;
    b.fill.arange = cuda::arange;
    b.fill.linspace = cuda::linspace;
    b.fill.eye = cuda::eye;
    b.copy = {cuda::copy, cuda::where};
    cuda::fill_pointwise(b.pointwise);
    b.reduce.reduce = cuda::reduce;
    b.reduce.arg_reduce = cuda::arg_reduce;
    b.reduce.cumulative = cuda::cumulative;
    b.reduce.moments = cuda::moments;
    b.shape.strided_gather = cuda::strided_gather;
    b.shape.pad = cuda::pad;
    b.shape.triangle = cuda::triangle;
    b.shape.triangle_strided = cuda::triangle_strided;
    b.shape.cat_block = cuda::cat_block;
    b.scan = {cuda::logcumsumexp, cuda::cum_extreme};
    b.sort = {cuda::sort, cuda::topk, cuda::select};
    b.gemm.sgemm = cuda::sgemm;
    b.gemm.dgemm = cuda::dgemm;
    b.gemm.sgemm_batched = cuda::sgemm_batched;
    b.gemm.dgemm_batched = cuda::dgemm_batched;
    b.gemm.bf16_available = [] { return false; };  // half types widen to float32 (linalg.cpp's gemm)
    b.gemm.packed_available = [] { return false; };
    b.gemm.igemm = cuda::igemm;
    b.complex.cgemm = cuda::cgemm;
    b.complex.zgemm = cuda::zgemm;
    b.complex.pointwise = cuda::complex_pointwise;
    b.complex.abs = cuda::complex_abs;
    b.complex.from_parts = cuda::complex_from_parts;
    b.complex.conj = cuda::complex_conj;
    b.complex.angle = cuda::complex_angle;
    b.softmax = {cuda::softmax_forward, cuda::softmax_backward};
    b.loss = {cuda::nll_forward, cuda::nll_backward};
    b.optim = {cuda::adam_steps, cuda::sgd_step};
    b.conv = {cuda::conv_img_to_cols, cuda::conv_cols_to_img, cuda::conv_weight_grad};
    b.pool.max_windows = cuda::max_pool_windows;
    b.pool.max2x2_applies = cuda::max_pool_2x2_applies;  // max2x2_planes stays raising
    b.pool.grid_sample = cuda::grid_sample;
    b.pool.grid_sample_backward = cuda::grid_sample_backward;
    b.pool.avg_forward = cuda::avg_pool_forward;
    b.pool.avg_backward = cuda::avg_pool_backward;
    b.pool.unpool_scatter = cuda::unpool_scatter;
    b.pool.unpool_scatter_add = cuda::unpool_scatter_add;
    b.upsample.upsample = cuda::upsample;
    b.norm = {cuda::layer_norm_forward,        cuda::layer_norm_backward, cuda::batch_norm_forward,
              cuda::batch_norm_update_running, cuda::batch_norm_backward, cuda::group_norm_forward,
              cuda::group_norm_backward};
    cuda::fill_index_kernels(b.index);
    b.embedding = {cuda::embedding_gather_rows, cuda::embedding_backward, cuda::one_hot};
    // multinomial null: composed from the device's ops (random_sample.cpp)
    b.random = {cuda::uniform,
                cuda::normal,
                cuda::exponential,
                cuda::cauchy,
                cuda::log_normal,
                cuda::geometric,
                cuda::bernoulli,
                cuda::bernoulli_tensor,
                cuda::random_bits,
                cuda::random_range,
                cuda::random_full64,
                cuda::randperm,
                nullptr,
                nullptr,
                cuda::poisson,
                cuda::dropout};
    b.attention = {cuda::flash_forward_f, cuda::flash_forward_d, cuda::flash_backward_f, cuda::flash_backward_d};
    b.rnn = {cuda::cell_rows_f, cuda::cell_rows_d, cuda::lstm_seq_f, cuda::lstm_seq_d};
    return b;
  }();
  return table;
}

}  // namespace ember
