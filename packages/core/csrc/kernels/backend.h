// The backend table: one per device, the only road from an op body to a compute kernel.
//
// An op body checks its arguments, allocates its result (on the inputs' device) and then calls
// backend(device).<family>.<kernel>(...). Each family is a struct of function pointers filled
// once per process: the CPU table (kernels/cpu/backend_cpu.cpp) from the kernels built for the
// widest ISA this CPU allows (kernels/cpu/isa_variants.h), the CUDA table from kernels/cuda/ --
// in a build without EMBER_CUDA a stub whose every entry raises PyTorch's "Torch not compiled
// with CUDA enabled" (kernels/cuda/cuda_stub.cpp). A new device fills one more Backend; a new
// kernel family adds one struct here and one line per device that fills it.
//
// Kernels only compute: they never allocate tensors, dispatch to other ops or touch autograd
// (scratch memory comes from cpu_alloc). Their tensor arguments are already on the device.
#pragma once
#include <complex>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/device.h"
#include "core/generator.h"
#include "core/tensor.h"
#include "kernel_table.h"  // PointwiseKernels: generated from ops.yaml's kernels
#include "kernels/attention_args.h"
#include "kernels/avg_pool_geometry.h"
#include "kernels/conv_geometry.h"
#include "kernels/grid_sample_geometry.h"
#include "kernels/index_args.h"
#include "kernels/lapack_kernels.h"
#include "kernels/loss_args.h"
#include "kernels/norm_args.h"
#include "kernels/optim_args.h"
#include "kernels/packed_weight.h"
#include "kernels/pool_window.h"
#include "kernels/reduce_kind.h"
#include "kernels/rnn_rows.h"
#include "kernels/sampling_args.h"
#include "kernels/sort_kind.h"
#include "kernels/upsample_geometry.h"

namespace ember {

class ElementwiseIter;
struct ReduceIter;

// copy/cast and where over an ElementwiseIter.
struct CopyKernels {
  void (*copy)(ElementwiseIter& it);   // operand 1 (any dtype) into operand 0
  void (*where)(ElementwiseIter& it);  // out, bool cond, a, b
  // n float16 values (as bits) to float and back, rounding to nearest even: F16C's conversions where
  // the CPU has them, for float16 loops in the core library (built without F16C). CPU only.
  void (*widen_half)(const uint16_t* h, float* f, int64_t n) = nullptr;
  void (*narrow_half)(const float* f, uint16_t* h, int64_t n) = nullptr;
};

struct ReduceKernels {
  void (*reduce)(ReduceIter& it, ReduceKind kind);
  // Index of max/min along the last dim of a [outer, n] view; values optional.
  void (*arg_reduce)(const Tensor& in, const Tensor& values, const Tensor& indices, bool is_max);
  void (*cumulative)(const Tensor& in, const Tensor& out, int64_t dim, bool is_prod);
  // var / std in one pass over `it` (Welford): out = m2 / divisor (its square root when take_sqrt),
  // and the mean into mean_out (same shape and dtype as out) where defined. Null where the op
  // composes them from mean and sum (the CPU: aten's two-pass results).
  void (*moments)(ReduceIter& it, const Tensor& mean_out, double divisor, bool take_sqrt) = nullptr;
};

// Row-major C[M,N] = alpha * op(A)[M,K] @ op(B)[K,N] + beta * C (op: transposed when ta / tb).
struct GemmKernels {
  using Sgemm = void (*)(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
                         const float* B, int64_t ldb, float beta, float* C, int64_t ldc);
  using Dgemm = void (*)(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda,
                         const double* B, int64_t ldb, double beta, double* C, int64_t ldc);
  // bfloat16 operands (as their bits), float32 C; only where bf16_available() says so.
  using Bf16gemm = void (*)(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const uint16_t* A,
                            int64_t lda, const uint16_t* B, int64_t ldb, float beta, float* C, int64_t ldc);
  Sgemm sgemm;
  Dgemm dgemm;
  bool (*bf16_available)();
  Bf16gemm bf16gemm;
  // float32 against a B packed once and reused (an RNN's hidden weight at every step), only where
  // packed_available() says so: pack_b fills a PackedB::floats(K, N) buffer with B[k][n] =
  // src[k * ld + n] (src[n * ld + k] when transposed); packed_gemm: C[M,N] (rows ldc apart) =
  // A[M,K] (rows lda apart) @ B, plus C's old value when accumulate.
  bool (*packed_available)();
  void (*pack_b)(const float* src, int64_t K, int64_t N, int64_t ld, bool transposed, float* dst);
  void (*packed_gemm)(int64_t M, const float* A, int64_t lda, const PackedB& B, float* C, int64_t ldc, bool accumulate);
  // integer C[M,N] = alpha * A @ B + beta * C, contiguous, in the type's wrapping arithmetic
  void (*igemm)(ScalarType dt, int64_t M, int64_t N, int64_t K, double alpha, double beta, const void* A, const void* B,
                void* C);
  // batch products at once (a GPU's strided-batched GEMM): C[i] = alpha * op(A[i]) @ op(B[i]) + beta * C[i], the
  // i-th matrices sa / sb / sc elements after the first (0: one matrix for all), each as sgemm / dgemm takes it.
  // Null where the backend has none: bmm and the convolutions then loop over sgemm / dgemm.
  template <class T>
  using Batched = void (*)(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda,
                           int64_t sa, const T* B, int64_t ldb, int64_t sb, T beta, T* C, int64_t ldc, int64_t sc,
                           int64_t batch);
  Batched<float> sgemm_batched = nullptr;
  Batched<double> dgemm_batched = nullptr;

