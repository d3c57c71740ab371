// torch.linalg decompositions and solvers through the backend's LAPACK routines
// (kernels/backend.h, LinalgKernels::lapack<T>(): column-major). A row-major matrix
// is copied to column-major as contiguous(A.mT); batches loop in parallel.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <vector>

#include "core/parallel.h"
#include "iter/elementwise_iter.h"  // copy_into
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"
#include "ops/linalg/host_lapack.h"
#include "ops/linalg/lapack_util.h"
#include "ops/linalg/linalg_complex.h"

namespace ember {

using namespace lapack_util;  // NOLINT(build/namespaces)

// LU then triangular solves against I (lu_solve.h: blocked on ember's GEMM; OpenBLAS's getrs
// beat its getri, and the blocked solve beats both).
Tensor linalg_inv(const Tensor& A) {
  if (host_lapack::on_device(A)) return host_lapack::back(linalg_inv(host_lapack::host(A)), A.device());
  check_matrix(A, "linalg.inv", true);
  if (is_complex(A.dtype())) return complex_linalg::inv(A);
  check_square(A, "linalg.inv", false);
  int64_t n = A.sizes()[A.dim() - 1], nb = batch_count(A);
  Tensor buf = to_colmajor(A);
  if (n == 0 || nb == 0) return from_colmajor(buf);
  Tensor out = clone(expand(eye(n, A.dtype(), A.device()), A.sizes(), false), MemoryFormat::Contiguous);
  std::pair<int64_t, int> bad;
  const LinalgKernels& kern = backend(A).linalg;
  dispatch_fd(A.dtype(), [&](auto z) {
    using T = decltype(z);
    const LapackKernels<T>& la = backend(A).linalg.lapack<T>();
    T* p = buf.data<T>();
    T* po = out.data<T>();
    bad = for_batch(nb, [&](int64_t b) {
      std::vector<int> ip(static_cast<size_t>(n));
      int info = 0;
      T* a = p + b * n * n;
      la.getrf(int(n), int(n), a, int(n), ip.data(), &info);
      if (info != 0) return info;
      kern.lu_solve(n, n, a, ip.data(), po + b * n * n);
      return info;
    });
  });
  check_invertible("linalg.inv", nb, bad, A.dim() > 2);
  return out;  // solved row-major: already the result
}

namespace {
// LU of every matrix; fills det sign and log|det| (or det itself).
void lu_det(const Tensor& A, const char* op, Tensor* det, Tensor* sign, Tensor* logabs) {
  check_matrix(A, op, true);
  if (is_complex(A.dtype())) return complex_linalg::lu_det(A, det, sign, logabs);
  check_square(A, op, det != nullptr);  // det takes half types to its LU kernel, slogdet rejects them
  if (det) check_kernel(A, "lu_cpu");
  int64_t n = A.sizes()[A.dim() - 1], nb = batch_count(A);
  DimVector bs = batch_shape(A);
  if (A.dtype() != ScalarType::Float32 && A.dtype() != ScalarType::Float64) {  // empty half: det of 0x0 is 1
    *det = ones(bs, A.dtype(), A.device());
    return;
  }
  Tensor buf = to_colmajor(A);
  if (det) *det = empty(bs, A.dtype(), A.device(), std::nullopt);
  if (sign) *sign = empty(bs, A.dtype(), A.device(), std::nullopt);
  if (logabs) *logabs = empty(bs, A.dtype(), A.device(), std::nullopt);
  dispatch_fd(A.dtype(), [&](auto z) {
    using T = decltype(z);
    const LapackKernels<T>& la = backend(A).linalg.lapack<T>();
    const MatrixPasses<T>& mp = backend(A).matrix.passes<T>();
    T* p = buf.data<T>();
    T* pd = det ? det->data<T>() : nullptr;
    T* ps = sign ? sign->data<T>() : nullptr;
    T* pl = logabs ? logabs->data<T>() : nullptr;
    for_batch(nb, [&](int64_t b) {
      std::vector<int> ip(static_cast<size_t>(std::max<int64_t>(n, 1)));
      int info = 0;
      T* a = p + b * n * n;
      if (n > 0) la.getrf(int(n), int(n), a, int(n), ip.data(), &info);
      // PyTorch's formulas: sign = prod(sgn(u_ii)) * (-1)^swaps, with sgn(NaN) = sgn(0) = 0 (so a
      // NaN or a zero pivot gives a ±0 sign); det = prod(u_ii) * (-1)^swaps.
      mp.lu_det(n, a, ip.data(), pd ? pd + b : nullptr, ps ? ps + b : nullptr, pl ? pl + b : nullptr);
      return 0;
    });
  });
}
}  // namespace

Tensor linalg_det(const Tensor& A) {
  if (host_lapack::on_device(A)) return host_lapack::back(linalg_det(host_lapack::host(A)), A.device());
  Tensor d;
  lu_det(A, "linalg.det", &d, nullptr, nullptr);
  return d;
}

std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& A) {
  if (host_lapack::on_device(A)) return host_lapack::back(linalg_slogdet(host_lapack::host(A)), A.device());
  Tensor s, l;
  lu_det(A, "linalg.slogdet", nullptr, &s, &l);
  return {s, l};
}

