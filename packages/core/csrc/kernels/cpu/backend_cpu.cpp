// The CPU backend table (kernels/backend.h), filled once: the table families (pointwise,
// copy/where, reduce) from the build for this CPU's capability -- AVX2+FMA when allowed, else
// the baseline build (each compiles the same sources, see CMakeLists.txt ember_kernels());
// every other family picks its ISA variant inside its own entry points (isa_variants.h).
#include "core/cpu_capability.h"
#include "kernels/backend.h"
#include "kernels/cpu/attention/flash_attention.h"
#include "kernels/cpu/complex/complex_gemm.h"
#include "kernels/cpu/complex/complex_parts.h"
#include "kernels/cpu/complex/complex_pointwise.h"
#include "kernels/cpu/conv/conv_kernels.h"
#include "kernels/cpu/embedding/embedding_rows.h"
#include "kernels/cpu/fill/fill_kernels.h"
#include "kernels/cpu/gemm/bf16_gemm.h"
#include "kernels/cpu/gemm/blas_gemm.h"
#include "kernels/cpu/gemm/int_gemm.h"
#include "kernels/cpu/gemm/packed_gemm.h"
#include "kernels/cpu/index/index_kernels.h"
#include "kernels/cpu/linalg/lapack.h"
#include "kernels/cpu/linalg/lu_solve.h"
#include "kernels/cpu/linalg/matrix_passes.h"
#include "kernels/cpu/loss/nll_loss.h"
#include "kernels/cpu/norm/norm_kernels.h"
#include "kernels/cpu/norm/softmax.h"
#include "kernels/cpu/optim/fused_steps.h"
#include "kernels/cpu/pool/avg_pool.h"
#include "kernels/cpu/pool/grid_sample.h"
#include "kernels/cpu/pool/max_pool.h"
#include "kernels/cpu/pool/max_pool2x2.h"
#include "kernels/cpu/pool/max_unpool.h"
#include "kernels/cpu/pool/upsample.h"
#include "kernels/cpu/random/samplers.h"
#include "kernels/cpu/rnn/gate_rows.h"
#include "kernels/cpu/scan/scan_kernels.h"
#include "kernels/cpu/shape/pad_kernels.h"
#include "kernels/cpu/shape/shape_kernels.h"
#include "kernels/cpu/sort/sort_kernels.h"

