// LAPACK routines from the scipy-openblas32 build the core links (Fortran entry points,
// column-major), and a row-major cblas trsm: the entries of the backend table's
// LinalgKernels::lapack<T>() (kernels/backend.h). Each is one call on one matrix; the op bodies
// (ops/linalg) allocate the buffers and loop over the batch.
#include "kernels/cpu/linalg/lapack.h"

#include <cblas.h>

#include <complex>
#include <cstddef>

extern "C" {
// Hidden Fortran string lengths follow the explicit arguments (size_t each).
void scipy_sgetrf_(const int*, const int*, float*, const int*, int*, int*);
void scipy_dgetrf_(const int*, const int*, double*, const int*, int*, int*);
void scipy_sgetrs_(const char*, const int*, const int*, const float*, const int*, const int*, float*, const int*, int*,
                   size_t);
void scipy_dgetrs_(const char*, const int*, const int*, const double*, const int*, const int*, double*, const int*,
                   int*, size_t);
void scipy_spotrf_(const char*, const int*, float*, const int*, int*, size_t);
void scipy_dpotrf_(const char*, const int*, double*, const int*, int*, size_t);
void scipy_ssyevd_(const char*, const char*, const int*, float*, const int*, float*, float*, const int*, int*,
                   const int*, int*, size_t, size_t);
void scipy_dsyevd_(const char*, const char*, const int*, double*, const int*, double*, double*, const int*, int*,
                   const int*, int*, size_t, size_t);
void scipy_sgesdd_(const char*, const int*, const int*, float*, const int*, float*, float*, const int*, float*,
                   const int*, float*, const int*, int*, int*, size_t);
void scipy_dgesdd_(const char*, const int*, const int*, double*, const int*, double*, double*, const int*, double*,
                   const int*, double*, const int*, int*, int*, size_t);
void scipy_sgeqrf_(const int*, const int*, float*, const int*, float*, float*, const int*, int*);
void scipy_dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
void scipy_sorgqr_(const int*, const int*, const int*, float*, const int*, const float*, float*, const int*, int*);
void scipy_dorgqr_(const int*, const int*, const int*, double*, const int*, const double*, double*, const int*, int*);
void scipy_ssytrf_(const char*, const int*, float*, const int*, int*, float*, const int*, int*, size_t);
void scipy_dsytrf_(const char*, const int*, double*, const int*, int*, double*, const int*, int*, size_t);
void scipy_ssytrs_(const char*, const int*, const int*, const float*, const int*, const int*, float*, const int*, int*,
                   size_t);
void scipy_dsytrs_(const char*, const int*, const int*, const double*, const int*, const int*, double*, const int*,
                   int*, size_t);
void scipy_sgeev_(const char*, const char*, const int*, float*, const int*, float*, float*, float*, const int*, float*,
                  const int*, float*, const int*, int*, size_t, size_t);
void scipy_dgeev_(const char*, const char*, const int*, double*, const int*, double*, double*, double*, const int*,
                  double*, const int*, double*, const int*, int*, size_t, size_t);
void scipy_cgeev_(const char*, const char*, const int*, std::complex<float>*, const int*, std::complex<float>*,
                  std::complex<float>*, const int*, std::complex<float>*, const int*, std::complex<float>*, const int*,
                  float*, int*, size_t, size_t);
void scipy_zgeev_(const char*, const char*, const int*, std::complex<double>*, const int*, std::complex<double>*,
                  std::complex<double>*, const int*, std::complex<double>*, const int*, std::complex<double>*,
                  const int*, double*, int*, size_t, size_t);
void scipy_cgetrf_(const int*, const int*, std::complex<float>*, const int*, int*, int*);
void scipy_cgetrs_(const char*, const int*, const int*, const std::complex<float>*, const int*, const int*,
                   std::complex<float>*, const int*, int*, size_t);
void scipy_cpotrf_(const char*, const int*, std::complex<float>*, const int*, int*, size_t);
void scipy_cheevd_(const char*, const char*, const int*, std::complex<float>*, const int*, float*, std::complex<float>*,
                   const int*, float*, const int*, int*, const int*, int*, size_t, size_t);
void scipy_cgesdd_(const char*, const int*, const int*, std::complex<float>*, const int*, float*, std::complex<float>*,
                   const int*, std::complex<float>*, const int*, std::complex<float>*, const int*, float*, int*, int*,
                   size_t);
void scipy_cgeqrf_(const int*, const int*, std::complex<float>*, const int*, std::complex<float>*, std::complex<float>*,
                   const int*, int*);
void scipy_cungqr_(const int*, const int*, const int*, std::complex<float>*, const int*, const std::complex<float>*,
                   std::complex<float>*, const int*, int*);
void scipy_zgetrf_(const int*, const int*, std::complex<double>*, const int*, int*, int*);
void scipy_zgetrs_(const char*, const int*, const int*, const std::complex<double>*, const int*, const int*,
                   std::complex<double>*, const int*, int*, size_t);
void scipy_zpotrf_(const char*, const int*, std::complex<double>*, const int*, int*, size_t);
void scipy_zheevd_(const char*, const char*, const int*, std::complex<double>*, const int*, double*,
                   std::complex<double>*, const int*, double*, const int*, int*, const int*, int*, size_t, size_t);
void scipy_zgesdd_(const char*, const int*, const int*, std::complex<double>*, const int*, double*,
                   std::complex<double>*, const int*, std::complex<double>*, const int*, std::complex<double>*,
                   const int*, double*, int*, int*, size_t);
void scipy_zgeqrf_(const int*, const int*, std::complex<double>*, const int*, std::complex<double>*,
                   std::complex<double>*, const int*, int*);
void scipy_zungqr_(const int*, const int*, const int*, std::complex<double>*, const int*, const std::complex<double>*,
                   std::complex<double>*, const int*, int*);
// csytrf / chetrf (uplo, n, a, lda, ipiv, work, lwork, info) and csytrs / chetrs (uplo, n, nrhs, a,
// lda, ipiv, b, ldb, info); z* the same over complex<double>.
#define EMBER_LAPACK_BK(prefix, C)                                                                                   \
  void scipy_##prefix##sytrf_(const char*, const int*, C*, const int*, int*, C*, const int*, int*, size_t);          \
  void scipy_##prefix##hetrf_(const char*, const int*, C*, const int*, int*, C*, const int*, int*, size_t);          \
  void scipy_##prefix##sytrs_(const char*, const int*, const int*, const C*, const int*, const int*, C*, const int*, \
                              int*, size_t);                                                                         \
  void scipy_##prefix##hetrs_(const char*, const int*, const int*, const C*, const int*, const int*, C*, const int*, \
                              int*, size_t);
