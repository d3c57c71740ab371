#include "iter/resize_out.h"

#include "core/error.h"
#include "core/size_math.h"

namespace ember {

const Tensor& resize_out(const Tensor& out, IntArrayRef sizes, bool warn) {
  if (!out.sizes().equals(sizes)) {
    if (warn && out.numel() != 0)
      ember::warn("An output with one or more elements was resized since it had shape " + shape_str(out.sizes()) +
                  ", which does not match the required output shape " + shape_str(sizes) +
                  ". This behavior is deprecated, and in a future PyTorch release outputs will not be resized "
                  "unless they have zero elements. You can explicitly reuse an out tensor t by resizing it, "
                  "inplace, to zero elements with t.resize_(0).");
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