namespace ember {
namespace cpu::base {
void fill_pointwise(PointwiseKernels&);
void fill_cpu(Backend&);
}  // namespace cpu::base
namespace cpu::avx2 {
void fill_pointwise(PointwiseKernels&);
void fill_cpu(Backend&);
}  // namespace cpu::avx2
namespace cpu::avx512 {
void fill_pointwise_wide(PointwiseKernels&);  // only the ops.yaml kernels marked avx512
}  // namespace cpu::avx512

namespace {

Backend make_cpu_backend() {
  Backend b{};
  b.device = DeviceType::CPU;
  if (cpu_has_avx2()) {
    cpu::avx2::fill_pointwise(b.pointwise);
    cpu::avx2::fill_cpu(b);
  } else {
    cpu::base::fill_pointwise(b.pointwise);
    cpu::base::fill_cpu(b);
  }
  if (cpu_has_avx512()) cpu::avx512::fill_pointwise_wide(b.pointwise);
  // static_cast picks the float / double overload of each kernel.
  b.gemm.sgemm = static_cast<GemmKernels::Sgemm>(blas_gemm);
  b.gemm.dgemm = static_cast<GemmKernels::Dgemm>(blas_gemm);
  b.gemm.bf16_available = bf16_gemm_available;
  b.gemm.bf16gemm = bf16_gemm;
  b.gemm.packed_available = packed_gemm_available;
  b.gemm.pack_b = pack_b;
  b.gemm.packed_gemm = packed_gemm;
  b.gemm.igemm = int_gemm;
  b.conv.img_to_cols = conv::img_to_cols;
  b.conv.cols_to_img = conv::cols_to_img;
  b.conv.weight_grad = conv::weight_grad;
  b.pool.max_windows = pool::max_windows;
  b.pool.max2x2_applies = pool::max2x2_applies;
  b.pool.max2x2_planes = pool::max2x2_planes;
  b.pool.grid_sample = pool::grid_sample_forward;
  b.pool.grid_sample_backward = pool::grid_sample_backward;
  b.pool.avg_forward = pool::avg_forward;
  b.pool.avg_backward = pool::avg_backward;
  b.pool.unpool_scatter = pool::unpool_scatter;
  b.pool.unpool_scatter_add = pool::unpool_scatter_add;
  b.index.first_out_of_range = indexing::first_out_of_range;
  b.index.gather = indexing::gather;
  b.index.scatter = indexing::scatter;
  b.index.select_rows = indexing::select_rows;
  b.index.copy_rows = indexing::copy_rows;
  b.index.add_rows = indexing::add_rows;
  b.index.fill_rows = indexing::fill_rows;
  b.index.take = indexing::take;
  b.index.put = indexing::put;
  b.index.add_offsets = indexing::add_offsets;
  b.index.advanced_gather = indexing::advanced_gather;
  b.index.advanced_put = indexing::advanced_put;
  b.index.count_true = indexing::count_true;
  b.index.nonzero = indexing::nonzero;
  b.index.masked_select = indexing::masked_select;
  b.index.masked_fill = indexing::masked_fill;
  b.index.masked_fill_strided = indexing::masked_fill_strided;
  b.index.masked_scatter = indexing::masked_scatter;
  b.index.to_doubles = indexing::to_doubles;
  b.index.searchsorted = indexing::searchsorted;
  b.index.bincount = indexing::bincount;
  b.index.histc = indexing::histc;
  b.index.unique_groups = indexing::unique_groups;
  b.shape = {shapes::strided_gather, shapes::triangle, shapes::triangle_strided, shapes::cat_block, shapes::pad};
  b.linalg.lapack_f = lapack::cpu_lapack_f();
  b.linalg.lapack_d = lapack::cpu_lapack_d();
  b.linalg.lu_solve_f = static_cast<void (*)(int64_t, int64_t, const float*, const int*, float*)>(lu_solve_blocked);
  b.linalg.lu_solve_d = static_cast<void (*)(int64_t, int64_t, const double*, const int*, double*)>(lu_solve_blocked);
  b.softmax.forward = softmax::forward;
  b.softmax.backward = softmax::backward;
  b.attention.flash_forward_f = static_cast<void (*)(const attention::FlashForward<float>&)>(attention::flash_forward);
  b.attention.flash_forward_d = static_cast<void (*)(const attention::FlashForward<double>&)>(attention::flash_forward);
  b.attention.flash_backward_f =
      static_cast<void (*)(const attention::FlashBackward<float>&)>(attention::flash_backward);
  b.attention.flash_backward_d =
      static_cast<void (*)(const attention::FlashBackward<double>&)>(attention::flash_backward);
  b.random = {sampling::uniform,
              sampling::normal,
              sampling::exponential,
              sampling::cauchy,
              sampling::log_normal,
              sampling::geometric,
              sampling::bernoulli,
              sampling::bernoulli_tensor,
              sampling::random_bits,
              sampling::random_range,
              sampling::random_full64,
              sampling::randperm,
              sampling::multinomial_replace,
              sampling::multinomial_race,
              sampling::poisson,
              sampling::dropout};
  b.scan.logcumsumexp = scan::logcumsumexp;
  b.scan.cum_extreme = scan::cum_extreme;
  b.upsample.upsample = upsample::upsample;
  b.norm = {norms::layer_forward,  norms::layer_backward, norms::batch_forward, norms::batch_update_running,
            norms::batch_backward, norms::group_forward,  norms::group_backward};
  b.sort = {sorting::sort_rows, sorting::topk_rows, sorting::select_rows};
  b.complex.pointwise = complex_pointwise;
  b.complex.abs = complex_abs;
  b.complex.cgemm = static_cast<ComplexKernels::Gemm<float>>(complex_gemm);
  b.complex.zgemm = static_cast<ComplexKernels::Gemm<double>>(complex_gemm);
  b.complex.from_parts = complex_from_parts;
  b.complex.conj = complex_conj;
  b.complex.angle = complex_angle;
  b.rnn.cell_rows_f = static_cast<void (*)(const rnn::Rows<float>&, int64_t, bool)>(rnn::cell_rows);
  b.rnn.cell_rows_d = static_cast<void (*)(const rnn::Rows<double>&, int64_t, bool)>(rnn::cell_rows);
  b.rnn.lstm_seq_f = static_cast<void (*)(const rnn::LstmSeqRows<float>&, int64_t, bool)>(rnn::lstm_seq);
  b.rnn.lstm_seq_d = static_cast<void (*)(const rnn::LstmSeqRows<double>&, int64_t, bool)>(rnn::lstm_seq);
  b.optim = {optim::adam_steps, optim::sgd_step};
  b.embedding = {embedding::gather_rows, embedding::backward, embedding::one_hot};
  b.loss = {loss::nll_forward, loss::nll_backward};
  b.fill = {fill::fill, fill::arange, fill::linspace, fill::eye};
  b.matrix.passes_f = {matrix::zero_strict_upper<float>, matrix::first_nan_diagonal<float>, matrix::lu_det<float>,
                       matrix::upper_rows<float>, matrix::row_swaps<float>};
  b.matrix.passes_d = {matrix::zero_strict_upper<double>, matrix::first_nan_diagonal<double>, matrix::lu_det<double>,
                       matrix::upper_rows<double>, matrix::row_swaps<double>};
  b.matrix.lu_permutation = matrix::lu_permutation;
  b.matrix.scaled_store = matrix::scaled_store;
  return b;
}

}  // namespace

const Backend& cpu_backend() {
  static const Backend table = make_cpu_backend();
  return table;
}

}  // namespace ember
