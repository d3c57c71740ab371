#include "iter/resize_out.h"

#include "core/size_math.h"

namespace ember {

const Tensor& resize_out(const Tensor& out, IntArrayRef sizes) {
  if (!out.sizes().equals(sizes)) {
    TensorImpl* o = out.impl();
    // Checked before anything changes: a failed resize leaves `out` as it was.
    size_t nbytes = contiguous_nbytes(sizes, o->itemsize());
    size_t need = nbytes ? nbytes + static_cast<size_t>(o->offset) * o->itemsize() : 0;
    resize_storage(*o->storage, need);
    o->sizes = to_vec(sizes);
    o->strides = contiguous_strides(sizes);
    o->refresh();
  }
  return out;
}

}  // namespace ember