// B is a (batch of) vector(s) rather than matrices (PyTorch's rule for linalg.solve).
bool solve_is_vector(const Tensor& A, const Tensor& B) {
  if (B.dim() == 1) return true;
  if (B.dim() != A.dim() - 1) return false;
  for (int64_t i = 0; i < B.dim(); ++i)
    if (B.sizes()[i] != A.sizes()[i]) return false;
  return true;
}

Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left) {
  if (host_lapack::on_device(A) || host_lapack::on_device(B))
    return host_lapack::back(linalg_solve(host_lapack::host(A), host_lapack::host(B), left), A.device());
  if (!is_complex(A.dtype())) check_floating(A, "linalg.solve", true);
  EMBER_CHECK(A.dtype() == B.dtype(), "linalg.solve: Expected A and B to have the same dtype, but found A of type ",
              legacy_name(A.dtype()), " and B of type ", legacy_name(B.dtype()), " instead");
  bool vec = solve_is_vector(A, B);
  Tensor Bm = vec ? unsqueeze(B, -1) : B;
  check_matrix(A, "linalg.solve", true);
  check_matrix(Bm, "linalg.solve", false, "B");
  Tensor Aw = left ? A : transpose(A, -2, -1);
  if (!left) Bm = transpose(Bm, -2, -1);
  int64_t n = A.sizes()[A.dim() - 1];
  int64_t br = Bm.sizes()[Bm.dim() - 2], bc = Bm.sizes()[Bm.dim() - 1];
  EMBER_CHECK(br == n, "linalg.solve: Incompatible shapes of A and B for the equation ", left ? "AX = B" : "XA = B",
              " (", A.sizes()[A.dim() - 2], "x", n, " and ", left ? br : bc, "x", left ? bc : br, ")");
  // broadcast the batch dims
  DimVector ab = batch_shape(Aw), bb = batch_shape(Bm);
  size_t nd = std::max(ab.size(), bb.size());
  DimVector bs(nd, 1);
  for (size_t i = 0; i < nd; ++i) {
    int64_t x = i + ab.size() >= nd ? ab[i + ab.size() - nd] : 1;
    int64_t y = i + bb.size() >= nd ? bb[i + bb.size() - nd] : 1;
    EMBER_CHECK(x == y || x == 1 || y == 1, "The size of tensor a (", x, ") must match the size of tensor b (", y,
                ") at non-singleton dimension ", i);
    bs[i] = x == 1 ? y : x;
  }
  Tensor Ab = expand(Aw, with_tail(bs, {n, n}), false), Bb = expand(Bm, with_tail(bs, {n, bc}), false);
  if (!is_complex(A.dtype())) check_kernel(A, "lu_cpu");
  Tensor abuf = to_colmajor(resolve_if_conj(Ab)), bbuf = to_colmajor(resolve_if_conj(Bb));
  int64_t nb = batch_count(abuf);
  std::pair<int64_t, int> bad{-1, 0};
  // aten factors A even for an empty B: a singular A is the error then too.
  if (n > 0 && nb > 0) {
    dispatch_fdc(A.dtype(), [&](auto z) {
      using T = decltype(z);
      const LinalgKernels& la = backend(A).linalg;
      T* pa = abuf.data<T>();
      T* pb = bbuf.data<T>();
      bad = for_batch(nb, [&](int64_t b) {
        std::vector<int> ip(static_cast<size_t>(n));
        int info = 0;
        getrf_any(la, int(n), int(n), pa + b * n * n, int(n), ip.data(), &info);
        if (info != 0 || bc == 0) return info;
        getrs_any(la, int(n), int(bc), pa + b * n * n, ip.data(), pb + b * n * bc, &info);
        return info;
      });
    });
  } else if (n > 0 && batch_count(A) > 0) {
    // aten factors A itself, before broadcasting it against B: its singular matrices are the
    // error even where B's batch is empty
    Tensor own = to_colmajor(resolve_if_conj(Aw));
    dispatch_fdc(A.dtype(), [&](auto z) {
      using T = decltype(z);
      const LinalgKernels& la = backend(A).linalg;
      T* pa = own.data<T>();
      bad = for_batch(batch_count(own), [&](int64_t b) {
        std::vector<int> ip(static_cast<size_t>(n));
        int info = 0;
        getrf_any(la, int(n), int(n), pa + b * n * n, int(n), ip.data(), &info);
        return info;
      });
    });
  }
  EMBER_CHECK_KIND(ErrorKind::LinAlg, bad.second <= 0,
                   "torch.linalg.solve: The solver failed because the input matrix is singular.");
  Tensor X = from_colmajor(bbuf);
  if (!left) X = contiguous(transpose(X, -2, -1), MemoryFormat::Contiguous);
  return vec ? squeeze(X, -1) : X;
}

