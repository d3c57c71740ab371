// The CUDA backend when ember is built without EMBER_CUDA: linked instead of
// kernels/cuda/, so op code needs no #ifdefs; every entry point says so.
#include "../../core/tensor.h"

namespace ember {

bool cuda_is_compiled() { return false; }
int cuda_device_count() { return 0; }

void cuda_backend_unavailable() { fail(ErrorKind::NoCuda, "Torch not compiled with CUDA enabled"); }

}  // namespace ember
