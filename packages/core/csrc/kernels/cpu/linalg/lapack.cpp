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
  return k;
}

}  // namespace

LapackKernels<float> cpu_lapack_f() { return make<float>(); }
LapackKernels<double> cpu_lapack_d() { return make<double>(); }

}  // namespace ember::lapack
