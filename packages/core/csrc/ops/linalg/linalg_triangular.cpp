// linalg.solve_triangular: one trsm (the backend's LinalgKernels::lapack<T>()) per matrix of the batch. trsm reads only
// A's `upper` (or lower) triangle, and not its diagonal when unitriangular, and a zero on the diagonal gives IEEE inf /
// NaN as PyTorch's trsm-based kernel does. ember/linalg/_composed.py checks the arguments in PyTorch's order, converts
// B to A's dtype and broadcasts the batch.
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"
#include "ops/linalg/host_lapack.h"
#include "ops/linalg/lapack_util.h"

namespace ember {

using namespace lapack_util;  // NOLINT(build/namespaces)

// A (..., k, k) and B (..., m, n) of one batch shape and dtype (float32 / float64); k is m when
// left (A X = B), n otherwise (X A = B).
Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  if (host_lapack::on_device(A) || host_lapack::on_device(B))
    return host_lapack::back(
        linalg_solve_triangular(host_lapack::host(A), host_lapack::host(B), upper, left, unitriangular), A.device());
  EMBER_CHECK(A.dtype() == B.dtype() &&
                  (A.dtype() == ScalarType::Float32 || A.dtype() == ScalarType::Float64 || is_complex(A.dtype())),
              "linalg.solve_triangular: expected float32, float64 or complex A and B of one dtype");
  int64_t k = A.sizes()[A.dim() - 1], m = B.sizes()[B.dim() - 2], n = B.sizes()[B.dim() - 1];
  int64_t nb = batch_count(B);
  EMBER_CHECK(batch_count(A) == nb && k == (left ? m : n), "linalg.solve_triangular: A and B do not match");
  // X comes out column-major, with PyTorch's strides (its LAPACK layout). From k = 128 on it is solved
  // in place as Xt = X^T row-major, X^T A^T = B^T (left) or A^T X^T = B^T (256 x 256 with a 256 x 4
  // B: 16 us, against 21 for B's row-major layout and a transposing copy); below, OpenBLAS's
  // per-call cost favours B's own layout (64 32 x 32 systems: 50 us against 56) and X is transposed
  // after. A column-major A (A^T row-major: lu_factor's LU in PyTorch, a transposed view) is read
  // in place as A^T, its triangle the other one.
  const Tensor Ar = resolve_if_conj(A);
  const bool a_colmajor = !Ar.is_contiguous() && transpose(Ar, -2, -1).is_contiguous();
  const Tensor a = a_colmajor ? transpose(Ar, -2, -1) : contiguous(Ar, MemoryFormat::Contiguous);
  const bool a_upper = a_colmajor ? !upper : upper, solve_transposed = k >= 128;
  // the equation for X^T needs A^T (a transposed unless it is A^T already), the one for X needs A
  const bool a_trans = solve_transposed ? !a_colmajor : a_colmajor;
  const Tensor Br = resolve_if_conj(B);
  Tensor Xt = solve_transposed ? to_colmajor(Br) : clone(Br, MemoryFormat::Contiguous);
  const bool side = solve_transposed ? !left : left;
  const int64_t rows = solve_transposed ? n : m, cols = solve_transposed ? m : n;
  if (m > 0 && n > 0 && nb > 0) {
    dispatch_fdc(A.dtype(), [&](auto z) {
      using T = decltype(z);
      const T* pa = a.data<T>();
      T* px = Xt.data<T>();
      for_batch(nb, [&](int64_t b) {
        if constexpr (is_complex_v<T>)
          backend(A).linalg.lapack<typename T::value_type>().trsm_c(side, a_upper, a_trans, false, unitriangular, rows,
                                                                    cols, pa + b * k * k, k, px + b * m * n);
        else
          backend(A).linalg.lapack<T>().trsm(side, a_upper, a_trans, unitriangular, rows, cols, pa + b * k * k, k,
                                             px + b * m * n);
        return 0;
      });
    });
  }
  if (!solve_transposed) Xt = to_colmajor(Xt);
  return transpose(Xt, -2, -1);
}

}  // namespace ember
