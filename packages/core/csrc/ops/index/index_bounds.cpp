// The index ops' device-aware helpers (ops/index/index_common.h): an operand moved to the op's
// device, the first index out of range found where the index lives (on a GPU, by the
// backend's range check there, one position and one value coming back), take / put_'s check.
#include "kernels/backend.h"
#include "kernels/device_transfer.h"
#include "ops.h"
#include "ops/core/internal.h"
#include "ops/index/index_common.h"

namespace ember::index_detail {

Tensor to_device_of(const Tensor& t, const Tensor& like) {
  return t.device() == like.device() ? t : to_device(t, like.device());
}

FirstBad first_outside(const Tensor& idx, int64_t size, bool negative_ok) {
  const int64_t n = idx.numel();
  FirstBad r{n, 0};
  if (n == 0) return r;
  const int64_t* p = idx.data<int64_t>();
  if (idx.device().is_cpu()) {
    if (!negative_ok) {
      r.pos = backend(idx).index.first_out_of_range(p, n, size);
    } else {
      for (r.pos = 0; r.pos < n && p[r.pos] >= -size && p[r.pos] < size;) ++r.pos;
    }
    if (r.pos < n) r.value = p[r.pos];
    return r;
  }
  // [-size, size) is [0, 2 size) shifted by size (an index near the int64 limit wraps out of it)
  const Tensor probe = negative_ok ? add(idx, wrap_scalar(Scalar(size)), Scalar(int64_t(1))) : idx;
  r.pos = backend(idx).index.first_out_of_range(probe.data<int64_t>(), n, negative_ok ? 2 * size : size);
  if (r.pos < n) device_to_host(&r.value, p + r.pos, idx.device().index, sizeof(int64_t));
  return r;
}

void check_take_range(const Tensor& idx, int64_t n) {
  if (!idx.device().is_cpu()) return;
  const int64_t* ip = idx.data<int64_t>();
  for (int64_t i = 0, m = idx.numel(); i < m; ++i)
    EMBER_CHECK_INDEX(ip[i] >= -n && ip[i] < n, "out of range: tried to access index ", ip[i], " on a tensor of ", n,
                      " elements.");
}

}  // namespace ember::index_detail