Tensor linalg_cholesky(const Tensor& A, bool upper) {
  if (host_lapack::on_device(A)) return host_lapack::back(linalg_cholesky(host_lapack::host(A), upper), A.device());
  check_matrix(A, "linalg.cholesky", true);
  if (is_complex(A.dtype())) return complex_linalg::cholesky(A, upper);
  check_square(A, "linalg.cholesky", true);
  check_kernel(A, "cholesky_cpu");
  int64_t n = A.sizes()[A.dim() - 1], nb = batch_count(A);
  // upper=True reads A's upper triangle (LAPACK's 'U'), which is A^T's lower one: the lower
  // factor of A^T, transposed. A matrix that is not symmetric gives another answer per triangle.
  Tensor buf = to_colmajor(upper ? transpose(A, -2, -1) : A);
  std::pair<int64_t, int> bad{-1, 0};
  if (n > 0 && nb > 0) {
    dispatch_fd(A.dtype(), [&](auto z) {
      using T = decltype(z);
      const LapackKernels<T>& la = backend(A).linalg.lapack<T>();
      const MatrixPasses<T>& mp = backend(A).matrix.passes<T>();
      T* p = buf.data<T>();
      bad = for_batch(nb, [&](int64_t b) {
        int info = 0;
        T* a = p + b * n * n;
        la.potrf(int(n), a, &info);
        // Reference LAPACK stops at a NaN pivot (info = its order); OpenBLAS's potrf runs on and
        // fills NaN. The first NaN on the diagonal is where reference LAPACK (and PyTorch) stop.
        if (info == 0) info = mp.first_nan_diagonal(n, a);
        mp.zero_strict_upper(n, a);
        return info;
      });
    });
  }
  check_positive_definite("linalg.cholesky", nb, bad, A.dim() > 2);
  // buf read row-major is L^T: the upper factor.
  return upper ? buf : from_colmajor(buf);
}

