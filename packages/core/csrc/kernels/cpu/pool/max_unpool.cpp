// Scatters of values into planes at per-plane positions (kernels/backend.h, PoolKernels::
// unpool_scatter / unpool_scatter_add): max_unpool's forward and max pooling's backward when no
// graph of it is needed (op bodies: ops/nn/nn_pool_common.cpp).
#include "kernels/cpu/pool/max_unpool.h"

#include <algorithm>

#include "core/half.h"
#include "core/parallel.h"

namespace ember::pool {

namespace {

// Grain (planes per task) so a task holds about kGrainSize elements.
int64_t plane_grain(int64_t plane_elems) {
  return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(plane_elems, 1));
}

}  // namespace

void unpool_scatter(ScalarType dt, const char* name, const void* src, const int64_t* idx, int64_t planes, int64_t m,
                    void* out, int64_t plane_size) {
  EMBER_DISPATCH_ALL(dt, name, [&] {
    const scalar_t* sp = static_cast<const scalar_t*>(src);
    scalar_t* op = static_cast<scalar_t*>(out);
    GilRelease nogil;  // also when parallel_for runs inline (one thread, small input)
    parallel_for(0, planes, plane_grain(m + plane_size), [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        const scalar_t* sb = sp + b * m;
        const int64_t* ib = idx + b * m;
        scalar_t* ob = op + b * plane_size;
        for (int64_t i = 0; i < m; ++i) ob[ib[i]] = sb[i];
      }
    });
  });
}

void unpool_scatter_add(ScalarType dt, const void* src, const int64_t* idx, int64_t planes, int64_t m, void* out,
                        int64_t plane_size) {
  EMBER_DISPATCH_FLOAT(dt, "max_pool_backward", [&] {
    const scalar_t* sp = static_cast<const scalar_t*>(src);
    scalar_t* op = static_cast<scalar_t*>(out);
    GilRelease nogil;
    parallel_for(0, planes, plane_grain(m + plane_size), [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        const scalar_t* sb = sp + b * m;
        const int64_t* ib = idx + b * m;
        scalar_t* ob = op + b * plane_size;
        for (int64_t i = 0; i < m; ++i)
          ob[ib[i]] = static_cast<scalar_t>(static_cast<opmath_t<scalar_t>>(ob[ib[i]]) + sb[i]);
      }
    });
  });
}

}  // namespace ember::pool
