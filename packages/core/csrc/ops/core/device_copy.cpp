// Copies across devices (copy_into's branch when the two tensors live on different devices) and
// Tensor.to(device), which keeps a dense layout (channels-last) as aten's _to_copy does. Two dense
// tensors of one layout move as they are; otherwise one side is made contiguous, in the
// destination's dtype and shape, on its own device. The bytes move in one transfer
// (kernels/device_transfer.h); a strided destination takes them through a dense temporary on its
// device. Pinned host tensors (pin_memory) live here too: their copies may be queued on the
// stream (non_blocking).
#include <algorithm>

#include "core/size_math.h"
#include "core/storage.h"
#include "iter/elementwise_iter.h"
#include "kernels/device_transfer.h"
#include "ops.h"
#include "ops/core/internal.h"

namespace ember {

void copy_across_devices(const Tensor& dst, const Tensor& src, bool non_blocking) {
  // a meta tensor has no bytes to give; copying into one moves nothing (src must still broadcast)
  if (src.device().is_meta()) fail(ErrorKind::NotImplemented, "Cannot copy out of meta tensor; no data!");
  if (dst.device().is_meta()) return check_copy_broadcasts(dst, src);
  check_device_available(src.device());
  check_device_available(dst.device());
  Tensor s = src;
  // two dense tensors of one layout (channels-last, say) move as they are, else as contiguous ones
  const bool same_dense = s.dtype() == dst.dtype() && s.sizes().equals(dst.sizes()) &&
                          s.strides().equals(dst.strides()) && non_overlapping_and_dense(s);
  if (!same_dense && (s.dtype() != dst.dtype() || !s.sizes().equals(dst.sizes()) || !s.is_contiguous()))
    s = contiguous(to_dtype(expand(src, dst.sizes()), dst.dtype()), MemoryFormat::Contiguous);
  Tensor d = same_dense || dst.is_contiguous() ? dst : empty(dst.sizes(), dst.dtype(), dst.device());
  const size_t nbytes = static_cast<size_t>(d.numel()) * d.itemsize();
  if (nbytes > 0) {
    // queued without waiting only where the host side is pinned (a temporary made above never is)
    const void* host = s.device().is_cpu() ? s.raw() : d.device().is_cpu() ? d.raw() : nullptr;
    const bool async = non_blocking && host != nullptr && is_pinned(host);
    if (s.device().is_cpu()) device_from_host(d.raw(), d.device().index, s.raw(), nbytes, async);
    else if (d.device().is_cpu()) device_to_host(d.raw(), s.raw(), s.device().index, nbytes, async);
    else device_to_device(d.raw(), d.device().index, s.raw(), s.device().index, nbytes);
  }
  if (!d.same(dst)) copy_into(dst, d);
}

Tensor to_device(const Tensor& x, Device device, bool non_blocking) {
  if (!non_blocking || x.device() == device) {
    Tensor r = empty_with_layout_of(x, x.dtype(), std::nullopt, device);  // aten's _to_copy: the layout kept
    copy_into(r, x);
    return r;
  }
  // aten's _to_copy: a non_blocking move to the host lands in pinned memory, so it can be queued
  // (in the layout a plain move gives: its strides worked out on the meta device)
  Tensor r = device.is_cpu()
                 ? pinned_empty(x.sizes(), x.dtype(),
                                empty_with_layout_of(x, x.dtype(), std::nullopt, Device{DeviceType::Meta}).strides())
                 : empty_with_layout_of(x, x.dtype(), std::nullopt, device);
  copy_across_devices(r, x, true);
  return r;
}

Tensor pinned_empty(IntArrayRef sizes, ScalarType dtype, std::optional<IntArrayRef> strides) {
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  auto storage = make_ref<StorageImpl>();
  storage->nbytes = strides ? strided_nbytes(sizes, *strides, 0, element_size(dtype))
                            : static_cast<size_t>(numel) * element_size(dtype);
  storage->data = pinned_alloc(std::max<size_t>(storage->nbytes, 1));
  storage->device = cpu_device();
  storage->deleter = [](void* p, void*, size_t) { pinned_free(p); };
  storage->resizable = false;  // growing would move it out of pinned memory
  auto impl = make_ref<TensorImpl>();
  impl->storage = storage;
  impl->dtype = dtype;
  impl->sizes = to_vec(sizes);
  impl->strides = strides ? to_vec(*strides) : contiguous_strides(sizes);
  impl->refresh();
  return Tensor(std::move(impl));
}

// No two elements of x share memory: its dims (longer than 1) by stride, each stepping past the
// farthest element the ones inside it reach.
static bool non_overlapping(const Tensor& x) {
  DimVector dims;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (x.sizes()[d] > 1) dims.push_back(d);
  std::sort(dims.begin(), dims.end(), [&](int64_t a, int64_t b) { return x.strides()[a] < x.strides()[b]; });
  int64_t reach = 0;  // the farthest offset of the dims so far
  for (int64_t d : dims) {
    if (x.strides()[d] <= reach) return false;
    reach += x.strides()[d] * (x.sizes()[d] - 1);
  }
  return true;
}

Tensor pin_memory(const Tensor& x) {
  EMBER_CHECK(!x.device().is_meta(), "cannot pin 'Meta", legacy_name(x.dtype()),
              "Type' only dense CPU tensors can be pinned");
  EMBER_CHECK(x.device().is_cpu(), "cannot pin 'torch.cuda.", legacy_name(x.dtype()),
              "Tensor' only dense CPU tensors can be pinned");
  // aten's _pin_memory keeps the strides (a storage of their span); an overlapping layout is made dense
  Tensor r = non_overlapping(x) ? pinned_empty(x.sizes(), x.dtype(), x.strides()) : pinned_empty(x.sizes(), x.dtype());
  copy_into(r, x);
  return r;
}

bool tensor_is_pinned(const Tensor& x) {
  return x.device().is_cpu() && x.impl()->storage && x.storage().data != nullptr && is_pinned(x.storage().data);
}

}  // namespace ember
