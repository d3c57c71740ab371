// Matrix products through OpenBLAS (float/double); half types go through
// float32 GEMM; integers use a plain loop. Transposed operands are passed
// to BLAS as transposes, never copied.
#include <optional>
#include <utility>
#include <vector>

#include "core/parallel.h"
#include "core/profiler_op.h"
#include "iter/elementwise_iter.h"
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"

namespace ember {

namespace {

// How BLAS sees a 2-D matrix: its data, leading dimension and transpose flag.
struct MatView {
  Tensor t;  // keeps a contiguous copy alive when one was needed
  bool trans = false;
  int64_t ld = 1;
};

// How BLAS reads an r x c matrix of row and column strides s0, s1 in place: row-major (trans
// false) or column-major, with its leading dimension; nullopt where a copy is needed.
std::optional<std::pair<bool, int64_t>> blas_layout(int64_t r, int64_t c, int64_t s0, int64_t s1) {
  if ((s1 == 1 || c == 1) && s0 >= std::max<int64_t>(c, 1)) return std::make_pair(false, s0);
  if ((s0 == 1 || r == 1) && s1 >= std::max<int64_t>(r, 1)) return std::make_pair(true, s1);
  return std::nullopt;
}

MatView as_blas(const Tensor& m) {
  if (auto l = blas_layout(m.sizes()[0], m.sizes()[1], m.strides()[0], m.strides()[1])) return {m, l->first, l->second};
  return {contiguous(m, MemoryFormat::Contiguous), false, std::max<int64_t>(m.sizes()[1], 1)};
}

void check_same_dtype(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dtype() == b.dtype(), "expected m1 and m2 to have the same dtype, but got: ", c_type_name(a.dtype()),
              " != ", c_type_name(b.dtype()));
}

// C[M,N] (contiguous, dtype of a) = alpha * A[M,K] @ B[K,N] + beta * C
void gemm(const Tensor& a, const Tensor& b, const Tensor& c, double alpha, double beta) {
  int64_t M = a.sizes()[0], K = a.sizes()[1], N = b.sizes()[1];
  if (M == 0 || N == 0) return;
  if (K == 0) {
    if (beta == 0) zero_(c);
    else if (beta != 1) mul_(c, wrap_scalar(Scalar(beta)));
    return;
  }
  ScalarType dt = a.dtype();
  const GemmKernels& kern = backend(a).gemm;
  if (is_complex(dt)) {  // cgemm / zgemm
    MatView A = as_blas(a), B = as_blas(b);
    EMBER_DISPATCH_COMPLEX(dt, "addmm_impl_cpu_", [&] {
      using R = typename scalar_t::value_type;
      backend(a).complex.gemm(A.trans, B.trans, M, N, K, scalar_t(R(alpha)), A.t.data<scalar_t>(), A.ld,
                              B.t.data<scalar_t>(), B.ld, scalar_t(R(beta)), c.data<scalar_t>(),
                              std::max<int64_t>(N, 1));
    });
    return;
  }
  if (dt == ScalarType::Float32 || dt == ScalarType::Float64) {
    MatView A = as_blas(a), B = as_blas(b);
    if (dt == ScalarType::Float32)
      kern.sgemm(A.trans, B.trans, M, N, K, float(alpha), A.t.data<float>(), A.ld, B.t.data<float>(), B.ld, float(beta),
                 c.data<float>(), std::max<int64_t>(N, 1));
    else
      kern.dgemm(A.trans, B.trans, M, N, K, alpha, A.t.data<double>(), A.ld, B.t.data<double>(), B.ld, beta,
                 c.data<double>(), std::max<int64_t>(N, 1));
    return;
  }
  if (is_floating(dt)) {  // float16 / bfloat16: float32 accumulation, one rounding at the end
    // beta == 0 never reads C: a fresh float32 buffer, not a conversion of c's uninitialised memory.
    Tensor cf = beta == 0 ? empty({M, N}, ScalarType::Float32, c.device()) : to_dtype(c, ScalarType::Float32);
    if (dt == ScalarType::BFloat16 && kern.bf16_available()) {  // AMX / AVX512-BF16 on the bfloat16 bits
      MatView A = as_blas(a), B = as_blas(b);
      kern.bf16gemm(A.trans, B.trans, M, N, K, float(alpha), reinterpret_cast<const uint16_t*>(A.t.data<BFloat16>()),
                    A.ld, reinterpret_cast<const uint16_t*>(B.t.data<BFloat16>()), B.ld, float(beta), cf.data<float>(),
                    N);
    } else {  // widen (exact) and run the float32 GEMM
      gemm(to_dtype(a, ScalarType::Float32), to_dtype(b, ScalarType::Float32), cf, alpha, beta);
    }
    copy_into(c, cf);
    return;
  }
  EMBER_DISPATCH_INT(dt, "addmm_impl_cpu_", [] {});  // bool: aten's "not implemented"
  Tensor ac = contiguous(a, MemoryFormat::Contiguous), bc = contiguous(b, MemoryFormat::Contiguous);
  kern.igemm(dt, M, N, K, alpha, beta, ac.raw(), bc.raw(), c.raw());
}

// mm's and addmm's GEMM as aten's addmm_impl_cpu_ runs it: resolve_conj on the result and on each
// operand BLAS reads as stored rather than as a (conjugate) transpose -- aten's rule on its
// column-major view of the result, its calls being op events in PyTorch's trace. Conjugate views
// are resolved before an op runs (python/py_conj_fallback.cpp), so each call returns its operand.
void gemm_resolving_conj(const Tensor& a, const Tensor& b, const Tensor& c, double alpha, double beta) {
  const int64_t M = c.sizes()[0], N = c.sizes()[1], K = a.sizes()[1];
  if (M == 0 || N == 0) return;  // aten returns before resolving
  // an empty sum: aten zeroes (or scales) its result, its zero_ an op event
  if (K == 0) {
    if (beta == 0) profiler::nested_op("aten::zero_", {&c}, [&] { return zero_(c); });
    else gemm(a, b, c, alpha, beta);
    return;
  }
  // resolve_conj(t) is t itself unless t is a conjugate view: that case inline, without a copy
  Tensor rc, r1, r2;
  auto resolve = [](const Tensor& t, Tensor& keep) -> const Tensor& {
    profiler::NestedOpScope scope("aten::resolve_conj", {&t});
    if (!is_conj_view(t)) return t;
    keep = resolve_conj(t);
    return keep;
  };
  (void)resolve(c, rc);  // written in place: never a conjugate view here
  const int64_t c0 = c.strides()[0], c1 = c.strides()[1];
  // aten transposes the problem (C^T = B^T A^T) when the result is row-major
  const bool tc =
      !(c0 == 1 && (N == 1 || c1 >= std::max<int64_t>(1, M))) && c1 == 1 && (M == 1 || c0 >= std::max<int64_t>(1, N));
  const int i0 = tc ? 1 : 0, i1 = tc ? 0 : 1;
  auto as_stored = [&](const Tensor& t, int64_t ld_min) {
    return t.strides()[i0] == 1 && t.strides()[i1] >= std::max<int64_t>(1, ld_min);
  };
  const Tensor& m1 = tc ? b : a;
  const Tensor& m2 = tc ? a : b;
  const Tensor& s1 = as_stored(m1, tc ? N : M) ? resolve(m1, r1) : m1;
  const Tensor& s2 = as_stored(m2, K) ? resolve(m2, r2) : m2;
  gemm(tc ? s2 : s1, tc ? s1 : s2, c, alpha, beta);
}

// An integer GEMM kernel's beta and alpha as aten's reads them: in its dtype, checked (the
// overflow error for inf or a value past it), truncated.
using IntPair = std::pair<int64_t, int64_t>;
IntPair int_gemm_scalars(ScalarType dt, const char* kernel, const Scalar& beta, const Scalar& alpha) {
  IntPair r{0, 0};
  EMBER_DISPATCH_INT(dt, kernel, [&] {
    r = {static_cast<int64_t>(beta.checked<scalar_t>()), static_cast<int64_t>(alpha.checked<scalar_t>())};
  });
  return r;
}

// A Scalar the GEMM's double arguments carry exactly (an integer one up to 2**53).
bool exact_in_double(const Scalar& v) {
  if (!v.is_int()) return true;
  if (v.is_uint64()) return false;
  const int64_t i = v.to_int(), lim = int64_t(1) << 53;
  return i >= -lim && i <= lim;
}

Tensor to_out(Tensor r, const Tensor* out) {
  if (!out) return r;
  check_out_dtype(*out, r.dtype());
  resize_out(*out, r.sizes());
  copy_into(*out, r);
  out->bump_version();
  return *out;
}

// Whether the GEMM may write out= itself: already the result's dtype and shape, contiguous, and
// sharing no memory with an operand. Otherwise the result is made aside and copied in (a
// 2048x1024 mm into out= paid a 700 us copy).
bool gemm_into_out(const Tensor& out, const Tensor& a, const Tensor& b, int64_t M, int64_t N) {
  if (out.dtype() != a.dtype() || out.dim() != 2 || out.sizes()[0] != M || out.sizes()[1] != N || !out.is_contiguous())
    return false;
  auto range = [](const Tensor& t) {
    const char* p = static_cast<const char*>(t.storage().data);
    return std::pair<const char*, const char*>(p, p + t.storage().nbytes);
  };
  const auto o = range(out);
  for (const Tensor* t : {&a, &b}) {
    const auto r = range(*t);
    if (o.first < r.second && r.first < o.second) return false;
  }
  return true;
}

Tensor mm_impl(const Tensor& a, const Tensor& b, const Tensor* out) {
  EMBER_CHECK(a.dim() == 2, "self must be a matrix");
  EMBER_CHECK(b.dim() == 2, "mat2 must be a matrix");
  EMBER_CHECK(a.sizes()[1] == b.sizes()[0], "mat1 and mat2 shapes cannot be multiplied (", a.sizes()[0], "x",
              a.sizes()[1], " and ", b.sizes()[0], "x", b.sizes()[1], ")");
  check_same_dtype(a, b);
  if (out) check_out_dtype(*out, a.dtype());  // aten's out= check comes before the dtype dispatch
  if (out && gemm_into_out(*out, a, b, a.sizes()[0], b.sizes()[1])) {
    gemm_resolving_conj(a, b, *out, 1.0, 0.0);
    out->bump_version();
    return *out;
  }
  Tensor c = empty({a.sizes()[0], b.sizes()[1]}, a.dtype(), a.device());
  gemm_resolving_conj(a, b, c, 1.0, 0.0);
  return to_out(c, out);
}

// A batched product's operand as a strided-batched GEMM reads it: each matrix row- or column-major
// (trans) with leading dimension ld, the matrices `stride` elements apart (0: one for all); any
// other layout is copied contiguous first.
struct BatchView {
  Tensor t;
  bool trans;
  int64_t ld, stride;
};
static BatchView batch_view(const Tensor& x) {
  const int64_t R = x.sizes()[1], C = x.sizes()[2];
  if (auto l = blas_layout(R, C, x.strides()[1], x.strides()[2])) return {x, l->first, l->second, x.strides()[0]};
  return {contiguous(x, MemoryFormat::Contiguous), false, std::max<int64_t>(C, 1), R * C};
}

// c (B, M, N, fresh) = a @ b in one strided-batched GEMM where the backend has one (a GPU's: one
// launch, not B) for the operands' dtype; false where it has none.
static bool gemm_batched(const Tensor& a, const Tensor& b, const Tensor& c) {
  const GemmKernels& kern = backend(a).gemm;
  const ScalarType dt = a.dtype();
  if (!((dt == ScalarType::Float32 && kern.sgemm_batched) || (dt == ScalarType::Float64 && kern.dgemm_batched)))
    return false;
  const int64_t B = a.sizes()[0], M = a.sizes()[1], K = a.sizes()[2], N = b.sizes()[2];
  const BatchView A = batch_view(a), Bm = batch_view(b);
  if (dt == ScalarType::Float32)
    kern.sgemm_batched(A.trans, Bm.trans, M, N, K, 1.0f, A.t.data<float>(), A.ld, A.stride, Bm.t.data<float>(), Bm.ld,
                       Bm.stride, 0.0f, c.data<float>(), std::max<int64_t>(N, 1), M * N, B);
  else
    kern.dgemm_batched(A.trans, Bm.trans, M, N, K, 1.0, A.t.data<double>(), A.ld, A.stride, Bm.t.data<double>(), Bm.ld,
                       Bm.stride, 0.0, c.data<double>(), std::max<int64_t>(N, 1), M * N, B);
  return true;
}

Tensor bmm_impl(const Tensor& a, const Tensor& b, const Tensor* out) {
  EMBER_CHECK(a.dim() == 3, "batch1 must be a 3D tensor");
  EMBER_CHECK(b.dim() == 3, "batch2 must be a 3D tensor");
  int64_t B = a.sizes()[0], M = a.sizes()[1], K = a.sizes()[2], N = b.sizes()[2];
  EMBER_CHECK(b.sizes()[0] == B && b.sizes()[1] == K,
              "Expected size for first two dimensions of batch2 tensor to be: [", B, ", ", K, "] but got: [",
              b.sizes()[0], ", ", b.sizes()[1], "].");
  // aten's order: the result (batch2's dtype) and its out= check, the empty and K = 0 results,
  // then the dtype dispatch on batch1 and the kernel's read of batch2 as that type.
  if (out) check_out_dtype(*out, b.dtype());
  if (B * M * N == 0 || K == 0) return to_out(zeros({B, M, N}, b.dtype(), b.device()), out);
  EMBER_CHECK_NOTIMPL(a.dtype() != ScalarType::Bool, "\"bmm\" not implemented for 'Bool'");
  EMBER_CHECK(a.dtype() == b.dtype(), "expected scalar type ", legacy_name(a.dtype()), " but found ",
              legacy_name(b.dtype()));
  Tensor c = empty({B, M, N}, a.dtype(), a.device());
  if (gemm_batched(a, b, c)) return to_out(c, out);
  for (int64_t i = 0; i < B; ++i) {
    Tensor ai = make_view(a, {M, K}, {a.strides()[1], a.strides()[2]}, a.offset() + i * a.strides()[0]);
    Tensor bi = make_view(b, {K, N}, {b.strides()[1], b.strides()[2]}, b.offset() + i * b.strides()[0]);
    Tensor ci = make_view(c, {M, N}, {N, 1}, i * M * N);
    gemm(ai, bi, ci, 1.0, 0.0);
  }
  return to_out(c, out);
}

// A product's fresh result in another shape: no view of it (aten's _unsafe_view), as in PyTorch.
static Tensor reshape_result(Tensor t, IntArrayRef shape) {
  if (!t.is_contiguous()) return reshape(t, shape);
  return restride_result(std::move(t), shape, contiguous_strides(shape));
}

// aten's should_fold: a batched operand times a matrix or vector folds into one mm / mv when the
// larger one's batch dims fold without a copy (always when empty, or when the smaller one needs a
// gradient); a 2-d times batched product does not fold.
static bool should_fold(const Tensor& a, const Tensor& b, bool has_out) {
  const bool a_larger = a.dim() >= b.dim();
  const int64_t d_small = a_larger ? b.dim() : a.dim();
  const Tensor big = a_larger ? a : transpose(b, -2, -1);  // the operand folded, as aten sees it
  const int64_t d_big = big.dim();
  if (!(d_big >= 3 && d_small <= 2)) return false;
  if ((a_larger ? b : a).requires_grad() && !has_out) return true;
  if (a.dim() == 2) return false;
  if (big.numel() == 0) return true;
  for (int64_t i = 0; i < d_big - 2; ++i)
    if (big.strides()[i] != big.strides()[i + 1] * big.sizes()[i + 1]) return false;
  return true;
}

// The folded product's own checks (mm's or mv's shape and dtype errors), where aten folds.
static void check_folded(const Tensor& a, const Tensor& b) {
  const bool swap = b.dim() > a.dim();
  const Tensor t1 = swap ? transpose(b, -2, -1) : a;
  const Tensor t2 = !swap ? b : a.dim() == 2 ? transpose(a, 0, 1) : a;
  int64_t rows = 1;
  for (int64_t i = 0; i + 1 < t1.dim(); ++i) rows *= t1.sizes()[i];
  const Tensor folded = reshape(t1, {rows, t1.sizes()[t1.dim() - 1]});
  if (t2.dim() == 2) (void)mm_impl(folded, t2, nullptr);
  else (void)mv(folded, t2);
}

Tensor matmul_impl(const Tensor& a, const Tensor& b, const Tensor* out) {
  int64_t da = a.dim(), db = b.dim();
  EMBER_CHECK(da > 0 && db > 0, "both arguments to matmul need to be at least 1D, but they are ", da, "D and ", db,
              "D");
  if (da == 1 && db == 1) return to_out(dot(a, b), out);
  if (da == 2 && db == 1) return to_out(mv(a, b), out);
  if (da == 1 && db == 2) {
    const int64_t p[] = {b.size(1)};
    return to_out(reshape_result(mm_impl(unsqueeze(a, 0), b, nullptr), IntArrayRef(p, 1)), out);
  }
  if (da == 2 && db == 2) return mm_impl(a, b, out);
  // aten folds a batched input times a matrix or vector into one mm (its dtype check); the other
  // batched forms go through bmm's order (an empty product needs no common dtype there)
  // (the values of a folded product are the bmm's below: the fold decides only the errors)
  const int64_t ka = a.sizes()[da - 1], kb = db > 1 ? b.sizes()[db - 2] : b.sizes()[0];
  const bool fold = should_fold(a, b, out != nullptr);
  if ((a.dtype() != b.dtype() || ka != kb) && fold) check_folded(a, b);
  // aten's fold of a batched input times a matrix or vector: its rows through one mm / mv (one GEMM,
  // and a backward whose matrix gradient is one GEMM too, not a product per batch entry summed)
  if (fold && da >= 3) {
    DimVector rs(a.sizes().begin(), a.sizes().end() - 1);
    const Tensor rows = reshape(a, {compute_numel(rs), ka});
    if (db == 2) rs.push_back(b.sizes()[1]);
    return to_out(reshape_result(db == 2 ? mm_impl(rows, b, nullptr) : mv(rows, b), rs), out);
  }
  // Batched: broadcast the batch dims, fold them into one, bmm, unfold.
  Tensor A = da == 1 ? unsqueeze(a, 0) : a;
  Tensor Bm = db == 1 ? unsqueeze(b, -1) : b;
  int64_t n = A.sizes()[A.dim() - 2], k = A.sizes()[A.dim() - 1];
  int64_t k2 = Bm.sizes()[Bm.dim() - 2], p = Bm.sizes()[Bm.dim() - 1];
  DimVector ba(A.sizes().begin(), A.sizes().end() - 2), bb(Bm.sizes().begin(), Bm.sizes().end() - 2);
  DimVector batch = broadcast_shapes(ba, bb);
  int64_t nb = compute_numel(batch);
  // bmm's shape error names the folded batch: [batch, k] expected, [batch, k2] found
  EMBER_CHECK(k == k2, "Expected size for first two dimensions of batch2 tensor to be: [", nb, ", ", k, "] but got: [",
              nb, ", ", k2, "].");
  DimVector ea = batch, eb = batch;
  ea.push_back(n);
  ea.push_back(k);
  eb.push_back(k);
  eb.push_back(p);
  Tensor a3 = reshape(expand(A, ea, false), {nb, n, k});
  Tensor b3 = reshape(expand(Bm, eb, false), {nb, k, p});
  Tensor r = bmm_impl(a3, b3, nullptr);
  DimVector rs = batch;
  if (da > 1) rs.push_back(n);
  if (db > 1) rs.push_back(p);
  return to_out(reshape_result(std::move(r), rs), out);
}

Tensor addmm_impl(const Tensor& input, const Tensor& m1, const Tensor& m2, const Scalar& beta, const Scalar& alpha,
                  const Tensor* out, bool inplace) {
  // aten's addmm meta: the dtypes (self against mat2, then mat1 against mat2) before the shapes
  EMBER_CHECK(input.dtype() == m2.dtype(), "self and mat2 must have the same dtype, but got ",
              legacy_name(input.dtype()), " and ", legacy_name(m2.dtype()));
  EMBER_CHECK(m1.dtype() == m2.dtype(), "mat1 and mat2 must have the same dtype, but got ", legacy_name(m1.dtype()),
              " and ", legacy_name(m2.dtype()));
  EMBER_CHECK(m1.dim() == 2, "mat1 must be a matrix, got ", m1.dim(), "-D tensor");
  EMBER_CHECK(m2.dim() == 2, "mat2 must be a matrix, got ", m2.dim(), "-D tensor");
  EMBER_CHECK(m1.sizes()[1] == m2.sizes()[0], "mat1 and mat2 shapes cannot be multiplied (", m1.sizes()[0], "x",
              m1.sizes()[1], " and ", m2.sizes()[0], "x", m2.sizes()[1], ")");
  int64_t sz[] = {m1.sizes()[0], m2.sizes()[1]};
  const IntArrayRef size(sz, 2);
  // the structured in-place call's output check, before the expand and the kernel's dtype dispatch
  EMBER_CHECK(!inplace || input.sizes().equals(size), "Bad in-place call: input tensor size ", shape_str(input.sizes()),
              " and output tensor size ", shape_str(size), " should match");
  // As aten: input expanded to the result's shape (when it differs) and copied into a fresh result
  // that the GEMM accumulates onto; expand and copy_ are nested op events, as in PyTorch's trace.
  Tensor e = input.sizes().equals(size) ? input : profiler::nested_op("aten::expand", {&input, nullptr, nullptr}, [&] {
    return expand(input, size, false);
  });
  Tensor c = empty(size, input.dtype(), input.device());
  // (aten's kernel-level copy_ is below autograd: the fresh result's version stays 0)
  profiler::nested_op("aten::copy_", {&c, &e, nullptr}, [&] {
    copy_into(c, e);
    return c;
  });
  const bool int_kernel = is_integral(c.dtype(), false) && c.numel() > 0 && m1.sizes()[1] > 0;
  const auto [bi, ai] = int_kernel ? int_gemm_scalars(c.dtype(), "addmm_impl_cpu_", beta, alpha) : IntPair{0, 0};
  if (int_kernel && (!exact_in_double(Scalar(ai)) || !exact_in_double(Scalar(bi)))) {
    // past 2**53 the GEMM's double arguments would round them: the scaling runs in the dtype's
    // wrapping arithmetic instead (aten's)
    Tensor prod = empty(size, c.dtype(), c.device());
    gemm(m1, m2, prod, 1.0, 0.0);
    Tensor r = mul(prod, wrap_scalar(Scalar(ai)));
    copy_into(c, bi == 0 ? r : add(mul(c, wrap_scalar(Scalar(bi))), r, Scalar(int64_t(1))));
  } else {
    gemm_resolving_conj(m1, m2, c, alpha.to_double(), beta.to_double());
  }
  if (inplace) {
    check_inplace(input, "addmm_");
    copy_into(input, c);
    input.bump_version();
    return input;
  }
  return to_out(c, out);
}

// aten's small-problem kernel (batch1.size(1) * batch1.size(2) * batch2.size(2) < 400) writes the
// result element by element in (b, i, j) order, r = beta * r + alpha * prod (beta = 0 ignores r):
// on a written tensor with stride-0 dims (an expanded self) each element keeps the last write.
void baddbmm_sequential(const Tensor& w, const Tensor& prod, const Scalar& beta, const Scalar& alpha) {
  backend(w).matrix.scaled_store(w, contiguous(prod, MemoryFormat::Contiguous), beta, alpha);
}

Tensor baddbmm_impl(const Tensor& input, const Tensor& b1, const Tensor& b2, const Scalar& beta, const Scalar& alpha,
                    const Tensor* out, bool inplace) {
  // Index the batch dims first: a 2-D batch gives PyTorch's IndexError.
  int64_t nb = b1.size(0), m = b1.size(1), p = b2.size(2);
  // Then aten's meta: the shapes, input expanded to the result's, the three dtypes, and its
  // kernel's dtype dispatch.
  EMBER_CHECK(b1.dim() == 3, "batch1 must be a 3D tensor");
  EMBER_CHECK(b2.dim() == 3, "batch2 must be a 3D tensor");
  EMBER_CHECK(b2.sizes()[0] == nb && b2.sizes()[1] == b1.sizes()[2],
              "Expected size for first two dimensions of batch2 tensor to be: [", nb, ", ", b1.sizes()[2],
              "] but got: [", b2.sizes()[0], ", ", b2.sizes()[1], "].");
  (void)expand(input, {nb, m, p}, false);
  // aten's meta compares input with batch1 only; its kernel reads batch2 as that type after the
  // dtype dispatch (Bool's not-implemented error first)
  EMBER_CHECK(input.dtype() == b1.dtype(), "Input dtypes must be the same, got: input ", c_type_name(input.dtype()),
              ", batch1: ", c_type_name(b1.dtype()), ", batch2: ", c_type_name(b2.dtype()));
  // the structured in-place call's output check, before the kernel's dtype dispatch
  const int64_t shape[] = {nb, m, p};
  EMBER_CHECK(!inplace || input.sizes().equals(IntArrayRef(shape, 3)), "Bad in-place call: input tensor size ",
              shape_str(input.sizes()), " and output tensor size ", shape_str(IntArrayRef(shape, 3)), " should match");
  const int64_t k = b1.sizes()[2];
  if (b2.dtype() != b1.dtype()) {
    // aten's result has batch2's dtype; an empty product or K = 0 never reaches the kernel, whose
    // dispatch (on batch1's dtype) reads batch2 as that type
    EMBER_CHECK(!inplace, "Bad in-place call: input tensor dtype ", c_type_name(input.dtype()),
                " and output tensor dtype ", c_type_name(b2.dtype()), " should match");
    if (nb * m * p != 0 && k != 0) {
      EMBER_CHECK_NOTIMPL(input.dtype() != ScalarType::Bool, "\"baddbmm\" not implemented for 'Bool'");
      fail(ErrorKind::Runtime, "expected scalar type ", legacy_name(b1.dtype()), " but found ",
           legacy_name(b2.dtype()));
    }
    Tensor e = to_dtype(expand(input, {nb, m, p}, false), b2.dtype());
    Tensor r = nb * m * p == 0 || beta.to_double() == 0 ? zeros({nb, m, p}, b2.dtype(), b2.device())
                                                        : mul(e, wrap_scalar(beta));
    return to_out(r, out);
  }
  EMBER_CHECK_NOTIMPL(input.dtype() != ScalarType::Bool, "\"baddbmm\" not implemented for 'Bool'");
  ScalarType dt = input.dtype();
  bool half = dt == ScalarType::Float16 || dt == ScalarType::BFloat16;
  ScalarType ct = half ? ScalarType::Float32 : dt;  // half types accumulate in float32, round once
  if (ct == ScalarType::Float32) {  // the kernel reads beta and alpha as its float op-math: overflow errors
    (void)beta.checked_real<float>();
    (void)alpha.checked_real<float>();
  }
  if (is_integral(ct, false) && nb * m * p != 0 && k != 0) (void)int_gemm_scalars(ct, "baddbmm", beta, alpha);
  // A written tensor with internal overlap: aten's element-by-element kernel for small problems
  // takes it (in place, or an out= of the result's shape when beta = 0: otherwise out= first
  // copies input into it, which refuses it); its K = 0 path refuses it too.
  const Tensor* w = inplace ? &input : out;
  if (w && w->sizes().equals(IntArrayRef(shape, 3)) && w->dtype() == dt && has_internal_overlap(*w)) {
    if (inplace) check_inplace(input, "baddbmm_");
    const bool zero_beta = beta.to_double() == 0;
    if (k == 0 && zero_beta) return zero_(*w);  // aten's zero_(), which writes any layout
    // larger problems go through one GEMM per batch, which refuses a matrix that overlaps itself
    // (a stride-0 batch dim alone is the same fold, batch after batch)
    const bool small = m * k * p < 400;
    if (!(k > 0 && (small || !has_internal_overlap(select(*w, 0, 0))) && (inplace || zero_beta)))
      check_no_internal_overlap(*w);
    baddbmm_sequential(*w, bmm_impl(to_dtype(b1, ct), to_dtype(b2, ct), nullptr), beta, alpha);
    w->bump_version();
    return *w;
  }
  Tensor prod = bmm_impl(to_dtype(b1, ct), to_dtype(b2, ct), nullptr);
  Tensor be = scalar_tensor(beta, ct), al = scalar_tensor(alpha, ct);
  Tensor r = beta.to_double() == 0
                 ? mul(prod, al)
                 : add(mul(expand(to_dtype(input, ct), prod.sizes(), false), be), mul(prod, al), Scalar(int64_t(1)));
  r = to_dtype(r, dt);
  if (inplace) {
    check_inplace(input, "baddbmm_");
    copy_into(input, r);
    input.bump_version();
    return input;
  }
  return to_out(r, out);
}

}  // namespace

