// The complex64 / complex128 forms of the LAPACK-backed linalg ops (linalg_lapack.cpp routes a
// complex input here after its shape checks): LAPACK's c / z routines through the backend table.
#pragma once
#include <string_view>
#include <tuple>

#include "core/tensor.h"

namespace ember::complex_linalg {

Tensor inv(const Tensor& A);
// det and/or (sign, log|det|: a real tensor) of every matrix, from its LU.
void lu_det(const Tensor& A, Tensor* det, Tensor* sign, Tensor* logabs);
Tensor cholesky(const Tensor& A, bool upper);
std::tuple<Tensor, Tensor> eigh(const Tensor& A, const char* uplo, bool vectors);  // vectors: heevd's jobz
// S real; U / Vh only when want_uv (full or reduced).
void svd(const Tensor& A, const char* op, bool want_uv, bool full, Tensor* U, Tensor* S, Tensor* Vh);
std::tuple<Tensor, Tensor> qr(const Tensor& A, bool complete, bool want_q);

}  // namespace ember::complex_linalg
