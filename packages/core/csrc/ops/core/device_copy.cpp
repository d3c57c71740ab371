// Copies across devices (copy_into's branch when the two tensors live on different devices) and
// Tensor.to(device). One side is made dense, in the destination's dtype and shape, on its own
// device; the bytes then move in one transfer (kernels/device_transfer.h); a strided destination
// takes them through a dense temporary on its device.
#include "iter/elementwise_iter.h"
#include "kernels/device_transfer.h"
#include "ops.h"
#include "ops/core/internal.h"

namespace ember {

void copy_across_devices(const Tensor& dst, const Tensor& src) {
  check_device_available(src.device());
  check_device_available(dst.device());
  Tensor s = src;
  if (s.dtype() != dst.dtype() || !s.sizes().equals(dst.sizes()) || !s.is_contiguous())
    s = contiguous(to_dtype(expand(src, dst.sizes()), dst.dtype()), MemoryFormat::Contiguous);
  Tensor d = dst.is_contiguous() ? dst : empty(dst.sizes(), dst.dtype(), dst.device());
  const size_t nbytes = static_cast<size_t>(d.numel()) * d.itemsize();
  if (nbytes > 0) {
    if (s.device().is_cpu()) device_from_host(d.raw(), d.device().index, s.raw(), nbytes);
    else if (d.device().is_cpu()) device_to_host(d.raw(), s.raw(), s.device().index, nbytes);
    else device_to_device(d.raw(), d.device().index, s.raw(), s.device().index, nbytes);
  }
  if (!d.same(dst)) copy_into(dst, d);
}

Tensor to_device(const Tensor& x, Device device) {
  Tensor r = empty(x.sizes(), x.dtype(), device);
  copy_into(r, x);
  return r;
}

}  // namespace ember