namespace {
// Eigenvalues, and eigenvectors when `vectors` (else the second result is undefined): syevd's jobz.
std::tuple<Tensor, Tensor> eigh_impl(const Tensor& A, std::string_view UPLO, bool vectors) {
  // No floating check in PyTorch: an empty integer input returns empty results of its dtype.
  check_matrix(A, "linalg.eigh", true);  // eigvalsh too: aten runs both as _linalg_eigh
  EMBER_CHECK(UPLO == "L" || UPLO == "U" || UPLO == "l" || UPLO == "u",
              "Expected UPLO argument to be 'L' or 'U', but got ", UPLO);
  char uplo[2] = {char(std::toupper(UPLO[0])), 0};
  const char* jobz = vectors ? "V" : "N";
  if (is_complex(A.dtype())) return complex_linalg::eigh(A, uplo, vectors);
  check_kernel(A, "linalg_eigh_cpu");
  int64_t n = A.sizes()[A.dim() - 1], nb = batch_count(A);
  Tensor buf = to_colmajor(A);
  Tensor w = empty(with_tail(batch_shape(A), {n}), A.dtype(), A.device(), std::nullopt);
  std::pair<int64_t, int> bad{-1, 0};
  if (n > 0 && nb > 0) {
    dispatch_fd(A.dtype(), [&](auto z) {
      using T = decltype(z);
      const LapackKernels<T>& la = backend(A).linalg.lapack<T>();
      T* p = buf.data<T>();
      T* pw = w.data<T>();
      bad = for_batch(nb, [&](int64_t b) {
        int info = 0, iwq = 0;
        T wq;
        la.syevd(jobz, uplo, int(n), p + b * n * n, pw + b * n, &wq, -1, &iwq, -1, &info);
        std::vector<T> work(static_cast<size_t>(wq) + 1);
        std::vector<int> iw(static_cast<size_t>(iwq) + 1);
        la.syevd(jobz, uplo, int(n), p + b * n * n, pw + b * n, work.data(), int(work.size()), iw.data(),
                 int(iw.size()), &info);
        return info;
      });
    });
  }
  check_eig_converged("linalg.eigh", nb, bad, A.dim() > 2);
  return {w, vectors ? from_colmajor(buf) : Tensor()};
}
}  // namespace

std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& A, std::string_view UPLO) {
  if (host_lapack::on_device(A)) return host_lapack::back(linalg_eigh(host_lapack::host(A), UPLO), A.device());
  return eigh_impl(A, UPLO, true);
}
Tensor linalg_eigvalsh(const Tensor& A, std::string_view UPLO) {
  if (host_lapack::on_device(A)) return host_lapack::back(linalg_eigvalsh(host_lapack::host(A), UPLO), A.device());
  return std::get<0>(eigh_impl(A, UPLO, false));
}

