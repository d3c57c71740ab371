// The bad values a GPU kernel can report instead of raising (kernels/cuda/device_error.h): each
// code is one op's exception, raised with the CPU op's words at the next wait for the device. Here,
// beside the backend table, so an op body can say which error its indices' kernel reports.
#pragma once
#include <cstdint>

namespace ember {

enum DeviceErrorCode : int32_t {
  kNoDeviceError = 0,
  kTargetOutOfBounds = 1,  // nll_loss (IndexError): "Target <value> is out of bounds."
  kIndexOutOfRange = 2,    // embedding, index_select, index_add (IndexError): "index out of range in self"
  // advanced indexing, index_fill (IndexError): "index <value> is out of bounds for dimension <dim> with size <size>"
  kIndexOutOfBounds = 3,
  kScatterGatherOutOfBounds = 4,  // gather / scatter, index_add's put path: the same words, a RuntimeError
  kIndexCopyOutOfBounds = 5,      // index_copy (IndexError): the same words after "index_copy_(): "
  kIndicesOutOfDataBounds = 6,    // index_select's dim-1 kernel (RuntimeError): "INDICES element is out of DATA bounds,
                                  // id=<value> axis_dim=<size>"
  kTakeOutOfRange =
      7,  // take / put_ (IndexError): "out of range: tried to access index <value> on a tensor of <size> elements."
};

}  // namespace ember