  // The float or double entry by the operands' type, for op bodies templated on it.
  void operator()(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
                  const float* B, int64_t ldb, float beta, float* C, int64_t ldc) const {
    sgemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  }
  void operator()(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda,
                  const double* B, int64_t ldb, double beta, double* C, int64_t ldc) const {
    dgemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  }
};

// Convolution passes (up to 3 spatial dims). Every tensor is contiguous with one dtype; `out`
// is allocated by the op with the shape the pass writes.
struct ConvKernels {
  // cols (N, col_c, col...) = weight (col_c, img_c/G, k...) applied to img, plus bias if defined
  void (*img_to_cols)(const Tensor& img, const Tensor& weight, const Tensor& bias, const Tensor& out,
                      const conv::Geometry& g);
  // img (N, img_c, img...) = the adjoint of img_to_cols applied to cols
  void (*cols_to_img)(const Tensor& cols, const Tensor& weight, const Tensor& out, const conv::Geometry& g);
  // weight gradient (col_c, img_c/G, k...) of img_to_cols, given img and the cols-side gradient
  void (*weight_grad)(const Tensor& img, const Tensor& cols, const Tensor& out, const conv::Geometry& g);
};

struct PoolKernels {
  // max pooling over the windows `spans` gives, x and y of dtype dt (kernels/cpu/pool/max_pool.h)
  void (*max_windows)(ScalarType dt, const char* name, const void* x, int64_t planes, const int64_t* in,
                      const int64_t* out, const pool::Span* const* spans, void* y, int64_t* ind);
  // max_pool2d's fast path for 2x2 windows, stride 2, no padding, float32: whether it takes an
  // H x W plane pooled to OH x OW, and the pass over `planes` contiguous planes.
  bool (*max2x2_applies)(int64_t H, int64_t W, int64_t OH, int64_t OW);
  void (*max2x2_planes)(const float* x, int64_t planes, int64_t H, int64_t W, int64_t OH, int64_t OW, float* y,
                        int64_t* ind);
  // grid_sample's forward and backward (kernels/cpu/pool/grid_sample.h); gx / ggrid may be null
  void (*grid_sample)(ScalarType dt, const char* name, const pool::GridSampleGeometry& g, const void* x,
                      const void* grid, void* y);
  void (*grid_sample_backward)(ScalarType dt, const char* name, const pool::GridSampleGeometry& g, const void* gy,
                               const void* x, const void* grid, void* gx, void* ggrid);
  // average pooling over `planes` contiguous planes of dtype dt, g's windows built
  // (kernels/cpu/pool/avg_pool.h): forward x -> y, backward y (the gradient) into the zeroed x
  void (*avg_forward)(const pool::AvgGeometry& g, ScalarType dt, const char* name, int64_t planes, const void* x,
                      void* y);
  void (*avg_backward)(const pool::AvgGeometry& g, ScalarType dt, const char* name, int64_t planes, void* x,
                       const void* y);
  // max unpooling's forward and max pooling's backward over `planes` planes of m values of dtype
  // dt (kernels/cpu/pool/max_unpool.h): src's values written (scatter) or summed (scatter_add,
  // floating) into the zeroed out (planes x plane_size) at idx's per-plane positions, which the
  // op has checked.
  void (*unpool_scatter)(ScalarType dt, const char* name, const void* src, const int64_t* idx, int64_t planes,
                         int64_t m, void* out, int64_t plane_size);
  void (*unpool_scatter_add)(ScalarType dt, const void* src, const int64_t* idx, int64_t planes, int64_t m, void* out,
                             int64_t plane_size);
};

// Index ops along one dim, advanced and mask indexing, search and counting
// (kernels/cpu/index/index_kernels.h, over kernels/index_args.h). Index tensors are contiguous
// int64; an op body has checked them (or a kernel reports a bad one by returning false, having
// never read outside the tensor); dst / out are allocated by the op, contiguous unless said.
struct IndexKernels {
  // The position of the first of idx's n values outside [0, size), n when none (in parallel).
  int64_t (*first_out_of_range)(const int64_t* idx, int64_t n, int64_t size);
  // gather: out (idx's shape) = input[..., idx, ...] along dim, input strided; false when an
  // index is out of [0, size) (never read outside input; the op raises). A GPU does not wait to
  // say so: it records the index for the next wait (kernels/cuda/device_error.h).
  bool (*gather)(const Tensor& input, int64_t dim, const Tensor& idx, const Tensor& out);
  // scatter: self[..., idx, ...] (red)= src (or the 0-d value) along dim, in place through
  // self's strides; red is never Mean. `name` names the op in the dtype error. The CPU's op
  // checks the indices first; a GPU's kernel skips a bad one and records it, as gather.
  void (*scatter)(const char* name, const Tensor& self, int64_t dim, const Tensor& idx, const Tensor* src,
                  const Tensor* value, indexing::Reduce red);
  // index_select: dst = x's slices idx along dim; false when an index is out of [0, size) (that
  // row skipped, never read). A GPU checks and wraps (as `check` says) the indices of these six
  // and records a bad one for the next wait instead (kernels/index_args.h, IndexCheck).
  bool (*select_rows)(const Tensor& x, int64_t dim, const Tensor& idx, const Tensor& dst,
                      const indexing::IndexCheck& check);
  // index_copy / index_add / index_fill on the contiguous dst, idx in range (wrapped) on the CPU:
  // dst[o, idx[i], :] = src[o, i, :], += alpha * src[o, i, :], = value (0-d, dst's dtype).
  void (*copy_rows)(const Tensor& dst, int64_t dim, const Tensor& idx, const Tensor& src,
                    const indexing::IndexCheck& check);
  void (*add_rows)(const Tensor& dst, int64_t dim, const Tensor& idx, const Tensor& src, const Scalar& alpha,
                   const indexing::IndexCheck& check);
  void (*fill_rows)(const Tensor& dst, int64_t dim, const Tensor& idx, const Tensor& value,
                    const indexing::IndexCheck& check);
  // take / put_ over flat contiguous tensors, idx in [-n, n) on the CPU: out[i] = x[idx[i]];
  // dst[idx[i]] = (or += with accumulate) src[i], in index order.
  void (*take)(const Tensor& x, const Tensor& idx, const Tensor& out, const indexing::IndexCheck& check);
  void (*put)(const Tensor& dst, const Tensor& idx, const Tensor& src, bool accumulate,
              const indexing::IndexCheck& check);
  // Advanced indexing: off[i] += wrap(idx[i]) * stride for i < n (false when an index is out
  // of [-size, size); a GPU never waits to say so: it marks the position, which the gather and
  // put skip, and with `report` records the index for self's dim `dim` as the op's IndexError at
  // the next wait for the device); then the gather into out and the serial put (or accumulate) of
  // values (contiguous, the result's shape) into self, by AdvancedRows.
  bool (*add_offsets)(const int64_t* idx, int64_t n, int64_t size, int64_t stride, int64_t* off, int64_t dim,
                      bool report);
  void (*advanced_gather)(const Tensor& self, const Tensor& out, const indexing::AdvancedRows& a);
  void (*advanced_put)(const Tensor& self, const Tensor& values, const indexing::AdvancedRows& a, bool accumulate);
  // Masks (contiguous bool, numel n): the chunked count of true flags, then nonzero's
  // coordinates (out: count x sizes.size()) and masked_select's values (x contiguous).
  void (*count_true)(const Tensor& mask, indexing::MaskChunks& c);
  void (*nonzero)(const Tensor& mask, IntArrayRef sizes, const indexing::MaskChunks& c, const Tensor& out);
  void (*masked_select)(const Tensor& x, const Tensor& mask, const indexing::MaskChunks& c, const Tensor& out);
  // masked_fill_ with the 0-d value of dst's dtype: dst contiguous; _strided: through self's
  // strides in order (an expanded self), mask of self's shape.
  void (*masked_fill)(const Tensor& dst, const Tensor& mask, const Tensor& value);
  void (*masked_fill_strided)(const Tensor& self, const Tensor& mask, const Tensor& value);
  // masked_scatter_: dst's masked elements take src's values in order (src has enough).
  void (*masked_scatter)(const Tensor& dst, const Tensor& mask, const Tensor& src);
  // Binning: the values of a contiguous tensor as doubles; searchsorted into out (int32 or
  // int64); bincount of idx (in [0, out.numel())) into out, int64 counts or, with weights
  // (contiguous, out's dtype: float32 or float64), their sums; histc of n doubles into out's
  // bins (floating) over [lo, hi].
  void (*to_doubles)(const Tensor& x, double* out);
  void (*searchsorted)(const indexing::SearchArgs& a, const Tensor& out);
  void (*bincount)(const Tensor& idx, const Tensor& weights, const Tensor& out);
  void (*histc)(const double* v, int64_t n, double lo, double hi, const Tensor& out);
  // unique: the groups of equal rows among `rows` contiguous rows of width values (sorted
  // first when sort; by_dim: aten's std::sort of slices), dtype named "unique" in its error.
  // Null where unique composes them from the device's sort and scans (the GPU).
  void (*unique_groups)(const Tensor& data, int64_t rows, int64_t width, bool sort, bool by_dim,
                        indexing::UniqueGroups& g);
};

// The copies of the shape ops (kernels/cpu/shape/shape_kernels.h).
struct ShapeKernels {
  // out (contiguous, `sizes`) = the elements at src + sum(i_k * byte_strides[k]) bytes; the
  // strides may be negative (flip).
  void (*strided_gather)(const Tensor& out, const char* src, IntArrayRef sizes, IntArrayRef byte_strides);
  // tril / triu: zero each matrix (last two dims) of t outside the triangle on diagonal k (lower:
  // keep j <= i + k, else j >= i + k); t contiguous, or _strided: through t's strides in order
  // (an expanded t: the last write stays).
  void (*triangle)(const Tensor& t, int64_t k, bool lower);
  void (*triangle_strided)(const Tensor& t, int64_t k, bool lower);
  // cat: src into dst's slab [offset, offset + src.size(dim)) along dim; both contiguous, one dtype.
  void (*cat_block)(const Tensor& dst, const Tensor& src, int64_t dim, int64_t offset);
  // reflection / replication padding (before: the pad ahead of each of out's dims, 0 where
  // unpadded): out = in padded; backward adds the gradient out into the zeroed gradient in.
  void (*pad)(const Tensor& in, const Tensor& out, IntArrayRef before, bool reflect, bool backward);
};

struct LinalgKernels {
  // LAPACK's routines on one matrix, by scalar type (kernels/lapack_kernels.h).
  LapackKernels<float> lapack_f;
  LapackKernels<double> lapack_d;
  template <class T>
  const LapackKernels<T>& lapack() const {
    if constexpr (std::is_same_v<T, float>) return lapack_f;
    else return lapack_d;
  }
  // b (n x m, col-major) = A^-1 b from getrf's LU and 1-based pivots of an n x n A.
  void (*lu_solve_f)(int64_t n, int64_t m, const float* lu, const int* ipiv, float* b);
  void (*lu_solve_d)(int64_t n, int64_t m, const double* lu, const int* ipiv, double* b);
  void lu_solve(int64_t n, int64_t m, const float* lu, const int* ipiv, float* b) const {
    lu_solve_f(n, m, lu, ipiv, b);
  }
  void lu_solve(int64_t n, int64_t m, const double* lu, const int* ipiv, double* b) const {
    lu_solve_d(n, m, lu, ipiv, b);
  }
};

// softmax / log_softmax along the middle dim of the contiguous (outer, size, inner) view x and y
// have (y allocated by the op: x's shape and dtype, floating); backward writes dx from y (the
// forward's result) and grad, all three of y's dtype and contiguous.
struct SoftmaxKernels {
  void (*forward)(const Tensor& x, const Tensor& y, int64_t outer, int64_t size, int64_t inner, bool log);
  void (*backward)(const Tensor& y, const Tensor& grad, const Tensor& dx, int64_t outer, int64_t size, int64_t inner,
                   bool log);
};

// Scans along the middle dim of the contiguous [outer, n, inner] view x and out have (out
// allocated by the op with x's shape): logcumsumexp (x floating, out of its dtype) and the int64
// indices of cummax (greater) / cummin.
struct ScanKernels {
  void (*logcumsumexp)(const Tensor& x, const Tensor& out, int64_t outer, int64_t n, int64_t inner);
  void (*cum_extreme)(const Tensor& x, const Tensor& values, const Tensor& indices, int64_t outer, int64_t n,
                      int64_t inner, bool greater);
};

// Upsampling over `planes` contiguous (batch x channel) planes of dtype dt: forward x (g.in) into
// y (g.out), or backward the gradient y (g.out) accumulated into the zeroed x (g.in); cl is
// aten's channels-last bilinear form, forward only (kernels/upsample_geometry.h).
struct UpsampleKernels {
  void (*upsample)(const upsample::Geometry& g, ScalarType dt, int64_t planes, char* x, char* y, bool backward,
                   const upsample::ClForm& cl);
};

// Layer, batch and group norm (kernels/cpu/norm/norm_kernels.h): x, y, g, dx contiguous of one
// floating dtype; parameters as op-math (layer) or double (batch, group) values; parameter
// gradients (dw, db) of the op-math dtype, dw / dx undefined when not wanted.
struct NormKernels {
  void (*layer_forward)(const Tensor& x, const Tensor& y, int64_t m, int64_t n, double eps, const void* w,
                        const void* b);
  void (*layer_backward)(const Tensor& x, const Tensor& g, const Tensor& dx, const Tensor& dw, const Tensor& db,
                         int64_t m, int64_t n, double eps, const void* w);
  void (*batch_forward)(const Tensor& x, const Tensor& y, const norms::BatchForward& a);
  // running = momentum * batch (* unbias for the variance) + (1 - momentum) * running, mean then variance
  void (*batch_update_running)(const Tensor& running_mean, const double* mean, const Tensor& running_var,
                               const double* var, int64_t channels, double momentum, double unbias);
  void (*batch_backward)(const Tensor& x, const Tensor& g, const Tensor& dx, const Tensor& dw, const Tensor& db,
                         const norms::NCS& d, bool batch_stats, double eps, const double* rm, const double* rv,
                         norms::ChannelView w);
  void (*group_forward)(const Tensor& x, const Tensor& y, const norms::NCS& d, int64_t groups, double eps,
                        norms::ChannelView w, norms::ChannelView b);
  void (*group_backward)(const Tensor& x, const Tensor& g, const Tensor& dx, const Tensor& dw, const Tensor& db,
                         const norms::NCS& d, int64_t groups, double eps, norms::ChannelView w);
};

// Sorting and selection along the last dim of `rows` contiguous rows of n (the op's dim moved
// last): values of x's dtype and int64 indices, contiguous (kernels/cpu/sort/sort_kernels.h).
struct SortKernels {
  void (*sort)(const Tensor& x, int64_t rows, int64_t n, bool descending, const Tensor& values, const Tensor& indices);
  void (*topk)(const Tensor& x, int64_t rows, int64_t n, int64_t k, bool largest, bool sorted, const Tensor& values,
               const Tensor& indices);
  void (*select)(const Tensor& x, int64_t rows, int64_t n, SelectKind what, int64_t k, const char* name,
                 const Tensor& values, const Tensor& indices);
};

// The recurrent cells' fused gate passes over B rows (kernels/rnn_rows.h), float or double.
struct RnnKernels {
  void (*cell_rows_f)(const rnn::Rows<float>& p, int64_t B, bool backward);
  void (*cell_rows_d)(const rnn::Rows<double>& p, int64_t B, bool backward);
  void (*lstm_seq_f)(const rnn::LstmSeqRows<float>& p, int64_t B, bool backward);
  void (*lstm_seq_d)(const rnn::LstmSeqRows<double>& p, int64_t B, bool backward);
  void cell_rows(const rnn::Rows<float>& p, int64_t B, bool backward) const { cell_rows_f(p, B, backward); }
  void cell_rows(const rnn::Rows<double>& p, int64_t B, bool backward) const { cell_rows_d(p, B, backward); }
  void lstm_seq(const rnn::LstmSeqRows<float>& p, int64_t B, bool backward) const { lstm_seq_f(p, B, backward); }
  void lstm_seq(const rnn::LstmSeqRows<double>& p, int64_t B, bool backward) const { lstm_seq_d(p, B, backward); }
};

// The fused optimizer steps, in place (kernels/cpu/optim/fused_steps.h): contiguous float32 /
// float64 tensors; grad_scale, when not null, divides the gradient first. adam_steps takes every
// parameter of one device at once (a GPU steps them in a launch or a few).
struct OptimKernels {
  void (*adam_steps)(const optim::AdamItem* items, size_t n, const optim::AdamArgs& a, const double* grad_scale);
  void (*sgd_step)(const Tensor& param, const Tensor& grad, const Tensor& buf, const optim::SgdArgs& a, bool first,
                   const double* grad_scale);
};

// embedding's row gather from a (rows, dim) table and its backward's scatter-add into the zeroed
// (num_weights, dim) table, one_hot's ones into a zeroed (n, classes) int64 tensor; everything
// contiguous (kernels/cpu/embedding/embedding_rows.h). Indices checked by the op on the CPU, by the
// kernels on a GPU (a bad one reported through kernels/cuda/device_error.h and never read).
struct EmbeddingKernels {
  void (*gather_rows)(const char* weight, const int64_t* idx, int64_t n, int64_t rows, int64_t dim, size_t row_bytes,
                      char* out);
  void (*backward)(ScalarType dt, const void* grad, const int64_t* idx, int64_t n, int64_t dim, int64_t num_weights,
                   int64_t padding_idx, bool scale_grad_by_freq, void* out);
  void (*one_hot)(const int64_t* idx, int64_t n, int64_t classes, int64_t* out);
};

// nll_loss forward and backward over rows of class scores (kernels/loss_args.h), floating dt.
struct LossKernels {
  void (*nll_forward)(ScalarType dt, const loss::Nll& a, const void* x, void* out, void* total);
  // grad: n (per_sample) or 1 values; total_weight: the forward's weight sum, the mean's divisor (both dt)
  void (*nll_backward)(ScalarType dt, const loss::Nll& a, const void* grad, const void* total_weight, void* dx);
};

// Tensors written from a formula of the index, contiguous (kernels/cpu/fill/fill_kernels.h): a
// bit pattern of itemsize bytes; arange (integer dtypes step from istart by istep, wrapping);
// linspace / logspace between the ends as the op has read them; eye's ones on a zeroed n x m.
struct FillKernels {
  void (*fill)(void* out, int64_t n, size_t itemsize, const void* value);
  void (*arange)(ScalarType dt, void* out, int64_t n, double start, double step, int64_t istart, int64_t istep);
  void (*linspace)(ScalarType dt, void* out, int64_t steps, double start, double end, double diff, double base,
                   bool log);
  void (*eye)(ScalarType dt, void* out, int64_t n, int64_t m);
};

// The element passes around LAPACK's calls on one column-major matrix, by scalar type
// (kernels/cpu/linalg/matrix_passes.h).
template <class T>
struct MatrixPasses {
  // the strict upper triangle of an n x n matrix set to zero
  void (*zero_strict_upper)(int64_t n, T* a);
  // the 1-based order of the first NaN on the diagonal of an n x n matrix, 0 for none
  int (*first_nan_diagonal)(int64_t n, const T* a);
  // det, sign and log|det| (each may be null) of the n x n matrix getrf factored with pivots ipiv
  void (*lu_det)(int64_t n, const T* lu, const int* ipiv, T* det, T* sign, T* logabs);
  // r (rows x n) = the upper triangle of a's first `rows` rows (a: m x n)
  void (*upper_rows)(int64_t m, int64_t n, int64_t rows, const T* a, T* r);
  // LAPACK's row interchanges ipiv (1-based) on a row-major n x r x, in order or (reverse) back
  void (*row_swaps)(int64_t n, int64_t r, const int* ipiv, T* x, bool reverse);
};
struct MatrixKernels {
  MatrixPasses<float> passes_f;
  MatrixPasses<double> passes_d;
  template <class T>
  const MatrixPasses<T>& passes() const {
    if constexpr (std::is_same_v<T, float>) return passes_f;
    else return passes_d;
  }
  // nb permutations (m each) from LAPACK's k row interchanges each (1-based, checked by the op)
  void (*lu_permutation)(int64_t nb, int64_t k, int64_t m, const int* piv, int64_t* perm);
  // baddbmm's small-problem pass: w[b, i, j] = beta * w + alpha * prod (contiguous, op-math
  // type), element by element in (b, i, j) order over w's strides (beta = 0 ignores w)
  void (*scaled_store)(const Tensor& w, const Tensor& prod, const Scalar& beta, const Scalar& alpha);
};

// complex64 / complex128: the pointwise kernels by their ops.yaml kernel name, over an iterator
// whose compute dtype is complex; |z| of a contiguous complex tensor into a real one of its
// element type; cgemm / zgemm with GemmKernels' row-major convention.
struct ComplexKernels {
  template <class T>
  using Gemm = void (*)(bool ta, bool tb, int64_t M, int64_t N, int64_t K, std::complex<T> alpha,
                        const std::complex<T>* A, int64_t lda, const std::complex<T>* B, int64_t ldb,
                        std::complex<T> beta, std::complex<T>* C, int64_t ldc);
  void (*pointwise)(const char* kernel, ElementwiseIter& it, const Scalar* params);
  void (*abs)(const Tensor& in, const Tensor& out);
  Gemm<float> cgemm;
  Gemm<double> zgemm;
  // n contiguous elements (kernels/cpu/complex/complex_parts.h): complex() / polar() of two real
  // arrays of the complex dtype ct's element type; conj of complex ones; angle of a complex dt
  // (into its real type) or of a floating one (pi below zero, NaN for NaN, else 0).
  void (*from_parts)(ScalarType ct, const void* a, const void* b, void* out, int64_t n, bool polar);
  void (*conj)(ScalarType ct, const void* in, void* out, int64_t n);
  void (*angle)(ScalarType dt, const void* in, void* out, int64_t n);

