// torch.linalg.eig / eigvals through LAPACK's geev (the backend's LapackKernels::geev / geev_c):
// a general square matrix's complex eigenvalues and unit right eigenvectors, as PyTorch's CPU
// kernel (real input: LAPACK's packed conjugate pairs unpacked into complex columns).
#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/linalg/host_lapack.h"
#include "ops/linalg/lapack_util.h"

namespace ember {

using namespace lapack_util;  // NOLINT(build/namespaces)

namespace {

// PyTorch's checks, in its order: a dtype with a complex counterpart (its result dtype: a
// RuntimeError for integers and bool), a square matrix, then a dtype its kernel has (no halfs).
ScalarType eig_checks(const Tensor& A, const char* op) {
  const ScalarType t = A.dtype();
  EMBER_CHECK(is_floating(t) || is_complex(t), "Unknown Complex ScalarType for ", legacy_name(t));
  check_matrix(A, op, true);
  if (t != ScalarType::Float32 && t != ScalarType::Float64 && (!is_complex(t) || t == ScalarType::ComplexHalf))
    dtype_not_implemented("linalg_eig_out_cpu", t);
  return is_complex(t) ? t : to_complex_type(t);
}

template <class T>
bool all_finite(const T* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(std::real(p[i])) || !std::isfinite(std::imag(p[i]))) return false;
  return true;
}

// One real matrix (column-major, overwritten): eigenvalues into l, eigenvectors (row-major n x n)
// into v when v is not null.
template <class T>
int geev_real(const LapackKernels<T>& la, int n, T* a, std::complex<T>* l, std::complex<T>* v) {
  const char* job = v ? "V" : "N";
  std::vector<T> wr(n), wi(n), vr(v ? size_t(n) * n : 1);
  int info = 0;
  T wq = 0;
  la.geev(job, n, a, wr.data(), wi.data(), vr.data(), &wq, -1, &info);
  std::vector<T> work(static_cast<size_t>(wq) + 1);
  la.geev(job, n, a, wr.data(), wi.data(), vr.data(), work.data(), int(work.size()), &info);
  if (info != 0) return info;
  for (int j = 0; j < n; ++j) l[j] = {wr[j], wi[j]};
  if (!v) return 0;
  for (int j = 0; j < n; ++j) {
    const T* c = vr.data() + size_t(j) * n;
    if (wi[j] == T(0)) {
      for (int r = 0; r < n; ++r) v[size_t(r) * n + j] = {c[r], T(0)};
    } else if (wi[j] > T(0) && j + 1 < n) {  // the pair (j, j + 1): re + i im and its conjugate
      const T* im = c + n;
      for (int r = 0; r < n; ++r) {
        v[size_t(r) * n + j] = {c[r], im[r]};
        v[size_t(r) * n + j + 1] = {c[r], -im[r]};
      }
      ++j;
    }
  }
  return 0;
}

template <class T>
int geev_complex(const LapackKernels<T>& la, int n, std::complex<T>* a, std::complex<T>* l, std::complex<T>* v) {
  const char* job = v ? "V" : "N";
  std::vector<std::complex<T>> vr(v ? size_t(n) * n : 1);
  std::vector<T> rwork(2 * size_t(n));
  int info = 0;
  std::complex<T> wq = 0;
  la.geev_c(job, n, a, l, vr.data(), &wq, -1, rwork.data(), &info);
  std::vector<std::complex<T>> work(static_cast<size_t>(wq.real()) + 1);
  la.geev_c(job, n, a, l, vr.data(), work.data(), int(work.size()), rwork.data(), &info);
  if (info != 0 || !v) return info;
  for (int j = 0; j < n; ++j)
    for (int r = 0; r < n; ++r) v[size_t(r) * n + j] = vr[size_t(j) * n + r];
  return 0;
}

std::tuple<Tensor, Tensor> eig_impl(const Tensor& A, bool vectors) {
  const char* op = vectors ? "linalg.eig" : "linalg.eigvals";
  // PyTorch's eig refuses inf / NaN before any other check (a float16 or 1-d input too)
  if (vectors && (is_floating(A.dtype()) || is_complex(A.dtype())))
    EMBER_CHECK(all(isfinite(A)).data<bool>()[0], "torch.linalg.eig: input tensor should not contain infs or NaNs.");
  const ScalarType ct = eig_checks(A, op);
  const int64_t n = A.sizes()[A.dim() - 1], nb = batch_count(A);
  DimVector bs = batch_shape(A);
  Tensor L = empty(with_tail(bs, {n}), ct, A.device(), std::nullopt);
  Tensor V = vectors ? empty(with_tail(bs, {n, n}), ct, A.device(), std::nullopt) : Tensor();
  if (n == 0 || nb == 0) return {L, V};
  Tensor buf = to_colmajor(A);
  const bool finite = vectors || all(isfinite(A)).data<bool>()[0];  // eig checked it above
  // PyTorch's eigvals hands a matrix holding inf or NaN to LAPACK, whose geev loops forever or
  // crashes on some (MKL: [[nan, nan], [nan, nan]] float32 segfaults): each such matrix's
  // eigenvalues are NaN here, the batch's finite matrices computed as usual.
  std::pair<int64_t, int> bad{-1, 0};
  auto run = [&](auto z) {
    using T = decltype(z);
    const LapackKernels<T>& la = backend(A).linalg.lapack<T>();
    auto* pl = L.data<std::complex<T>>();
    auto* pv = vectors ? V.data<std::complex<T>>() : nullptr;
    const bool cplx = is_complex(buf.dtype());
    bad = for_batch(nb, [&](int64_t b) {
      std::complex<T>* vb = pv ? pv + b * n * n : nullptr;
      if (!finite && !(cplx ? all_finite(buf.data<std::complex<T>>() + b * n * n, n * n)
                            : all_finite(buf.data<T>() + b * n * n, n * n))) {
        std::fill(pl + b * n, pl + (b + 1) * n, std::complex<T>(NAN, NAN));
        return 0;
      }
      if (cplx) return geev_complex(la, int(n), buf.data<std::complex<T>>() + b * n * n, pl + b * n, vb);
      return geev_real(la, int(n), buf.data<T>() + b * n * n, pl + b * n, vb);
    });
  };
  if (ct == ScalarType::ComplexFloat) run(float(0));
  else if (ct == ScalarType::ComplexDouble) run(double(0));
  else dtype_not_implemented("linalg_eig_out_cpu", A.dtype());
  check_eig_converged(op, nb, bad, A.dim() > 2);
  return {L, V};
}

}  // namespace

std::tuple<Tensor, Tensor> linalg_eig(const Tensor& A) {
  if (host_lapack::on_device(A)) return host_lapack::back(linalg_eig(host_lapack::host(A)), A.device());
  return eig_impl(A, true);
}
Tensor linalg_eigvals(const Tensor& A) {
  if (host_lapack::on_device(A)) return host_lapack::back(linalg_eigvals(host_lapack::host(A)), A.device());
  return std::get<0>(eig_impl(A, false));
}

}  // namespace ember
