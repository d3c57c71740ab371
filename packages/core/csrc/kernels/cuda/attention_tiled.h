// The tiled fused-attention kernels (attention_tiled.cu), for head sizes up to 256 whose tiles fit
// a block's shared memory; attention_kernels.cu runs its simple per-row kernels for the rest.
#pragma once
#include "kernels/attention_args.h"

namespace ember::cuda::attention_tiled {

// Queue the kernels and return true, or return false (nothing queued) when the shape does not fit.
template <class T>
bool forward(const attention::FlashForward<T>& a);
// D: B * H * L scratch values of T on the device (the rows' dO . O).
template <class T>
bool backward(const attention::FlashBackward<T>& a, T* D);

}  // namespace ember::cuda::attention_tiled