  // The complex64 or complex128 entry by the operands' type, for op bodies templated on it.
  template <class T>
  void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, std::complex<T> alpha, const std::complex<T>* A,
            int64_t lda, const std::complex<T>* B, int64_t ldb, std::complex<T> beta, std::complex<T>* C,
            int64_t ldc) const {
    if constexpr (std::is_same_v<T, float>) cgemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    else zgemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  }
};

// Fused scaled-dot-product attention (kernels/attention_args.h), float or double; the forward
// writes out and lse, the backward dq and adds into the zeroed dk and dv.
struct AttentionKernels {
  void (*flash_forward_f)(const attention::FlashForward<float>& a);
  void (*flash_forward_d)(const attention::FlashForward<double>& a);
  void (*flash_backward_f)(const attention::FlashBackward<float>& a);
  void (*flash_backward_d)(const attention::FlashBackward<double>& a);
  void flash_forward(const attention::FlashForward<float>& a) const { flash_forward_f(a); }
  void flash_forward(const attention::FlashForward<double>& a) const { flash_forward_d(a); }
  void flash_backward(const attention::FlashBackward<float>& a) const { flash_backward_f(a); }
  void flash_backward(const attention::FlashBackward<double>& a) const { flash_backward_d(a); }
};

// The samplers (kernels/cpu/random/samplers.h): n contiguous elements of dtype dt written from
// the generator's stream as PyTorch's kernel for the device draws them; dropout's keep-mask and
// scaled output over n contiguous elements.
struct RandomKernels {
  void (*uniform)(ScalarType dt, void* out, int64_t n, double from, double to, Generator* gen);
  void (*normal)(ScalarType dt, void* out, int64_t n, bool blocks, double mean, double std, Generator* gen);
  void (*exponential)(ScalarType dt, void* out, int64_t n, double lambd, Generator* gen);
  void (*cauchy)(ScalarType dt, void* out, int64_t n, double median, double sigma, Generator* gen);
  void (*log_normal)(ScalarType dt, void* out, int64_t n, double mean, double std, Generator* gen);
  void (*geometric)(ScalarType dt, void* out, int64_t n, double p, Generator* gen);
  void (*bernoulli)(ScalarType dt, void* out, int64_t n, double p, Generator* gen);
  void (*bernoulli_tensor)(ScalarType dt, void* out, int64_t n, const void* p, bool p_double, Generator* gen);
  void (*random_bits)(ScalarType dt, void* out, int64_t n, Generator* gen);
  void (*random_range)(ScalarType dt, void* out, int64_t n, uint64_t range, int64_t base, Generator* gen);
  void (*random_full64)(ScalarType dt, void* out, int64_t n, Generator* gen);
  void (*randperm)(ScalarType dt, void* out, int64_t n, Generator* gen);
  // multinomial's two samplers; null where the op composes them from the device's ops (the GPU)
  void (*multinomial_replace)(ScalarType dt, const MultinomialProbs& p, int64_t ns, int64_t* out, Generator* gen);
  void (*multinomial_race)(ScalarType dt, const MultinomialProbs& p, const void* q, int64_t qs0, int64_t qs1,
                           int64_t ns, int64_t* out);
  void (*poisson)(ScalarType dt, void* out, const double* rates, int64_t n, Generator* gen);
  void (*dropout)(ScalarType dt, const void* x, void* out, bool* mask, int64_t n, double p);
};