Tensor mm(const Tensor& input, const Tensor& mat2) { return mm_impl(input, mat2, nullptr); }
Tensor mm_out(const Tensor& input, const Tensor& mat2, const Tensor& out) { return mm_impl(input, mat2, &out); }
Tensor bmm(const Tensor& input, const Tensor& mat2) { return bmm_impl(input, mat2, nullptr); }
Tensor bmm_out(const Tensor& input, const Tensor& mat2, const Tensor& out) { return bmm_impl(input, mat2, &out); }
Tensor matmul(const Tensor& input, const Tensor& other) { return matmul_impl(input, other, nullptr); }
Tensor matmul_out(const Tensor& input, const Tensor& other, const Tensor& out) {
  return matmul_impl(input, other, &out);
}

// aten's mv is addmv(beta=0) into a vector `self` of input.size(0) elements -- with out=, the out
// tensor itself when it has 1 or input.size(0) elements and at most one dim -- so addmv's checks,
// in its order, name that vector: input.size(0) first (a 0-d input is the IndexError), the dims,
// the sizes (whose message reads self.size(0): a 0-d out= is the IndexError there), the dtypes.
static Tensor mv_impl(const Tensor& input, const Tensor& vec, const Tensor* out) {
  const int64_t rows = input.size(0);
  const bool into_out = out && out->dim() <= 1 && (out->numel() == rows || out->numel() == 1);
  const int64_t self_dim = into_out ? out->dim() : 1, self_numel = into_out ? out->numel() : rows;
  const ScalarType self_dtype = into_out ? out->dtype() : vec.dtype();
  EMBER_CHECK(input.dim() == 2 && vec.dim() == 1 && self_dim <= 1, "vector + matrix @ vector expected, got ", self_dim,
              ", ", input.dim(), ", ", vec.dim());
  if (input.size(1) != vec.size(0) || (rows != self_numel && self_numel != 1))
    fail(ErrorKind::Runtime, "size mismatch, got input (", into_out ? out->size(0) : rows, "), mat (", rows, "x",
         input.size(1), "), vec (", vec.size(0), ")");
  EMBER_CHECK(self_dtype == input.dtype() && self_dtype == vec.dtype(),
              "addmv input tensors must have the same dtype, but got ", legacy_name(self_dtype), ", ",
              legacy_name(input.dtype()), ", and ", legacy_name(vec.dtype()));
  const int64_t n[] = {rows};
  return to_out(reshape_result(mm_impl(input, unsqueeze(vec, 1), nullptr), IntArrayRef(n, 1)), out);
}
Tensor mv(const Tensor& input, const Tensor& vec) { return mv_impl(input, vec, nullptr); }
Tensor mv_out(const Tensor& input, const Tensor& vec, const Tensor& out) { return mv_impl(input, vec, &out); }

