// The factorisations PyTorch exposes in LAPACK's packed form: LU (getrf), QR's Householder
// reflectors (geqrf) and Bunch-Kaufman LDL^T (sytrf / sytrs; hetrf / hetrs), real or complex. Python
// (ember/linalg/_lu.py, _ldl.py, _householder.py) checks the arguments in PyTorch's order and adds the gradients; these
// op bodies take already checked, batch-broadcast inputs and call the backend's LAPACK routines (kernels/backend.h,
// LinalgKernels::lapack<T>()).
#include <algorithm>
#include <vector>

#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"
#include "ops/linalg/host_lapack.h"
#include "ops/linalg/lapack_util.h"

namespace ember {

using namespace lapack_util;  // NOLINT(build/namespaces)

// Partial-pivoting LU of every (m x n) matrix: L (unit, below the diagonal) and U packed in one
// matrix, LAPACK's 1-based row interchanges and getrf's info (> 0: U[info-1, info-1] is zero).
std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A0) {
  if (host_lapack::on_device(A0)) return host_lapack::back(linalg_lu_factor_ex(host_lapack::host(A0)), A0.device());
  const Tensor A = resolve_if_conj(A0);
  if (!is_complex(A.dtype())) check_kernel(A, "lu_cpu");
  int64_t m = A.sizes()[A.dim() - 2], n = A.sizes()[A.dim() - 1], k = std::min(m, n), nb = batch_count(A);
  DimVector bs = batch_shape(A);
  Tensor buf = to_colmajor(A);
  Tensor piv = zeros(with_tail(bs, {k}), ScalarType::Int32, A.device());
  Tensor info = zeros(bs, ScalarType::Int32, A.device());
  if (k > 0 && nb > 0) {
    int* pp = piv.data<int>();
    int* pi = info.data<int>();
    dispatch_fdc(A.dtype(), [&](auto z) {
      using T = decltype(z);
      const LinalgKernels& la = backend(A).linalg;
      T* p = buf.data<T>();
      for_batch(nb, [&](int64_t b) {
        getrf_any(la, int(m), int(n), p + b * m * n, int(m), pp + b * k, pi + b);
        return 0;
      });
    });
  }
  return {from_colmajor(buf), piv, info};
}

// LAPACK's sequence of row interchanges (1-based, ..., k) as the permutation perm (..., m) with
// (P^T A)[i] = A[perm[i]], i.e. A = P L U for P = I[:, perm].
Tensor linalg_lu_perm(const Tensor& pivots, int64_t m) {
  if (host_lapack::on_device(pivots))
    return host_lapack::back(linalg_lu_perm(host_lapack::host(pivots), m), pivots.device());
  EMBER_CHECK(pivots.dtype() == ScalarType::Int32, "linalg: expected int32 pivots");
  Tensor piv = contiguous(pivots, MemoryFormat::Contiguous);
  int64_t k = piv.sizes()[piv.dim() - 1], nb = 1;
  DimVector bs;
  for (int64_t i = 0; i + 1 < piv.dim(); ++i) bs.push_back(piv.sizes()[i]);
  for (int64_t d : bs) nb *= d;
  Tensor perm = empty(with_tail(bs, {m}), ScalarType::Int64, piv.device(), std::nullopt);
  const int* pp = piv.data<int>();
  // Checked before the kernel runs: every interchange it will apply stays inside the matrix.
  for (int64_t b = 0; b < nb; ++b)
    for (int64_t i = 0; i < std::min(k, m); ++i) {
      int64_t j = int64_t(pp[b * k + i]) - 1;
      EMBER_CHECK(j >= 0 && j < m, "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.",
                  "Did you properly pass the result of lu_factor?");
    }
  backend(perm).matrix.lu_permutation(nb, k, m, pp, perm.data<int64_t>());
  return perm;
}

