// Complex linalg op bodies (linalg_complex.h): the same column-major buffers and batch loops as
// the real ones in linalg_lapack.cpp, LAPACK's complex routines (LapackKernels<R>::*_c), and
// real-valued results (eigenvalues, singular values, log|det|) in the matching real dtype.
#include "ops/linalg/linalg_complex.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "iter/elementwise_iter.h"  // copy_into
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"
#include "ops/linalg/lapack_util.h"

namespace ember::complex_linalg {

using namespace lapack_util;  // NOLINT(build/namespaces)

namespace {

// aten's LAPACK kernels have no complex32 form: its dispatch's refusal, before any buffer is read.
void refuse_half(const Tensor& A, const char* kernel) {
  if (A.dtype() == ScalarType::ComplexHalf) dtype_not_implemented(kernel, A.dtype());
}

template <class F>
void dispatch_c(ScalarType dt, const F& f) {
  if (dt == ScalarType::ComplexHalf) dtype_not_implemented("linalg", dt);  // refused by the entries first
  if (dt == ScalarType::ComplexFloat) f(std::complex<float>());
  else f(std::complex<double>());
}

// The identity, column-major, in every n x n matrix of the contiguous t.
template <class C>
void fill_eye(C* p, int64_t nb, int64_t rows, int64_t cols) {
  for (int64_t b = 0; b < nb; ++b)
    for (int64_t i = 0; i < std::min(rows, cols); ++i) p[b * rows * cols + i * rows + i] = C(1);
}

template <class C>
bool has_nan(C z) {
  return std::isnan(z.real()) || std::isnan(z.imag());
}

}  // namespace

Tensor inv(const Tensor& A0) {
  EMBER_CHECK(A0.dtype() != ScalarType::ComplexHalf, "linalg.inv: Low precision dtypes not supported. Got ComplexHalf");
  const Tensor A = resolve_if_conj(A0);
  int64_t n = A.sizes()[A.dim() - 1], nb = batch_count(A);
  if (n == 0 || nb == 0) return from_colmajor(to_colmajor(A));
  Tensor buf = to_colmajor(A);
  Tensor out = zeros(A.sizes(), A.dtype(), A.device());  // I, column-major, then A^-1
  std::pair<int64_t, int> bad;
  dispatch_c(A.dtype(), [&](auto z) {
    using C = decltype(z);
    const auto& la = backend(A).linalg.lapack<typename C::value_type>();
    C* p = buf.data<C>();
    C* po = out.data<C>();
    fill_eye(po, nb, n, n);
    bad = for_batch(nb, [&](int64_t b) {
      std::vector<int> ip(static_cast<size_t>(n));
      int info = 0;
      la.getrf_c(int(n), int(n), p + b * n * n, int(n), ip.data(), &info);
      if (info != 0) return info;
      la.getrs_c("N", int(n), int(n), p + b * n * n, ip.data(), po + b * n * n, &info);
      return info;
    });
  });
  check_invertible("linalg.inv", nb, bad, A.dim() > 2);
  return from_colmajor(out);
}

void lu_det(const Tensor& A0, Tensor* det, Tensor* sign, Tensor* logabs) {
  EMBER_CHECK(!logabs || A0.dtype() != ScalarType::ComplexHalf,
              "linalg.slogdet: Low precision dtypes not supported. Got ComplexHalf");
  refuse_half(A0, "lu_cpu");
  const Tensor A = resolve_if_conj(A0);
  int64_t n = A.sizes()[A.dim() - 1], nb = batch_count(A);
  DimVector bs = batch_shape(A);
  Tensor buf = to_colmajor(A);
  if (det) *det = empty(bs, A.dtype(), A.device(), std::nullopt);
  if (sign) *sign = empty(bs, A.dtype(), A.device(), std::nullopt);
  if (logabs) *logabs = empty(bs, to_real_type(A.dtype()), A.device(), std::nullopt);
  dispatch_c(A.dtype(), [&](auto z) {
    using C = decltype(z);
    using R = typename C::value_type;
    const auto& la = backend(A).linalg.lapack<R>();
    C* p = buf.data<C>();
    C* pd = det ? det->data<C>() : nullptr;
    C* ps = sign ? sign->data<C>() : nullptr;
    R* pl = logabs ? logabs->data<R>() : nullptr;
    for_batch(nb, [&](int64_t b) {
      std::vector<int> ip(static_cast<size_t>(std::max<int64_t>(n, 1)));
      int info = 0;
      C* a = p + b * n * n;
      if (n > 0) la.getrf_c(int(n), int(n), a, int(n), ip.data(), &info);
      // det = prod(u_ii) (-1)^swaps; sign = prod(sgn(u_ii)) (-1)^swaps, sgn(0) = 0; log|det| = sum log|u_ii|
      C d(1), s(1);
      R l = 0;
      for (int64_t i = 0; i < n; ++i) {
        const C u = a[i * n + i];
        const R au = std::abs(u);
        if (ip[size_t(i)] != i + 1) {
          d = -d;
          s = -s;
        }
        d *= u;
        s *= au == R(0) ? C(0) : u / au;
        l += std::log(au);
      }
      if (pd) pd[b] = d;
      if (ps) ps[b] = s;
      if (pl) pl[b] = l;
      return 0;
    });
  });
}

Tensor cholesky(const Tensor& A0, bool upper) {
  refuse_half(A0, "cholesky_cpu");
  const Tensor A = resolve_if_conj(A0);
  int64_t n = A.sizes()[A.dim() - 1], nb = batch_count(A);
  // As the real op: upper reads A's upper triangle through A^T's lower one, and A^T's lower factor
  // read row-major is A's upper factor (A^T = conj(A) for a Hermitian A).
  Tensor buf = to_colmajor(upper ? transpose(A, -2, -1) : A);
  std::pair<int64_t, int> bad{-1, 0};
  if (n > 0 && nb > 0) {
    dispatch_c(A.dtype(), [&](auto z) {
      using C = decltype(z);
      const auto& la = backend(A).linalg.lapack<typename C::value_type>();
      C* p = buf.data<C>();
      bad = for_batch(nb, [&](int64_t b) {
        int info = 0;
        C* a = p + b * n * n;
        la.potrf_c(int(n), a, &info);
        for (int64_t i = 0; info == 0 && i < n; ++i)  // reference LAPACK stops at a NaN pivot
          if (has_nan(a[i * n + i])) info = int(i + 1);
        for (int64_t j = 1; j < n; ++j) std::fill(a + j * n, a + j * n + j, C(0));
        return info;
      });
    });
  }
  check_positive_definite("linalg.cholesky", nb, bad, A.dim() > 2);
  return upper ? buf : from_colmajor(buf);
}

std::tuple<Tensor, Tensor> eigh(const Tensor& A0, const char* uplo, bool vectors) {
  refuse_half(A0, "linalg_eigh_cpu");
  const char* jobz = vectors ? "V" : "N";
  const Tensor A = resolve_if_conj(A0);
  int64_t n = A.sizes()[A.dim() - 1], nb = batch_count(A);
  Tensor buf = to_colmajor(A);
  Tensor w = empty(with_tail(batch_shape(A), {n}), to_real_type(A.dtype()), A.device(), std::nullopt);
  std::pair<int64_t, int> bad{-1, 0};
  if (n > 0 && nb > 0) {
    dispatch_c(A.dtype(), [&](auto z) {
      using C = decltype(z);
      using R = typename C::value_type;
      const auto& la = backend(A).linalg.lapack<R>();
      C* p = buf.data<C>();
      R* pw = w.data<R>();
      // The workspace sizes depend on n only: one query for the batch, one buffer per thread.
      int qinfo = 0, iwq = 0;
      C wq;
      R rwq = 0;
      la.heevd_c(jobz, uplo, int(n), p, pw, &wq, -1, &rwq, -1, &iwq, -1, &qinfo);
      struct Work {
        std::vector<C> work;
        std::vector<R> rwork;
        std::vector<int> iw;
      };
      bad = for_batch_ws(
          nb,
          [&] {
            return Work{std::vector<C>(queried_size(wq)), std::vector<R>(queried_size(rwq)),
                        std::vector<int>(queried_size(iwq))};
          },
          [&](int64_t b, Work& w) {
            int info = 0;
            la.heevd_c(jobz, uplo, int(n), p + b * n * n, pw + b * n, w.work.data(), int(w.work.size()), w.rwork.data(),
                       int(w.rwork.size()), w.iw.data(), int(w.iw.size()), &info);
            return info;
          });
    });
  }
  check_eig_converged("linalg.eigh", nb, bad, A.dim() > 2);
  return {w, vectors ? from_colmajor(buf) : Tensor()};
}

void svd(const Tensor& A0, const char* op, bool want_uv, bool full, Tensor* U, Tensor* S, Tensor* Vh) {
  refuse_half(A0, "linalg_svd_cpu");
  const Tensor A = resolve_if_conj(A0);
  int64_t m = A.sizes()[A.dim() - 2], n = A.sizes()[A.dim() - 1], k = std::min(m, n), nb = batch_count(A);
  int64_t ucols = full ? m : k, vrows = full ? n : k;
  DimVector bs = batch_shape(A);
  *S = empty(with_tail(bs, {k}), to_real_type(A.dtype()), A.device(), std::nullopt);
  Tensor ub, vb;  // column-major: U as (..., ucols, m), Vh as (..., n, vrows)
  if (want_uv) {
    ub = zeros(with_tail(bs, {ucols, m}), A.dtype(), A.device());
    vb = zeros(with_tail(bs, {n, vrows}), A.dtype(), A.device());
  }
  std::pair<int64_t, int> bad{-1, 0};
  dispatch_c(A.dtype(), [&](auto z) {
    using C = decltype(z);
    using R = typename C::value_type;
    if (k == 0) {  // empty: identity blocks for the full factors
      if (want_uv) {
        fill_eye(ub.data<C>(), nb, ucols, m);
        fill_eye(vb.data<C>(), nb, n, vrows);
      }
      return;
    }
    if (nb == 0) return;
    Tensor buf = to_colmajor(A);
    const auto& la = backend(A).linalg.lapack<R>();
    C* p = buf.data<C>();
    R* ps = S->data<R>();
    C* pu = want_uv ? ub.data<C>() : nullptr;
    C* pv = want_uv ? vb.data<C>() : nullptr;
    const char* jobz = !want_uv ? "N" : full ? "A" : "S";
    const int64_t mx = std::max(m, n);
    const int64_t lrw = std::max({7 * k, 5 * k * k + 5 * k, 2 * mx * k + 2 * k * k + k}) + 1;
    const int ldu = want_uv ? int(m) : 1, ldvt = want_uv ? int(vrows) : 1;
    // The workspace sizes depend on the shape only: one query for the batch, one buffer per thread.
    size_t lw = 0;
    {
      int qinfo = 0;
      C wq, dummy(0);
      std::vector<int> iw(static_cast<size_t>(8 * k));
      std::vector<R> rwork(static_cast<size_t>(lrw));
      la.gesdd_c(jobz, int(m), int(n), p, ps, pu ? pu : &dummy, ldu, pv ? pv : &dummy, ldvt, &wq, -1, rwork.data(),
                 iw.data(), &qinfo);
      lw = queried_size(wq);
    }
    struct Work {
      std::vector<C> work;
      std::vector<R> rwork;
      std::vector<int> iw;
    };
    auto make = [&] {
      return Work{std::vector<C>(lw), std::vector<R>(static_cast<size_t>(lrw)), std::vector<int>(size_t(8 * k))};
    };
    bad = for_batch_ws(nb, make, [&](int64_t b, Work& ws) {
      int info = 0;
      C dummy(0);
      C* u = pu ? pu + b * ucols * m : &dummy;
      C* vt = pv ? pv + b * n * vrows : &dummy;
      // As the real op: an infinity without a NaN gives NaN factors (OpenBLAS's gesdd can loop).
      const C* a = p + b * m * n;
      bool inf = false, nan = false;
      for (int64_t i = 0; i < m * n; ++i) {
        inf |= std::isinf(a[i].real()) || std::isinf(a[i].imag());
        nan |= has_nan(a[i]);
      }
      if (inf && !nan) {
        const R q = std::numeric_limits<R>::quiet_NaN();
        std::fill(ps + b * k, ps + (b + 1) * k, q);
        if (pu) std::fill(u, u + ucols * m, C(q, q));
        if (pv) std::fill(vt, vt + n * vrows, C(q, q));
        return 0;
      }
      la.gesdd_c(jobz, int(m), int(n), p + b * m * n, ps + b * k, u, ldu, vt, ldvt, ws.work.data(), int(ws.work.size()),
                 ws.rwork.data(), ws.iw.data(), &info);
      return info;
    });
  });
  check_svd_converged(op, nb, bad, A.dim() > 2);
  if (want_uv) {
    *U = from_colmajor(ub);
    *Vh = from_colmajor(vb);
  }
}

std::tuple<Tensor, Tensor> qr(const Tensor& A0, bool complete, bool want_q) {
  refuse_half(A0, "geqrf_cpu");
  const Tensor A = resolve_if_conj(A0);
  int64_t m = A.sizes()[A.dim() - 2], n = A.sizes()[A.dim() - 1], k = std::min(m, n), nb = batch_count(A);
  int64_t qcols = complete ? m : k, rrows = complete ? m : k;
  int64_t wc = std::max(n, qcols);  // work buffer: m x wc column-major, A in its first n columns
  DimVector bs = batch_shape(A);
  Tensor buf = zeros(with_tail(bs, {wc, m}), A.dtype(), A.device());
  if (nb > 0 && m > 0 && n > 0) copy_into(narrow(buf, buf.dim() - 2, 0, n), to_colmajor(A));
  Tensor rb = zeros(with_tail(bs, {n, rrows}), A.dtype(), A.device());  // R column-major
  Tensor qb = zeros(with_tail(bs, {want_q ? qcols : 0, want_q ? m : 0}), A.dtype(), A.device());
  if (nb > 0 && m > 0) {
    dispatch_c(A.dtype(), [&](auto z) {
      using C = decltype(z);
      const auto& la = backend(A).linalg.lapack<typename C::value_type>();
      C* p = buf.data<C>();
      C* pr = rb.data<C>();
      // geqrf's and ungqr's workspace sizes depend on the shape only: one query each for the batch.
      size_t lw = 1;
      if (k > 0) {
        int qinfo = 0;
        C wq, tq;
        la.geqrf_c(int(m), int(n), p, int(m), &tq, &wq, -1, &qinfo);
        lw = std::max(lw, queried_size(wq));
        if (want_q && qcols > 0) {
          la.ungqr_c(int(m), int(qcols), int(k), p, int(m), &tq, &wq, -1, &qinfo);
          lw = std::max(lw, queried_size(wq));
        }
      }
      struct Work {
        std::vector<C> tau, w;
      };
      auto make = [&] {
        return Work{std::vector<C>(static_cast<size_t>(std::max<int64_t>(k, 1))), std::vector<C>(lw)};
      };
      for_batch_ws(nb, make, [&](int64_t b, Work& ws) {
        C* a = p + b * wc * m;
        C* tau = ws.tau.data();
        int info = 0;
        if (k > 0) la.geqrf_c(int(m), int(n), a, int(m), tau, ws.w.data(), int(ws.w.size()), &info);
        C* r = pr + b * n * rrows;  // the upper triangle of the first rrows rows
        for (int64_t j = 0; j < n; ++j)
          for (int64_t i = 0; i <= j && i < rrows; ++i) r[j * rrows + i] = a[j * m + i];
        if (want_q && qcols > 0) {
          if (k == 0) {
            std::fill(a, a + qcols * m, C(0));
            fill_eye(a, 1, m, qcols);  // Q = I
          } else {
            la.ungqr_c(int(m), int(qcols), int(k), a, int(m), tau, ws.w.data(), int(ws.w.size()), &info);
          }
        }
        return 0;
      });
    });
    // Q: the first qcols columns ungqr left in each matrix's work buffer
    if (want_q && qcols > 0) copy_into(qb, narrow(buf, buf.dim() - 2, 0, qcols));
  } else if (want_q && nb > 0 && qcols > 0) {
    dispatch_c(A.dtype(), [&](auto z) { fill_eye(qb.data<decltype(z)>(), nb, m, m); });
  }
  return {want_q ? from_colmajor(qb) : empty({0}, A.dtype(), A.device(), std::nullopt), from_colmajor(rb)};
}

}  // namespace ember::complex_linalg