struct Backend {
  DeviceType device;
  PointwiseKernels pointwise;
  CopyKernels copy;
  ReduceKernels reduce;
  GemmKernels gemm;
  ConvKernels conv;
  PoolKernels pool;
  IndexKernels index;
  ShapeKernels shape;
  LinalgKernels linalg;
  SoftmaxKernels softmax;
  AttentionKernels attention;
  RandomKernels random;
  ScanKernels scan;
  UpsampleKernels upsample;
  NormKernels norm;
  SortKernels sort;
  RnnKernels rnn;
  OptimKernels optim;
  EmbeddingKernels embedding;
  LossKernels loss;
  FillKernels fill;
  MatrixKernels matrix;
  ComplexKernels complex;
};

const Backend& cpu_backend();   // kernels/cpu/backend_cpu.cpp
const Backend& cuda_backend();  // kernels/cuda/ (or its stub)
const Backend& meta_backend();  // kernels/meta/backend_meta.cpp: kernels that do nothing

// The table for tensors on `d`: a branch on the device type, no lookup.
inline const Backend& backend(Device d) {
  if (d.type == DeviceType::CPU) [[likely]]
    return cpu_backend();
  return d.type == DeviceType::CUDA ? cuda_backend() : meta_backend();
}
inline const Backend& backend(const Tensor& t) { return backend(t.device()); }

}  // namespace ember