namespace {
// linalg_lu_solve_kernel's complex form: the same row interchanges and trsm_c solves, the adjoint
// through A^H = U^H L^H P^T.
void lu_solve_complex(const Tensor& lu, const Tensor& piv, const Tensor& X, bool adjoint) {
  int64_t n = lu.sizes()[lu.dim() - 1], r = X.sizes()[X.dim() - 1], nb = batch_count(lu);
  const int* pp = piv.data<int>();
  dispatch_fdc(lu.dtype(), [&](auto z) {
    using C = decltype(z);
    if constexpr (is_complex_v<C>) {
      const auto& la = backend(lu).linalg.lapack<typename C::value_type>();
      const C* pa = lu.data<C>();
      C* px = X.data<C>();
      for_batch(nb, [&](int64_t b) {
        const C* a = pa + b * n * n;
        C* x = px + b * n * r;
        const int* ip = pp + b * n;
        auto swap_rows = [&](int64_t i) {
          int64_t j = int64_t(ip[i]) - 1;
          if (j != i && j >= 0 && j < n) std::swap_ranges(x + i * r, x + (i + 1) * r, x + j * r);
        };
        if (!adjoint) {
          for (int64_t i = 0; i < n; ++i) swap_rows(i);
          la.trsm_c(true, false, false, false, true, n, r, a, n, x);  // L^-1 (unit)
          la.trsm_c(true, true, false, false, false, n, r, a, n, x);  // U^-1
        } else {
          la.trsm_c(true, true, true, true, false, n, r, a, n, x);  // U^-H
          la.trsm_c(true, false, true, true, true, n, r, a, n, x);  // L^-H (unit)
          for (int64_t i = n - 1; i >= 0; --i) swap_rows(i);
        }
        return 0;
      });
    }
  });
}
}  // namespace

// X = A^{-1} B (A^{-T} B when adjoint) from getrf's factors, LU (..., n, n), pivots (..., n) and
// B (..., n, k) of one batch shape: row interchanges on a row-major copy of B and two row-major
// triangular solves (trsm), so LU is read in place (getrs would need it column-major).
Tensor linalg_lu_solve_kernel(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool adjoint) {
  if (host_lapack::on_device(LU) || host_lapack::on_device(pivots) || host_lapack::on_device(B))
    return host_lapack::back(
        linalg_lu_solve_kernel(host_lapack::host(LU), host_lapack::host(pivots), host_lapack::host(B), adjoint),
        LU.device());
  EMBER_CHECK(pivots.dtype() == ScalarType::Int32, "linalg: expected int32 pivots");
  int64_t n = LU.sizes()[LU.dim() - 1], r = B.sizes()[B.dim() - 1], nb = batch_count(LU);
  Tensor lu = contiguous(resolve_if_conj(LU), MemoryFormat::Contiguous);
  Tensor piv = contiguous(pivots, MemoryFormat::Contiguous);
  Tensor X = clone(resolve_if_conj(B), MemoryFormat::Contiguous);
  if (n > 0 && r > 0 && nb > 0 && is_complex(LU.dtype())) {
    lu_solve_complex(lu, piv, X, adjoint);
  } else if (n > 0 && r > 0 && nb > 0) {
    const int* pp = piv.data<int>();
    dispatch_fd(LU.dtype(), [&](auto z) {
      using T = decltype(z);
      const LapackKernels<T>& la = backend(LU).linalg.lapack<T>();
      const MatrixPasses<T>& mp = backend(LU).matrix.passes<T>();
      const T* pa = lu.data<T>();
      T* px = X.data<T>();
      for_batch(nb, [&](int64_t b) {
        const T* a = pa + b * n * n;
        T* x = px + b * n * r;
        const int* ip = pp + b * n;
        if (!adjoint) {  // X = U^-1 L^-1 P^T B
          mp.row_swaps(n, r, ip, x, false);
          la.trsm(true, false, false, true, n, r, a, n, x);  // L^-1 (unit)
          la.trsm(true, true, false, false, n, r, a, n, x);  // U^-1
        } else {                                             // A^T = U^T L^T P^T: X = P L^-T U^-T B
          la.trsm(true, true, true, false, n, r, a, n, x);   // U^-T
          la.trsm(true, false, true, true, n, r, a, n, x);   // L^-T (unit)
          mp.row_swaps(n, r, ip, x, true);
        }
        return 0;
      });
    });
  }
  return X;
}

