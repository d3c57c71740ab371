// embedding's row gather and backward scatter-add, one_hot's ones (kernels/backend.h,
// EmbeddingKernels); indices are checked by the op bodies before these run.
#include "kernels/cpu/embedding/embedding_rows.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/half.h"
#include "core/parallel.h"

namespace ember::embedding {

void gather_rows(const char* weight, const int64_t* idx, int64_t n, int64_t rows, int64_t dim, size_t row_bytes,
                 char* out) {
  (void)rows;  // the op has checked the indices
  parallel_for(0, n, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(dim, 1)), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) std::memcpy(out + i * row_bytes, weight + idx[i] * row_bytes, row_bytes);
  });
}

void backward(ScalarType dt, const void* grad, const int64_t* idx, int64_t n, int64_t dim, int64_t num_weights,
              int64_t padding_idx, bool scale_grad_by_freq, void* out) {
  std::vector<int64_t> counts;
  if (scale_grad_by_freq) {
    counts.assign(static_cast<size_t>(num_weights), 0);
    for (int64_t i = 0; i < n; ++i) ++counts[idx[i]];
  }
  EMBER_DISPATCH_FLOAT(dt, "embedding_backward", [&] {
    using A = opmath_t<scalar_t>;
    const scalar_t* gp = static_cast<const scalar_t*>(grad);
    scalar_t* op = static_cast<scalar_t*>(out);
    // Each thread owns a range of table rows and scans every index: no write races.
    parallel_for(0, num_weights, std::max<int64_t>(1, num_weights / 64 + 1), [&](int64_t r0, int64_t r1) {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t r = idx[i];
        if (r < r0 || r >= r1 || r == padding_idx) continue;
        const A s = scale_grad_by_freq ? A(1) / static_cast<A>(counts[r]) : A(1);
        const scalar_t* gi = gp + i * dim;
        scalar_t* orow = op + r * dim;
        for (int64_t k = 0; k < dim; ++k) orow[k] = scalar_t(static_cast<A>(orow[k]) + static_cast<A>(gi[k]) * s);
      }
    });
  });
}

void one_hot(const int64_t* idx, int64_t n, int64_t classes, int64_t* out) {
  parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) out[i * classes + idx[i]] = 1;
  });
}

}  // namespace ember::embedding
