#include "kernels/cpu/gemm/int_gemm.h"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/parallel.h"

namespace ember {

namespace {

// Two's-complement wrapping sum and product: computed in the unsigned type of the same width.
template <class T>
inline T wrap_add(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <class T>
inline T wrap_mul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;  // no int promotion
  return static_cast<T>(static_cast<U>(static_cast<W>(static_cast<U>(a)) * static_cast<W>(static_cast<U>(b))));
}

template <class T>
void gemm_rows(int64_t M, int64_t N, int64_t K, T alpha, T beta, bool use_beta, const T* pa, const T* pb, T* pc) {
  GilRelease nogil;
  parallel_for(0, M, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(N * K, 1)), [&](int64_t b0, int64_t e0) {
    std::vector<T> row(static_cast<size_t>(N));
    for (int64_t i = b0; i < e0; ++i) {
      for (int64_t j = 0; j < N; ++j) row[j] = T(0);
      for (int64_t k = 0; k < K; ++k) {
        const T av = pa[i * K + k];
        for (int64_t j = 0; j < N; ++j) row[j] = wrap_add(row[j], wrap_mul(av, pb[k * N + j]));
      }
      for (int64_t j = 0; j < N; ++j) {
        const T prev = use_beta ? wrap_mul(pc[i * N + j], beta) : T(0);
        pc[i * N + j] = wrap_add(prev, wrap_mul(alpha, row[j]));
      }
    }
  });
}

}  // namespace

void int_gemm(ScalarType dt, int64_t M, int64_t N, int64_t K, double alpha, double beta, const void* A, const void* B,
              void* C) {
  EMBER_DISPATCH_INT(dt, "addmm_impl_cpu_", [&] {
    gemm_rows<scalar_t>(M, N, K, static_cast<scalar_t>(alpha), static_cast<scalar_t>(beta), beta != 0,
                        static_cast<const scalar_t*>(A), static_cast<const scalar_t*>(B), static_cast<scalar_t*>(C));
  });
}

}  // namespace ember