namespace {
// SVD of every matrix; U / Vh only when want_uv (full or reduced).
void svd_impl(const Tensor& A, const char* op, bool want_uv, bool full, Tensor* U, Tensor* S, Tensor* Vh) {
  check_matrix(A, op, false);
  if (is_complex(A.dtype())) return complex_linalg::svd(A, op, want_uv, full, U, S, Vh);
  check_floating(A, op, true);
  check_kernel(A, "linalg_svd_cpu");
  int64_t m = A.sizes()[A.dim() - 2], n = A.sizes()[A.dim() - 1], k = std::min(m, n), nb = batch_count(A);
  int64_t ucols = full ? m : k, vrows = full ? n : k;
  DimVector bs = batch_shape(A);
  *S = empty(with_tail(bs, {k}), A.dtype(), A.device(), std::nullopt);
  // U and Vh column-major buffers: U as (..., ucols, m), Vh as (..., n, vrows).
  Tensor ub, vb;
  if (want_uv) {
    ub = zeros(with_tail(bs, {ucols, m}), A.dtype(), A.device());
    vb = zeros(with_tail(bs, {n, vrows}), A.dtype(), A.device());
  }
  if (k == 0) {  // empty: identity blocks for the full factors
    if (want_uv && nb > 0) {
      if (ucols > 0) ub = clone(expand(eye(m, A.dtype(), A.device()), with_tail(bs, {m, m}), false), std::nullopt);
      if (vrows > 0) vb = clone(expand(eye(n, A.dtype(), A.device()), with_tail(bs, {n, n}), false), std::nullopt);
    }
  } else if (nb > 0) {
    Tensor buf = to_colmajor(A);
    std::pair<int64_t, int> bad;
    dispatch_fd(A.dtype(), [&](auto z) {
      using T = decltype(z);
      const LapackKernels<T>& la = backend(A).linalg.lapack<T>();
      T* p = buf.data<T>();
      T* ps = S->data<T>();
      T* pu = want_uv ? ub.data<T>() : nullptr;
      T* pv = want_uv ? vb.data<T>() : nullptr;
      const char* jobz = !want_uv ? "N" : full ? "A" : "S";
      bad = for_batch(nb, [&](int64_t b) {
        int info = 0;
        T dummy = 0;
        T* u = pu ? pu + b * ucols * m : &dummy;
        T* vt = pv ? pv + b * n * vrows : &dummy;
        int ldu = want_uv ? int(m) : 1, ldvt = want_uv ? int(vrows) : 1;
        // An infinity (and no NaN, which LAPACK refuses with info = -4) can send OpenBLAS's gesdd into
        // an endless loop; the decomposition of such a matrix is undefined: NaN factors, as MKL's S.
        const T* a = p + b * m * n;
        bool inf = false, nan = false;
        for (int64_t i = 0; i < m * n; ++i) {
          inf |= std::isinf(a[i]);
          nan |= std::isnan(a[i]);
        }
        if (inf && !nan) {
          const T q = std::numeric_limits<T>::quiet_NaN();
          std::fill(ps + b * k, ps + (b + 1) * k, q);
          if (pu) std::fill(u, u + ucols * m, q);
          if (pv) std::fill(vt, vt + n * vrows, q);
          return 0;
        }
        std::vector<int> iw(static_cast<size_t>(8 * k));
        T wq;
        la.gesdd(jobz, int(m), int(n), p + b * m * n, ps + b * k, u, ldu, vt, ldvt, &wq, -1, iw.data(), &info);
        std::vector<T> work(static_cast<size_t>(wq) + 1);
        la.gesdd(jobz, int(m), int(n), p + b * m * n, ps + b * k, u, ldu, vt, ldvt, work.data(), int(work.size()),
                 iw.data(), &info);
        return info;
      });
    });
    check_svd_converged(op, nb, bad, A.dim() > 2);
  }
  if (want_uv) {
    *U = from_colmajor(ub);
    *Vh = from_colmajor(vb);
  }
}
}  // namespace

TensorList linalg_svd(const Tensor& A, bool full_matrices) {
  if (host_lapack::on_device(A)) return host_lapack::back(linalg_svd(host_lapack::host(A), full_matrices), A.device());
  Tensor U, S, Vh;
  svd_impl(A, "linalg.svd", true, full_matrices, &U, &S, &Vh);
  return {U, S, Vh};
}

Tensor linalg_svdvals(const Tensor& A) {
  if (host_lapack::on_device(A)) return host_lapack::back(linalg_svdvals(host_lapack::host(A)), A.device());
  Tensor S;
  svd_impl(A, "linalg.svd", false, false, nullptr, &S, nullptr);
  return S;
}

