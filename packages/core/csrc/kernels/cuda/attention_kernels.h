// AttentionKernels' CUDA entries (kernels/cuda/attention_kernels.cu): every operand contiguous on
// the device, as kernels/attention_args.h lays them out; dk and dv zeroed by the caller.
#pragma once
#include "kernels/attention_args.h"

namespace ember::cuda {

void flash_forward_f(const attention::FlashForward<float>& a);
void flash_forward_d(const attention::FlashForward<double>& a);
void flash_backward_f(const attention::FlashBackward<float>& a);
void flash_backward_d(const attention::FlashBackward<double>& a);

}  // namespace ember::cuda
