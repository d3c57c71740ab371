// Arg-reductions (argmax / argmin along the last dim) and scans (cumsum / cumprod), compiled
// once per CPU capability; reached through the backend table (kernels/backend.h).
#include <algorithm>
#include <complex>
#include <limits>
#include <type_traits>

#include "core/parallel.h"
#include "kernels/backend.h"
#include "kernels/cpu/loops.h"

namespace ember::cpu::EMBER_CAP {

// `in` is contiguous [outer, n]; values (may be undefined) and indices are [outer].
void arg_reduce_kernel(const Tensor& in, const Tensor& values, const Tensor& indices, bool is_max) {
  int64_t n = in.dim() == 0 ? 1 : in.sizes()[in.dim() - 1];
  int64_t outer = n == 0 ? 0 : in.numel() / n;
  EMBER_DISPATCH_ALL(in.dtype(), is_max ? "argmax_cpu" : "argmin_cpu", [&] {
    using M = opmath_t<scalar_t>;
    const scalar_t* x = in.data<scalar_t>();
    int64_t* idx = indices.data<int64_t>();
    scalar_t* val = values.defined() ? values.data<scalar_t>() : nullptr;
    parallel_for(0, outer, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n, 1)), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const scalar_t* row = x + r * n;
        M best = static_cast<M>(row[0]);
        int64_t bi = 0;
        for (int64_t k = 1; k < n && best == best; ++k) {
          M v = static_cast<M>(row[k]);
          // First occurrence wins ties; a NaN wins over everything and stops the scan.
          if (v != v || (is_max ? v > best : v < best)) {
            best = v;
            bi = k;
          }
        }
        idx[r] = bi;
        if (val) val[r] = row[bi];
      }
    });
  });
}

// `in` and `out` are contiguous with the scanned dim last, same dtype.
// complex scans: aten's acc_type carries complex64 in complex128; products by the textbook formula
template <class C>
void complex_scan(const Tensor& in, const Tensor& out, int64_t n, int64_t outer, bool is_prod) {
  using M = std::complex<double>;
  const C* x = in.data<C>();
  C* y = out.data<C>();
  parallel_for(0, outer, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n, 1)), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      M acc = is_prod ? M(1) : M(0);
      for (int64_t k = 0; k < n; ++k) {
        const M v(x[r * n + k]);
        acc = is_prod ? M(acc.real() * v.real() - acc.imag() * v.imag(), acc.real() * v.imag() + acc.imag() * v.real())
                      : acc + v;
        y[r * n + k] = C(acc);
      }
    }
  });
}

void cumulative_kernel(const Tensor& in, const Tensor& out, int64_t, bool is_prod) {
  int64_t n = in.dim() == 0 ? 1 : in.sizes()[in.dim() - 1];
  int64_t outer = n == 0 ? 0 : in.numel() / n;
  if (in.dtype() == ScalarType::ComplexFloat) return complex_scan<std::complex<float>>(in, out, n, outer, is_prod);
  if (in.dtype() == ScalarType::ComplexDouble) return complex_scan<std::complex<double>>(in, out, n, outer, is_prod);
  EMBER_DISPATCH_NO_BOOL(in.dtype(), is_prod ? "cumprod_cpu" : "cumsum_cpu", [&] {
    // aten's CPU scans carry at::acc_type<T, /*is_cuda=*/false>: float32 runs in double (the
    // running sum keeps the small terms a float32 one would drop), half types in float.
    using M = std::conditional_t<std::is_same_v<scalar_t, float>, double, opmath_t<scalar_t>>;
    const scalar_t* x = in.data<scalar_t>();
    scalar_t* y = out.data<scalar_t>();
    parallel_for(0, outer, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n, 1)), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        M acc = is_prod ? M(1) : M(0);
        for (int64_t k = 0; k < n; ++k) {
          acc = is_prod ? acc * static_cast<M>(x[r * n + k]) : acc + static_cast<M>(x[r * n + k]);
          y[r * n + k] = static_cast<scalar_t>(acc);
        }
      }
    });
  });
}

}  // namespace ember::cpu::EMBER_CAP