EMBER_LAPACK_BK(c, std::complex<float>)
EMBER_LAPACK_BK(z, std::complex<double>)
#undef EMBER_LAPACK_BK
}

namespace ember::lapack {

namespace {

// Overloads so the table entries are filled once for float and double.
void getrf(int m, int n, float* a, int lda, int* ip, int* info) { scipy_sgetrf_(&m, &n, a, &lda, ip, info); }
void getrf(int m, int n, double* a, int lda, int* ip, int* info) { scipy_dgetrf_(&m, &n, a, &lda, ip, info); }
void getrs(int n, int nrhs, const float* a, const int* ip, float* b, int* info) {
  scipy_sgetrs_("N", &n, &nrhs, a, &n, ip, b, &n, info, 1);
}
void getrs(int n, int nrhs, const double* a, const int* ip, double* b, int* info) {
  scipy_dgetrs_("N", &n, &nrhs, a, &n, ip, b, &n, info, 1);
}
void potrf(int n, float* a, int* info) { scipy_spotrf_("L", &n, a, &n, info, 1); }
void potrf(int n, double* a, int* info) { scipy_dpotrf_("L", &n, a, &n, info, 1); }
void syevd(const char* jobz, const char* uplo, int n, float* a, float* w, float* work, int lw, int* iw, int liw,
           int* info) {
  scipy_ssyevd_(jobz, uplo, &n, a, &n, w, work, &lw, iw, &liw, info, 1, 1);
}
void syevd(const char* jobz, const char* uplo, int n, double* a, double* w, double* work, int lw, int* iw, int liw,
           int* info) {
  scipy_dsyevd_(jobz, uplo, &n, a, &n, w, work, &lw, iw, &liw, info, 1, 1);
}
void gesdd(const char* jobz, int m, int n, float* a, float* s, float* u, int ldu, float* vt, int ldvt, float* w, int lw,
           int* iw, int* info) {
  scipy_sgesdd_(jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, w, &lw, iw, info, 1);
}
void gesdd(const char* jobz, int m, int n, double* a, double* s, double* u, int ldu, double* vt, int ldvt, double* w,
           int lw, int* iw, int* info) {
  scipy_dgesdd_(jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, w, &lw, iw, info, 1);
}
void geqrf(int m, int n, float* a, int lda, float* tau, float* w, int lw, int* info) {
  scipy_sgeqrf_(&m, &n, a, &lda, tau, w, &lw, info);
}
void geqrf(int m, int n, double* a, int lda, double* tau, double* w, int lw, int* info) {
  scipy_dgeqrf_(&m, &n, a, &lda, tau, w, &lw, info);
}
void orgqr(int m, int n, int k, float* a, int lda, const float* tau, float* w, int lw, int* info) {
  scipy_sorgqr_(&m, &n, &k, a, &lda, tau, w, &lw, info);
}
void orgqr(int m, int n, int k, double* a, int lda, const double* tau, double* w, int lw, int* info) {
  scipy_dorgqr_(&m, &n, &k, a, &lda, tau, w, &lw, info);
}

void sytrf(int n, float* a, int* ip, float* w, int lw, int* info) {
  scipy_ssytrf_("L", &n, a, &n, ip, w, &lw, info, 1);
}
void sytrf(int n, double* a, int* ip, double* w, int lw, int* info) {
  scipy_dsytrf_("L", &n, a, &n, ip, w, &lw, info, 1);
}
void sytrs(int n, int nrhs, const float* a, const int* ip, float* b, int* info) {
  scipy_ssytrs_("L", &n, &nrhs, a, &n, ip, b, &n, info, 1);
}
void sytrs(int n, int nrhs, const double* a, const int* ip, double* b, int* info) {
  scipy_dsytrs_("L", &n, &nrhs, a, &n, ip, b, &n, info, 1);
}

// Right eigenvectors only (jobvl "N": vl is never read, its leading dimension 1).
void geev(const char* jobvr, int n, float* a, float* wr, float* wi, float* vr, float* w, int lw, int* info) {
  const int one = 1, ldvr = jobvr[0] == 'V' ? n : 1;
  scipy_sgeev_("N", jobvr, &n, a, &n, wr, wi, nullptr, &one, vr, &ldvr, w, &lw, info, 1, 1);
}
void geev(const char* jobvr, int n, double* a, double* wr, double* wi, double* vr, double* w, int lw, int* info) {
  const int one = 1, ldvr = jobvr[0] == 'V' ? n : 1;
  scipy_dgeev_("N", jobvr, &n, a, &n, wr, wi, nullptr, &one, vr, &ldvr, w, &lw, info, 1, 1);
}
void geev_c(const char* jobvr, int n, std::complex<float>* a, std::complex<float>* w, std::complex<float>* vr,
            std::complex<float>* work, int lw, float* rwork, int* info) {
  const int one = 1, ldvr = jobvr[0] == 'V' ? n : 1;
  scipy_cgeev_("N", jobvr, &n, a, &n, w, nullptr, &one, vr, &ldvr, work, &lw, rwork, info, 1, 1);
}
void geev_c(const char* jobvr, int n, std::complex<double>* a, std::complex<double>* w, std::complex<double>* vr,
            std::complex<double>* work, int lw, double* rwork, int* info) {
  const int one = 1, ldvr = jobvr[0] == 'V' ? n : 1;
  scipy_zgeev_("N", jobvr, &n, a, &n, w, nullptr, &one, vr, &ldvr, work, &lw, rwork, info, 1, 1);
}

// X (m x n, row-major, contiguous) <- op(A)^-1 X (left, A m x m) or X op(A)^-1 (right, A n x n).
void trsm(bool left, bool upper, bool trans, bool unit, int64_t m, int64_t n, const float* a, int64_t lda, float* x) {
  scipy_cblas_strsm(CblasRowMajor, left ? CblasLeft : CblasRight, upper ? CblasUpper : CblasLower,
                    trans ? CblasTrans : CblasNoTrans, unit ? CblasUnit : CblasNonUnit, blasint(m), blasint(n), 1.0f, a,
                    blasint(lda), x, blasint(n));
}
void trsm(bool left, bool upper, bool trans, bool unit, int64_t m, int64_t n, const double* a, int64_t lda, double* x) {
  scipy_cblas_dtrsm(CblasRowMajor, left ? CblasLeft : CblasRight, upper ? CblasUpper : CblasLower,
                    trans ? CblasTrans : CblasNoTrans, unit ? CblasUnit : CblasNonUnit, blasint(m), blasint(n), 1.0, a,
                    blasint(lda), x, blasint(n));
}

void getrf_c(int m, int n, std::complex<float>* a, int lda, int* ip, int* info) {
  scipy_cgetrf_(&m, &n, a, &lda, ip, info);
}
void getrs_c(const char* trans, int n, int nrhs, const std::complex<float>* a, const int* ip, std::complex<float>* b,
             int* info) {
  scipy_cgetrs_(trans, &n, &nrhs, a, &n, ip, b, &n, info, 1);
}
void potrf_c(int n, std::complex<float>* a, int* info) { scipy_cpotrf_("L", &n, a, &n, info, 1); }
void heevd_c(const char* jobz, const char* uplo, int n, std::complex<float>* a, float* w, std::complex<float>* work,
             int lw, float* rwork, int lrw, int* iw, int liw, int* info) {
  scipy_cheevd_(jobz, uplo, &n, a, &n, w, work, &lw, rwork, &lrw, iw, &liw, info, 1, 1);
}
void gesdd_c(const char* jobz, int m, int n, std::complex<float>* a, float* s, std::complex<float>* u, int ldu,
             std::complex<float>* vt, int ldvt, std::complex<float>* w, int lw, float* rwork, int* iw, int* info) {
  scipy_cgesdd_(jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, w, &lw, rwork, iw, info, 1);
}
void geqrf_c(int m, int n, std::complex<float>* a, int lda, std::complex<float>* tau, std::complex<float>* w, int lw,
             int* info) {
  scipy_cgeqrf_(&m, &n, a, &lda, tau, w, &lw, info);
}
void ungqr_c(int m, int n, int k, std::complex<float>* a, int lda, const std::complex<float>* tau,
             std::complex<float>* w, int lw, int* info) {
  scipy_cungqr_(&m, &n, &k, a, &lda, tau, w, &lw, info);
}
void trsm_c(bool left, bool upper, bool trans, bool conj, bool unit, int64_t m, int64_t n, const std::complex<float>* a,
            int64_t lda, std::complex<float>* x) {
  const std::complex<float> one(1);
  scipy_cblas_ctrsm(CblasRowMajor, left ? CblasLeft : CblasRight, upper ? CblasUpper : CblasLower,
                    !trans ? CblasNoTrans
                    : conj ? CblasConjTrans
                           : CblasTrans,
                    unit ? CblasUnit : CblasNonUnit, blasint(m), blasint(n), &one, a, blasint(lda), x, blasint(n));
}

void getrf_c(int m, int n, std::complex<double>* a, int lda, int* ip, int* info) {
  scipy_zgetrf_(&m, &n, a, &lda, ip, info);
}
void getrs_c(const char* trans, int n, int nrhs, const std::complex<double>* a, const int* ip, std::complex<double>* b,
             int* info) {
  scipy_zgetrs_(trans, &n, &nrhs, a, &n, ip, b, &n, info, 1);
}
void potrf_c(int n, std::complex<double>* a, int* info) { scipy_zpotrf_("L", &n, a, &n, info, 1); }
void heevd_c(const char* jobz, const char* uplo, int n, std::complex<double>* a, double* w, std::complex<double>* work,
             int lw, double* rwork, int lrw, int* iw, int liw, int* info) {
  scipy_zheevd_(jobz, uplo, &n, a, &n, w, work, &lw, rwork, &lrw, iw, &liw, info, 1, 1);
}
void gesdd_c(const char* jobz, int m, int n, std::complex<double>* a, double* s, std::complex<double>* u, int ldu,
             std::complex<double>* vt, int ldvt, std::complex<double>* w, int lw, double* rwork, int* iw, int* info) {
  scipy_zgesdd_(jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, w, &lw, rwork, iw, info, 1);
}
void geqrf_c(int m, int n, std::complex<double>* a, int lda, std::complex<double>* tau, std::complex<double>* w, int lw,
             int* info) {
  scipy_zgeqrf_(&m, &n, a, &lda, tau, w, &lw, info);
}
void ungqr_c(int m, int n, int k, std::complex<double>* a, int lda, const std::complex<double>* tau,
             std::complex<double>* w, int lw, int* info) {
  scipy_zungqr_(&m, &n, &k, a, &lda, tau, w, &lw, info);
}
void trsm_c(bool left, bool upper, bool trans, bool conj, bool unit, int64_t m, int64_t n,
            const std::complex<double>* a, int64_t lda, std::complex<double>* x) {
  const std::complex<double> one(1);
  scipy_cblas_ztrsm(CblasRowMajor, left ? CblasLeft : CblasRight, upper ? CblasUpper : CblasLower,
                    !trans ? CblasNoTrans
                    : conj ? CblasConjTrans
                           : CblasTrans,
                    unit ? CblasUnit : CblasNonUnit, blasint(m), blasint(n), &one, a, blasint(lda), x, blasint(n));
}

void sytrf_c(bool hermitian, int n, std::complex<float>* a, int* ip, std::complex<float>* w, int lw, int* info) {
  (hermitian ? scipy_chetrf_ : scipy_csytrf_)("L", &n, a, &n, ip, w, &lw, info, 1);
}
void sytrf_c(bool hermitian, int n, std::complex<double>* a, int* ip, std::complex<double>* w, int lw, int* info) {
  (hermitian ? scipy_zhetrf_ : scipy_zsytrf_)("L", &n, a, &n, ip, w, &lw, info, 1);
}
void sytrs_c(bool hermitian, int n, int nrhs, const std::complex<float>* a, const int* ip, std::complex<float>* b,
             int* info) {
  (hermitian ? scipy_chetrs_ : scipy_csytrs_)("L", &n, &nrhs, a, &n, ip, b, &n, info, 1);
}
void sytrs_c(bool hermitian, int n, int nrhs, const std::complex<double>* a, const int* ip, std::complex<double>* b,
             int* info) {
  (hermitian ? scipy_zhetrs_ : scipy_zsytrs_)("L", &n, &nrhs, a, &n, ip, b, &n, info, 1);
}

template <class T>
LapackKernels<T> make() {
  // static_cast picks the T overload of each routine
  LapackKernels<T> k{};
  k.getrf = static_cast<decltype(k.getrf)>(getrf);
  k.getrs = static_cast<decltype(k.getrs)>(getrs);
  k.potrf = static_cast<decltype(k.potrf)>(potrf);
  k.syevd = static_cast<decltype(k.syevd)>(syevd);
  k.gesdd = static_cast<decltype(k.gesdd)>(gesdd);
  k.geqrf = static_cast<decltype(k.geqrf)>(geqrf);
  k.orgqr = static_cast<decltype(k.orgqr)>(orgqr);
  k.sytrf = static_cast<decltype(k.sytrf)>(sytrf);
  k.sytrs = static_cast<decltype(k.sytrs)>(sytrs);
  k.trsm = static_cast<decltype(k.trsm)>(trsm);
  k.geev = static_cast<decltype(k.geev)>(geev);
  k.geev_c = static_cast<decltype(k.geev_c)>(geev_c);
  k.getrf_c = static_cast<decltype(k.getrf_c)>(getrf_c);
  k.getrs_c = static_cast<decltype(k.getrs_c)>(getrs_c);
  k.potrf_c = static_cast<decltype(k.potrf_c)>(potrf_c);
  k.heevd_c = static_cast<decltype(k.heevd_c)>(heevd_c);
  k.gesdd_c = static_cast<decltype(k.gesdd_c)>(gesdd_c);
  k.geqrf_c = static_cast<decltype(k.geqrf_c)>(geqrf_c);
  k.ungqr_c = static_cast<decltype(k.ungqr_c)>(ungqr_c);
  k.sytrf_c = static_cast<decltype(k.sytrf_c)>(sytrf_c);
  k.sytrs_c = static_cast<decltype(k.sytrs_c)>(sytrs_c);
  k.trsm_c = static_cast<decltype(k.trsm_c)>(trsm_c);
  return k;
}

}  // namespace

LapackKernels<float> cpu_lapack_f() { return make<float>(); }
LapackKernels<double> cpu_lapack_d() { return make<double>(); }

}  // namespace ember::lapack