Tensor dot(const Tensor& input, const Tensor& tensor) {
  EMBER_CHECK(input.dim() == 1 && tensor.dim() == 1, "1D tensors expected, but got ", input.dim(), "D and ",
              tensor.dim(), "D tensors");
  EMBER_CHECK(input.dtype() == tensor.dtype(), "dot : expected both vectors to have same dtype, but found ",
              legacy_name(input.dtype()), " and ", legacy_name(tensor.dtype()));
  EMBER_CHECK(input.numel() == tensor.numel(), "inconsistent tensor size, expected tensor [", input.numel(),
              "] and src [", tensor.numel(), "] to have the same number of elements, but got ", input.numel(), " and ",
              tensor.numel(), " elements respectively");
  // aten's dot kernel dispatches every type but bool, uint16..64 and complex32 (mm, which takes bool,
  // is only ember's route)
  if (input.dtype() == ScalarType::Bool || is_shell_unsigned(input.dtype()) || input.dtype() == ScalarType::ComplexHalf)
    dtype_not_implemented("dot", input.dtype());
  return reshape_result(mm_impl(unsqueeze(input, 0), unsqueeze(tensor, 1), nullptr), {});
}
Tensor dot_out(const Tensor& input, const Tensor& tensor, const Tensor& out) {
  // aten: out= resized to 0-d and its dtype checked against the input's, before the product
  resize_out(out, {});
  EMBER_CHECK(out.dtype() == input.dtype(), "result dtype ", legacy_name(out.dtype()), " does not match input dtype ",
              legacy_name(input.dtype()));
  return to_out(dot(input, tensor), &out);
}

