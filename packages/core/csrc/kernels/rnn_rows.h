// The rows of the recurrent cells' fused gate passes (kernels/backend.h, RnnKernels):
// device-independent, so the backend table can name them for every device. Every pointer is
// into contiguous (batch, gates * H) or (batch, H) rows; the op bodies are ops/nn/nn_rnn.cpp.
#pragma once
#include <cstdint>

namespace ember::rnn {

enum Kind : int { kTanh = 0, kRelu = 1, kLstm = 2, kGru = 3 };

// Pointers of one fused pass (forward: hy / cy; backward: the gate gradients).
template <class T>
struct Rows {
  Kind k;
  int64_t H;
  const T *gi, *gh, *hx, *cx, *ghy, *gcy;
  T *hy, *cy, *d_ih, *d_hh, *d_hx, *d_cx;
};

// LSTM steps of the sequence path. Forward overwrites the hidden-gate row with the
// activated gates and keeps tanh(c); backward then only multiplies and adds.
template <class T>
struct LstmSeqRows {
  int64_t H;
  const T *xg, *c0, *gy, *gc;
  T *gates, *c1, *tc, *hy, *d_g, *d_c0;
  const T* bias = nullptr;    // forward: b_hh [4H], added here rather than in a pass of its own
  const T* gy_out = nullptr;  // backward: the output's own gradient at this step, added to gy here
};

}  // namespace ember::rnn
