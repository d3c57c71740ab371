// LAPACK-style routines on one column-major matrix (trsm: row-major), one set per scalar type:
// a family of the backend table (kernels/backend.h, LinalgKernels::lapack<T>()). Arguments and
// info follow LAPACK's (lw = -1: a workspace query into w[0]); the CPU's are
// kernels/cpu/linalg/lapack.cpp.
#pragma once
#include <complex>
#include <cstdint>

namespace ember {

template <class T>
struct LapackKernels {
  void (*getrf)(int m, int n, T* a, int lda, int* ip, int* info);
  void (*getrs)(int n, int nrhs, const T* a, const int* ip, T* b, int* info);  // "N", lda = ldb = n
  void (*potrf)(int n, T* a, int* info);                                       // lower, lda = n
  void (*syevd)(const char* jobz, const char* uplo, int n, T* a, T* w, T* work, int lw, int* iw, int liw, int* info);
  void (*gesdd)(const char* jobz, int m, int n, T* a, T* s, T* u, int ldu, T* vt, int ldvt, T* w, int lw, int* iw,
                int* info);  // lda = m
  void (*geqrf)(int m, int n, T* a, int lda, T* tau, T* w, int lw, int* info);
  void (*orgqr)(int m, int n, int k, T* a, int lda, const T* tau, T* w, int lw, int* info);
  void (*sytrf)(int n, T* a, int* ip, T* w, int lw, int* info);                // lower, lda = n
  void (*sytrs)(int n, int nrhs, const T* a, const int* ip, T* b, int* info);  // lower, lda = ldb = n
  // X (m x n, row-major) <- op(A)^-1 X (left: A m x m) or X op(A)^-1 (A n x n), A row-major with
  // leading dimension lda: only its upper (else lower) triangle read, not its diagonal when unit.
  void (*trsm)(bool left, bool upper, bool trans, bool unit, int64_t m, int64_t n, const T* a, int64_t lda, T* x);
  // Eigenvalues (and right eigenvectors when jobvr is "V") of a general matrix, lda = ldvr = n:
  // wr + i wi, a complex pair's vectors packed as vr's columns j (real part) and j + 1 (imaginary).
  void (*geev)(const char* jobvr, int n, T* a, T* wr, T* wi, T* vr, T* w, int lw, int* info);
  // The same for a complex<T> matrix (cgeev / zgeev); rwork holds 2n.
  void (*geev_c)(const char* jobvr, int n, std::complex<T>* a, std::complex<T>* w, std::complex<T>* vr,
                 std::complex<T>* work, int lw, T* rwork, int* info);
  // The complex<T> routines (c / z prefix) behind the complex linalg ops (ops/linalg/linalg_complex.cpp);
  // arguments as their real twins'. getrs_c's trans is "N", "T" or "C"; heevd_c's and gesdd_c's
  // rwork / iwork sizes come from the query (lw = -1) as LAPACK documents them.
  void (*getrf_c)(int m, int n, std::complex<T>* a, int lda, int* ip, int* info);
  void (*getrs_c)(const char* trans, int n, int nrhs, const std::complex<T>* a, const int* ip, std::complex<T>* b,
                  int* info);
  void (*potrf_c)(int n, std::complex<T>* a, int* info);  // lower, lda = n
  void (*heevd_c)(const char* jobz, const char* uplo, int n, std::complex<T>* a, T* w, std::complex<T>* work, int lw,
                  T* rwork, int lrw, int* iw, int liw, int* info);
  void (*gesdd_c)(const char* jobz, int m, int n, std::complex<T>* a, T* s, std::complex<T>* u, int ldu,
                  std::complex<T>* vt, int ldvt, std::complex<T>* w, int lw, T* rwork, int* iw, int* info);
  void (*geqrf_c)(int m, int n, std::complex<T>* a, int lda, std::complex<T>* tau, std::complex<T>* w, int lw,
                  int* info);
  void (*ungqr_c)(int m, int n, int k, std::complex<T>* a, int lda, const std::complex<T>* tau, std::complex<T>* w,
                  int lw, int* info);
  // Bunch-Kaufman over complex<T> (lower, lda = ldb = n): complex symmetric A = L D L^T (csytrf /
  // csytrs), or Hermitian A = L D L^H (chetrf / chetrs) when hermitian.
  void (*sytrf_c)(bool hermitian, int n, std::complex<T>* a, int* ip, std::complex<T>* w, int lw, int* info);
  void (*sytrs_c)(bool hermitian, int n, int nrhs, const std::complex<T>* a, const int* ip, std::complex<T>* b,
                  int* info);
  // trsm over complex<T>; conj: op(A) = A^H where trans is set.
  void (*trsm_c)(bool left, bool upper, bool trans, bool conj, bool unit, int64_t m, int64_t n,
                 const std::complex<T>* a, int64_t lda, std::complex<T>* x);
};

}  // namespace ember