Tensor outer(const Tensor& input, const Tensor& vec2) {
  EMBER_CHECK(input.dim() == 1 && vec2.dim() == 1, "outer: Expected 1-D argument self, but got ", input.dim(), "-D");
  return mul(unsqueeze(input, 1), unsqueeze(vec2, 0));
}
Tensor outer_out(const Tensor& input, const Tensor& vec2, const Tensor& out) {
  outer(input, vec2);                                            // shape and dtype checks
  return mul_out(unsqueeze(input, 1), unsqueeze(vec2, 0), out);  // castable out, unlike mm
}

Tensor addmm(const Tensor& input, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  return addmm_impl(input, mat1, mat2, beta, alpha, nullptr, false);
}
Tensor addmm_(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  return addmm_impl(self, mat1, mat2, beta, alpha, nullptr, true);
}
Tensor addmm_out(const Tensor& input, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha,
                 const Tensor& out) {
  check_no_partial_overlap(out, input);  // (aten leaves the matrices unchecked)
  return addmm_impl(input, mat1, mat2, beta, alpha, &out, false);
}
Tensor baddbmm(const Tensor& input, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha) {
  return baddbmm_impl(input, batch1, batch2, beta, alpha, nullptr, false);
}
Tensor baddbmm_(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                const Scalar& alpha) {
  return baddbmm_impl(self, batch1, batch2, beta, alpha, nullptr, true);
}
Tensor baddbmm_out(const Tensor& input, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                   const Scalar& alpha, const Tensor& out) {
  check_no_partial_overlap(out, input);
  return baddbmm_impl(input, batch1, batch2, beta, alpha, &out, false);
}

}  // namespace ember