namespace {
// geqrf / sytrf / sytrs of a real or complex T through the backend's table (hermitian: the
// complex Bunch-Kaufman's hetrf / hetrs; a real matrix is symmetric either way).
template <class T>
void geqrf_any(const LinalgKernels& k, int m, int n, T* a, T* tau, T* w, int lw, int* info) {
  if constexpr (is_complex_v<T>) k.lapack<typename T::value_type>().geqrf_c(m, n, a, m, tau, w, lw, info);
  else k.lapack<T>().geqrf(m, n, a, m, tau, w, lw, info);
}
template <class T>
void sytrf_any(const LinalgKernels& k, bool hermitian, int n, T* a, int* ip, T* w, int lw, int* info) {
  if constexpr (is_complex_v<T>) k.lapack<typename T::value_type>().sytrf_c(hermitian, n, a, ip, w, lw, info);
  else k.lapack<T>().sytrf(n, a, ip, w, lw, info);
}
template <class T>
void sytrs_any(const LinalgKernels& k, bool hermitian, int n, int nrhs, const T* a, const int* ip, T* b, int* info) {
  if constexpr (is_complex_v<T>) k.lapack<typename T::value_type>().sytrs_c(hermitian, n, nrhs, a, ip, b, info);
  else k.lapack<T>().sytrs(n, nrhs, a, ip, b, info);
}
}  // namespace

// Householder QR in LAPACK's compact form: R on and above the diagonal, the reflectors' vectors
// below it, and their scales tau (torch.geqrf); complex inputs through cgeqrf / zgeqrf.
std::tuple<Tensor, Tensor> linalg_geqrf(const Tensor& A0) {
  if (host_lapack::on_device(A0)) return host_lapack::back(linalg_geqrf(host_lapack::host(A0)), A0.device());
  EMBER_CHECK(A0.dim() >= 2, "torch.geqrf: input must have at least 2 dimensions.");
  if (is_floating(A0.dtype()) && A0.dtype() != ScalarType::Float32 && A0.dtype() != ScalarType::Float64)
    dtype_not_implemented("geqrf_cpu", A0.dtype());
  if (!is_complex(A0.dtype())) check_floating(A0, "torch.geqrf", false);
  const Tensor A = resolve_if_conj(A0);
  int64_t m = A.sizes()[A.dim() - 2], n = A.sizes()[A.dim() - 1], k = std::min(m, n), nb = batch_count(A);
  Tensor buf = to_colmajor(A);
  Tensor tau = zeros(with_tail(batch_shape(A), {k}), A.dtype(), A.device());
  if (k > 0 && nb > 0) {
    dispatch_fdc(A.dtype(), [&](auto z) {
      using T = decltype(z);
      const LinalgKernels& lk = backend(A).linalg;
      T* p = buf.data<T>();
      T* pt = tau.data<T>();
      int info = 0;
      T wq;
      geqrf_any(lk, int(m), int(n), p, pt, &wq, -1, &info);  // the workspace, once for the batch
      const size_t lw = queried_size(wq);
      for_batch_ws(
          nb, [&] { return std::vector<T>(lw); },
          [&](int64_t b, std::vector<T>& w) {
            int binfo = 0;
            geqrf_any(lk, int(m), int(n), p + b * m * n, pt + b * k, w.data(), int(w.size()), &binfo);
            return 0;
          });
    });
  }
  return {from_colmajor(buf), tau};
}

