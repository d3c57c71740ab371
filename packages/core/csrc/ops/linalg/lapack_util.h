// Shared helpers of the LAPACK-backed linalg ops (linalg_lapack.cpp, linalg_factor.cpp): PyTorch's
// input checks, column-major copies and the parallel batch loop.
#pragma once
#include <complex>
#include <string>
#include <utility>
#include <vector>

#include "core/parallel.h"
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"

namespace ember::lapack_util {

template <class F>
inline void dispatch_fd(ScalarType dt, const F& f) {
  if (dt == ScalarType::Float32) f(float(0));
  else f(double(0));
}

// float, double, complex<float> or complex<double> by dt.
template <class F>
inline void dispatch_fdc(ScalarType dt, const F& f) {
  if (dt == ScalarType::ComplexHalf) dtype_not_implemented("linalg", dt);  // no complex32 LAPACK
  if (dt == ScalarType::ComplexFloat) f(std::complex<float>());
  else if (dt == ScalarType::ComplexDouble) f(std::complex<double>());
  else dispatch_fd(dt, f);
}

// LAPACK's getrf / getrs ("N") of a real or complex T through the backend's table.
template <class T>
inline void getrf_any(const LinalgKernels& k, int m, int n, T* a, int lda, int* ip, int* info) {
  if constexpr (is_complex_v<T>) k.lapack<typename T::value_type>().getrf_c(m, n, a, lda, ip, info);
  else k.lapack<T>().getrf(m, n, a, lda, ip, info);
}
template <class T>
inline void getrs_any(const LinalgKernels& k, int n, int nrhs, const T* a, const int* ip, T* b, int* info) {
  if constexpr (is_complex_v<T>) k.lapack<typename T::value_type>().getrs_c("N", n, nrhs, a, ip, b, info);
  else k.lapack<T>().getrs(n, nrhs, a, ip, b, info);
}

// Conjugate views hold their values unconjugated: LAPACK reads memory.
inline Tensor resolve_if_conj(const Tensor& t) { return is_conj_view(t) ? resolve_conj(t) : t; }

// PyTorch's checks in its order: the matrix shape (at least 2-d, square where asked), then the
// dtype (floating; `low_ok`: half types pass here, as they do in PyTorch's checkFloatingOrComplex).
inline void check_matrix(const Tensor& a, const char* op, bool square, const char* name = "A") {
  EMBER_CHECK(a.dim() >= 2, op, ": The input tensor ", name, " must have at least 2 dimensions.");
  if (!square) return;
  int64_t r = a.sizes()[a.dim() - 2], c = a.sizes()[a.dim() - 1];
  EMBER_CHECK(r == c, op, ": ", name, " must be batches of square matrices, but they are ", r, " by ", c, " matrices");
}

inline void check_floating(const Tensor& a, const char* op, bool low_ok) {
  EMBER_CHECK(is_floating(a.dtype()), op, ": Expected a floating point or complex tensor as input. Got ",
              legacy_name(a.dtype()));
  EMBER_CHECK(low_ok || a.dtype() == ScalarType::Float32 || a.dtype() == ScalarType::Float64, op,
              ": Low precision dtypes not supported. Got ", legacy_name(a.dtype()));
}

// The LAPACK kernel's own dtype dispatch (NotImplementedError for half and integer types).
// PyTorch returns before reaching it when the input is empty.
inline void check_kernel(const Tensor& a, const char* kernel) {
  if (a.numel() > 0 && a.dtype() != ScalarType::Float32 && a.dtype() != ScalarType::Float64)
    dtype_not_implemented(kernel, a.dtype());
}

inline void check_square(const Tensor& a, const char* op, bool low_ok) {
  check_matrix(a, op, true);
  check_floating(a, op, low_ok);
}

inline int64_t batch_count(const Tensor& a) {
  int64_t n = 1;
  for (int64_t i = 0; i + 2 < a.dim(); ++i) n *= a.sizes()[i];
  return n;
}

// A's matrices column-major: a contiguous (..., cols, rows) buffer.
inline Tensor to_colmajor(const Tensor& a) { return clone(transpose(a, -2, -1), MemoryFormat::Contiguous); }
// Back from a column-major buffer to a contiguous row-major result.
inline Tensor from_colmajor(const Tensor& buf) { return contiguous(transpose(buf, -2, -1), MemoryFormat::Contiguous); }

inline DimVector batch_shape(const Tensor& a) {
  DimVector s;
  for (int64_t i = 0; i + 2 < a.dim(); ++i) s.push_back(a.sizes()[i]);
  return s;
}

inline DimVector with_tail(DimVector s, std::initializer_list<int64_t> tail) {
  for (int64_t t : tail) s.push_back(t);
  return s;
}

inline std::string batch_prefix(int64_t nb, int64_t b, bool batched) {
  return batched && nb >= 1 ? str("(Batch element ", b, "): ") : std::string();
}

// getrf's singular pivot (info > 0 at bad.first) under inv, and potrf's failing minor under
// cholesky, as PyTorch words them.
inline void check_invertible(const char* op, int64_t nb, std::pair<int64_t, int> bad, bool batched) {
  if (bad.second > 0)
    fail(ErrorKind::LinAlg, op, ": ", batch_prefix(nb, bad.first, batched), "The diagonal element ", bad.second,
         " is zero, the inversion could not be completed because the input matrix is singular.");
}
inline void check_positive_definite(const char* op, int64_t nb, std::pair<int64_t, int> bad, bool batched) {
  if (bad.second > 0)
    fail(ErrorKind::LinAlg, op, ": ", batch_prefix(nb, bad.first, batched),
         "The factorization could not be completed because the input is not positive-definite (the leading "
         "minor of order ",
         bad.second, " is not positive-definite).");
}

// LAPACK's eigenvalue drivers' (syevd / heevd / geev) "failed to converge" (info > 0 at bad.first), as
// PyTorch words it.
inline void check_eig_converged(const char* op, int64_t nb, std::pair<int64_t, int> bad, bool batched) {
  if (bad.second > 0)
    fail(ErrorKind::LinAlg, op, ": ", batch_prefix(nb, bad.first, batched),
         "The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated "
         "eigenvalues (error code: ",
         bad.second, ").");
}

// gesdd's: info < 0 is LAPACK >= 3.10's answer to a NaN anywhere in A (S left unwritten).
inline void check_svd_converged(const char* op, int64_t nb, std::pair<int64_t, int> bad, bool batched) {
  if (bad.second < 0)
    fail(ErrorKind::LinAlg, op, ": ", batch_prefix(nb, bad.first, batched),
         "The algorithm failed to converge because the input matrix contained non-finite values.");
  if (bad.second > 0)
    fail(ErrorKind::LinAlg, op, ": ", batch_prefix(nb, bad.first, batched),
         "The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated "
         "singular values (error code: ",
         bad.second - 1, ").");
}

// Runs fn(batch index) over every matrix of the batch; returns the first (batch, info != 0).
template <class F>
inline std::pair<int64_t, int> for_batch(int64_t nb, const F& fn) {
  std::vector<int> infos(static_cast<size_t>(nb), 0);
  GilRelease nogil;  // also when the batch is one matrix (parallel_for runs it inline)
  parallel_for(0, nb, 1, [&](int64_t b0, int64_t e0) {
    for (int64_t b = b0; b < e0; ++b) infos[b] = fn(b);
  });
  for (int64_t b = 0; b < nb; ++b)
    if (infos[b] != 0) return {b, infos[b]};
  return {-1, 0};
}

// for_batch for routines with a workspace: make() once per thread's share of the batch (LAPACK's
// workspace query done once by the caller, not per matrix), fn(b, workspace) per matrix.
template <class Make, class F>
inline std::pair<int64_t, int> for_batch_ws(int64_t nb, const Make& make, const F& fn) {
  std::vector<int> infos(static_cast<size_t>(nb), 0);
  GilRelease nogil;
  parallel_for(0, nb, 1, [&](int64_t b0, int64_t e0) {
    auto ws = make();
    for (int64_t b = b0; b < e0; ++b) infos[b] = fn(b, ws);
  });
  for (int64_t b = 0; b < nb; ++b)
    if (infos[b] != 0) return {b, infos[b]};
  return {-1, 0};
}

// The size a workspace query (lw = -1) answered in w[0], real or complex, plus one.
template <class T>
inline size_t queried_size(T w0) {
  return static_cast<size_t>(std::real(w0)) + 1;
}

}  // namespace ember::lapack_util
