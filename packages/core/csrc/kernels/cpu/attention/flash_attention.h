// Fused scaled-dot-product attention on the CPU (kernels/backend.h, AttentionKernels).
#pragma once
#include "kernels/attention_args.h"

namespace ember::attention {

void flash_forward(const FlashForward<float>& a);
void flash_forward(const FlashForward<double>& a);
void flash_backward(const FlashBackward<float>& a);
void flash_backward(const FlashBackward<double>& a);

}  // namespace ember::attention