// Bunch-Kaufman A = L D L^T from A's lower triangle (sytrf 'L'; complex Hermitian: hetrf, L D L^H);
// the strict upper triangle of the packed result is zeroed as PyTorch does.
std::tuple<Tensor, Tensor, Tensor> linalg_ldl_factor_ex(const Tensor& A0, bool hermitian) {
  if (host_lapack::on_device(A0))
    return host_lapack::back(linalg_ldl_factor_ex(host_lapack::host(A0), hermitian), A0.device());
  const Tensor A = resolve_if_conj(A0);
  int64_t n = A.sizes()[A.dim() - 1], nb = batch_count(A);
  DimVector bs = batch_shape(A);
  Tensor buf = to_colmajor(A);
  Tensor piv = zeros(with_tail(bs, {n}), ScalarType::Int32, A.device());
  Tensor info = zeros(bs, ScalarType::Int32, A.device());
  if (n > 0 && nb > 0) {
    int* pp = piv.data<int>();
    int* pi = info.data<int>();
    dispatch_fdc(A.dtype(), [&](auto z) {
      using T = decltype(z);
      const LinalgKernels& lk = backend(A).linalg;
      T* p = buf.data<T>();
      int qinfo = 0;
      T wq;
      sytrf_any(lk, hermitian, int(n), p, pp, &wq, -1, &qinfo);  // the workspace, once for the batch
      const size_t lw = queried_size(wq);
      for_batch_ws(
          nb, [&] { return std::vector<T>(lw); },
          [&](int64_t b, std::vector<T>& w) {
            T* a = p + b * n * n;
            sytrf_any(lk, hermitian, int(n), a, pp + b * n, w.data(), int(w.size()), pi + b);
            for (int64_t j = 1; j < n; ++j) std::fill(a + j * n, a + j * n + j, T(0));  // column j above the diagonal
            return 0;
          });
    });
  }
  return {from_colmajor(buf), piv, info};
}

// X = A^{-1} B from sytrf's (hetrf's) factors; LD (..., n, n), pivots (..., n) and B (..., n, k)
// share one batch shape.
Tensor linalg_ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian) {
  if (host_lapack::on_device(LD) || host_lapack::on_device(pivots) || host_lapack::on_device(B))
    return host_lapack::back(
        linalg_ldl_solve(host_lapack::host(LD), host_lapack::host(pivots), host_lapack::host(B), hermitian),
        LD.device());
  int64_t n = LD.sizes()[LD.dim() - 1], r = B.sizes()[B.dim() - 1], nb = batch_count(LD);
  Tensor abuf = to_colmajor(resolve_if_conj(LD)), bbuf = to_colmajor(resolve_if_conj(B));
  EMBER_CHECK(pivots.dtype() == ScalarType::Int32, "linalg: expected int32 pivots");
  Tensor piv = contiguous(pivots, MemoryFormat::Contiguous);
  if (n > 0 && r > 0 && nb > 0) {
    const int* pp = piv.data<int>();
    // sytrs trusts its pivots. aten checks |p| >= 1 (int32's minimum, whose abs wraps, fails it)
    // and |p| <= n over all of them; a 2x2 block (a negative pair) cut off at a matrix's end would
    // still read and swap rows outside B (aten answers NaN there): ember raises for it too.
    const int64_t total = nb * n;
    auto any_of = [&](auto bad) {
      for (int64_t i = 0; i < total; ++i)
        if (bad(int64_t(pp[i]))) return true;
      return false;
    };
    const char* hint = ". Did you properly pass the result of ldl_factor?";
    EMBER_CHECK(!any_of([](int64_t p) { return p == 0 || p == INT32_MIN; }),
                "Pivots given to ldl_solve must all satisfy |pivot| >= 1", hint);
    EMBER_CHECK(!any_of([&](int64_t p) { return (p < 0 ? -p : p) > n; }),
                "Pivots given to ldl_solve must all satisfy |pivot| <= LD.size(-2)", hint);
    for (int64_t b = 0; b < nb; ++b) {
      const int* ip = pp + b * n;
      for (int64_t k = 0; k < n; ++k) {
        if (ip[k] > 0) continue;
        EMBER_CHECK(k + 1 < n && ip[k + 1] < 0, "torch.linalg.ldl_solve: pivots[", k, "] = ", ip[k],
                    " starts a 2x2 block that the pivots do not complete (ldl_factor gives a negative pair)");
        ++k;
      }
    }
    dispatch_fdc(LD.dtype(), [&](auto z) {
      using T = decltype(z);
      const LinalgKernels& lk = backend(LD).linalg;
      const T* pa = abuf.data<T>();
      T* pb = bbuf.data<T>();
      for_batch(nb, [&](int64_t b) {
        int info = 0;
        sytrs_any(lk, hermitian, int(n), int(r), pa + b * n * n, pp + b * n, pb + b * n * r, &info);
        return 0;
      });
    });
  }
  return from_colmajor(bbuf);
}

}  // namespace ember
