// Shared pieces of the recurrent cells (ops/nn_rnn.yaml): argument checks, the
// two gate GEMMs and the fused pointwise kernels used by forward and backward.
#pragma once
#include "core/tensor.h"
#include "kernels/rnn_rows.h"  // Kind

namespace ember::rnn {

// PyTorch's cell checks: input width, batch sizes and hidden widths.
void check_cell(const char* op, const Tensor& input, const TensorList& hx, const Tensor& w_ih, const Tensor& w_hh);

// Pre-activation gates: gi = input @ w_ih^T + b_ih, gh = hx @ w_hh^T + b_hh (plain ops, no graph).
Tensor gate_matrix(const Tensor& x, const Tensor& w, const Tensor& b);

// Whether the fused kernels apply (float32/float64, every tensor of one dtype and one device).
bool fused_ok(const TensorList& ts);

// hy (and cy for LSTM) from the gate matrices, in one pass.
TensorList fused_forward(Kind k, const Tensor& gi, const Tensor& gh, const Tensor& hx, const Tensor& cx);

// Gradients of the pre-activation gates (d_ih for the input GEMM, d_hh for the hidden
// GEMM; they differ only for GRU's new gate), plus the direct dhx (GRU) and dcx (LSTM).
struct GateGrads {
  Tensor d_ih, d_hh, d_hx, d_cx;
};
GateGrads fused_backward(Kind k, const Tensor& gi, const Tensor& gh, const Tensor& hx, const Tensor& cx,
                         const Tensor& ghy, const Tensor& gcy);

// Whole sequence of one direction of one layer (LSTM / GRU / tanh / relu), no graph:
// xg [T, B, G*H] holds every step's input projection (b_ih included); each step runs one
// hidden GEMM into gh[t] and the fused gate pass. gh and c_all (LSTM cell states) are kept
// for seq_backward. `reverse` walks t from T-1 down to 0.
// For LSTM, gh ends up holding the activated gates (i, f, g, o) and tc = tanh(c) of every
// step, so the backward pass needs no transcendental functions.
struct SeqForward {
  Tensor y, h_n, c_n, gh, c_all, tc;
};
// xg_scratch: xg is the caller's own buffer, which an LSTM on the packed (AVX-512) path may
// overwrite: each step's hidden GEMM then accumulates onto its projection and gh is xg itself.
SeqForward seq_forward(Kind k, const Tensor& xg, const Tensor& h0, const Tensor& c0, const Tensor& w_hh,
                       const Tensor& b_hh, bool reverse, bool xg_scratch = false);
// Gradients of every input of seq_forward from those of y / h_n / c_n (any may be undefined):
// one fused gate pass and one dh GEMM per step, then dW_hh as one GEMM over all steps.
struct SeqGrads {
  Tensor d_xg, d_h0, d_c0, d_w_hh, d_b_hh;
};
// hidden_weight_grads false leaves d_w_hh / d_b_hh undefined (a caller that makes them itself).
SeqGrads seq_backward(Kind k, const Tensor& xg, const SeqForward& f, const Tensor& h0, const Tensor& c0,
                      const Tensor& w_hh, bool has_b_hh, const Tensor& g_y, const Tensor& g_hn, const Tensor& g_cn,
                      bool reverse, bool hidden_weight_grads = true);
// The state each step started from, [T, B, H] (h0 first in processing order): dW_hh's right factor.
Tensor previous_states(const SeqForward& f, const Tensor& h0, bool reverse);

}  // namespace ember::rnn
