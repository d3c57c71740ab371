// Advanced indexing's element moves (kernels/backend.h, IndexKernels): the per-position offsets
// over the indexed dims, the gather of self[indices] and the serial put of index_put_.
#include <algorithm>
#include <atomic>
#include <cstring>

#include "core/parallel.h"
#include "kernels/cpu/index/index_kernels.h"

namespace ember::indexing {

// Negative indices wrap; a bad one is only flagged here (the op finds and names the first).
bool add_offsets(const int64_t* ip, int64_t n, int64_t size, int64_t stride, int64_t* off, int64_t dim, bool report) {
  (void)dim, (void)report;  // the op names the first bad index itself
  std::atomic<bool> bad{false};
  parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
    bool local_bad = false;
    for (int64_t i = b; i < e; ++i) {
      int64_t v = ip[i];
      local_bad |= v < -size || v >= size;
      off[i] += (v < 0 ? v + size : v) * stride;
    }
    if (local_bad) bad = true;
  });
  return !bad;
}

void advanced_gather(const Tensor& self, const Tensor& out, const AdvancedRows& a) {
  const char* sp = self.raw();
  char* op = out.raw();
  const int64_t* off = a.offsets;
  const int64_t *rs = a.rest_src, *ro = a.rest_out;
  const int64_t rn = a.rn, bs = a.b_stride;
  const bool dense = a.dense;
  by_itemsize(self.itemsize(), [&](auto tag) {
    using U = decltype(tag);
    const U* x = reinterpret_cast<const U*>(sp);
    U* o = reinterpret_cast<U*>(op);
    parallel_for(0, a.nb, std::max<int64_t>(1, kGrainSize / rn), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        if (rn == 1) o[i * bs] = x[off[i]];
        else if (dense) std::memcpy(o + i * bs, x + off[i], rn * sizeof(U));
        else
          for (int64_t r = 0; r < rn; ++r) o[i * bs + ro[r]] = x[off[i] + rs[r]];
      }
    });
  });
}

void advanced_put(const Tensor& self, const Tensor& values, const AdvancedRows& a, bool accumulate) {
  const int64_t* off = a.offsets;
  const int64_t *rs = a.rest_src, *ro = a.rest_out;
  const int64_t rn = a.rn, bs = a.b_stride, nb = a.nb;
  GilRelease nogil;
  // Serial over B: duplicate indices write (or accumulate into) the same element.
  auto put = [&](auto tag) {
    using scalar_t = decltype(tag);
    using acc = opmath_t<scalar_t>;
    scalar_t* x = self.data<scalar_t>();
    const scalar_t* vp = values.data<scalar_t>();
    for (int64_t i = 0; i < nb; ++i)
      for (int64_t r = 0; r < rn; ++r) {
        scalar_t& d = x[off[i] + rs[r]];
        scalar_t s = vp[i * bs + ro[r]];
        d = accumulate ? static_cast<scalar_t>(acc(d) + acc(s)) : s;
      }
  };
  // complex32 too (aten's index_put has it: a sum in complex<float>, rounded once)
  if (self.dtype() == ScalarType::ComplexHalf) put(ComplexHalf{});
  else EMBER_DISPATCH_ALL_AND_COMPLEX(self.dtype(), "index_put_", [&] { put(scalar_t{}); });
}

}  // namespace ember::indexing