std::tuple<Tensor, Tensor> linalg_qr(const Tensor& A, std::string_view mode) {
  if (host_lapack::on_device(A)) return host_lapack::back(linalg_qr(host_lapack::host(A), mode), A.device());
  check_matrix(A, "linalg.qr", false);
  // aten's order: a floating input, the mode, then its geqrf kernel (which has no half types,
  // and runs on empty inputs too).
  const bool half = is_floating(A.dtype()) && A.dtype() != ScalarType::Float32 && A.dtype() != ScalarType::Float64;
  if (!half && !is_complex(A.dtype())) check_floating(A, "linalg.qr", false);
  EMBER_CHECK(mode == "reduced" || mode == "complete" || mode == "r", "qr received unrecognized mode '", mode,
              "' but expected one of 'reduced' (default), 'r', or 'complete'");
  if (half) dtype_not_implemented("geqrf_cpu", A.dtype());
  if (is_complex(A.dtype())) return complex_linalg::qr(A, mode == "complete", mode != "r");
  int64_t m = A.sizes()[A.dim() - 2], n = A.sizes()[A.dim() - 1], k = std::min(m, n), nb = batch_count(A);
  bool complete = mode == "complete", want_q = mode != "r";
  int64_t qcols = complete ? m : k;
  int64_t rrows = complete ? m : k;
  // Work buffer: m x max(n, qcols) column-major, A in its first n columns.
  int64_t wc = std::max(n, qcols);
  DimVector bs = batch_shape(A);
  Tensor buf = zeros(with_tail(bs, {wc, m}), A.dtype(), A.device());
  if (nb > 0 && m > 0 && n > 0) {
    Tensor tmp = to_colmajor(A);  // (..., n, m)
    copy_into(narrow(buf, buf.dim() - 2, 0, n), tmp);
  }
  Tensor rb = zeros(with_tail(bs, {n, rrows}), A.dtype(), A.device());  // R column-major
  Tensor qb = zeros(with_tail(bs, {want_q ? qcols : 0, want_q ? m : 0}), A.dtype(), A.device());
  if (nb > 0 && m > 0) {
    dispatch_fd(A.dtype(), [&](auto z) {
      using T = decltype(z);
      const LapackKernels<T>& la = backend(A).linalg.lapack<T>();
      const MatrixPasses<T>& mp = backend(A).matrix.passes<T>();
      const FillKernels& fill = backend(A).fill;
      T* p = buf.data<T>();
      T* pr = rb.data<T>();
      T* pq = qb.data<T>();
      for_batch(nb, [&](int64_t b) {
        T* a = p + b * wc * m;
        std::vector<T> tau(static_cast<size_t>(std::max<int64_t>(k, 1)));
        int info = 0;
        if (k > 0) {
          T wq;
          la.geqrf(int(m), int(n), a, int(m), tau.data(), &wq, -1, &info);
          std::vector<T> w(static_cast<size_t>(wq) + 1);
          la.geqrf(int(m), int(n), a, int(m), tau.data(), w.data(), int(w.size()), &info);
        }
        mp.upper_rows(m, n, rrows, a, pr + b * n * rrows);
        if (want_q && qcols > 0) {
          if (k == 0) {
            fill.eye(A.dtype(), pq + b * qcols * m, qcols, m);  // Q = I
          } else {
            T wq;
            la.orgqr(int(m), int(qcols), int(k), a, int(m), tau.data(), &wq, -1, &info);
            std::vector<T> w(static_cast<size_t>(wq) + 1);
            la.orgqr(int(m), int(qcols), int(k), a, int(m), tau.data(), w.data(), int(w.size()), &info);
          }
        }
        return 0;
      });
    });
    // Q: the first qcols columns orgqr left in each matrix's work buffer
    if (want_q && qcols > 0 && k > 0) copy_into(qb, narrow(buf, buf.dim() - 2, 0, qcols));
  } else if (want_q && nb > 0 && qcols > 0) {
    qb = clone(expand(eye(m, A.dtype(), A.device()), with_tail(bs, {m, m}), false), std::nullopt);
  }
  // mode='r': PyTorch returns an empty Q
  return {want_q ? from_colmajor(qb) : empty({0}, A.dtype(), A.device(), std::nullopt), from_colmajor(rb)};
}

}  // namespace ember
