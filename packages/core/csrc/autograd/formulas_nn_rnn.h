// Derivatives of the recurrent cells (ops/nn_rnn.yaml).
#pragma once
#include "../core/tensor.h"

namespace ember {

// Gradient of a single-state cell (kind 0 tanh, 1 relu, 3 gru) with respect to argument
// `which` (0 input, 1 hx, 2 w_ih, 3 w_hh, 4 b_ih, 5 b_hh).
Tensor rnn_cell_grad(int kind, int which, const TensorList& grads, const Tensor& input, const Tensor& hx,
                     const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh);
// Same for lstm_cell: one tensor, or [dh, dc] for which == 1 (hx).
TensorList lstm_cell_grad(int which, const TensorList& grads, const Tensor& input, const TensorList& hx,
                          const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh);

}  // namespace ember

namespace ember::ag {
// One direction of one recurrent layer over a whole sequence, recording one node whose
// backward gives every input's gradient at once. xg [T, B, G*H] is the input projection of
// every step (b_ih included); returns {y [T, B, H], h_n, c_n (LSTM only)}. kind as above.
TensorList rnn_sequence(int kind, const Tensor& xg, const Tensor& h0, const Tensor& c0, const Tensor& w_hh,
                        const Tensor& b_hh, bool reverse);
// The same for an LSTM layer given its input x [T, B, I] (the projection x @ w_ih^T done inside):
// {y, h_n, c_n}; its one node also gives x's, w_ih's and b_ih's gradients.
TensorList lstm_layer(const Tensor& x, const Tensor& w_ih, const Tensor& b_ih, const Tensor& h0, const Tensor& c0,
                      const Tensor& w_hh, const Tensor& b_hh, bool reverse);
}  // namespace ember::ag
