// The whole-sequence recurrent layer (ag::rnn_sequence) and its hand-written node.
// Plain backward runs rnn::seq_backward (fused gate passes, one dW_hh GEMM). Under
// create_graph the node replays the steps with the differentiable cell ops and their
// ag:: formulas, so higher-order gradients still work (slowly, step by step).
#include "../ops/nn_rnn.h"
#include "autograd_ops.h"
#include "formulas.h"
#include "formulas_nn_rnn.h"
#include "grad_mode.h"
#include "node.h"
#include "ops.h"

namespace ember {

namespace {
const Scalar kOne(int64_t(1));

struct RnnSequenceBackward0 final : Node {
  rnn::Kind kind = rnn::kLstm;
  bool reverse = false;
  bool has_b_hh = false;
  SavedVariable xg_, h0_, c0_, w_hh_, b_hh_, y_;
  rnn::SeqForward fwd;  // buffers of the forward (y is kept in y_ instead: it is an output)
  const char* name() const override { return "RnnSequenceBackward0"; }

  TensorList apply(TensorList& grads) override {
    TensorList out(5);
    if (!any_defined(grads)) return out;
    Tensor g_y = grads[0], g_hn = grads.size() > 1 ? grads[1] : Tensor();
    Tensor g_cn = grads.size() > 2 ? grads[2] : Tensor();
    Tensor xg = xg_.unpack(this), h0 = h0_.unpack(this), c0 = c0_.unpack(this), w_hh = w_hh_.unpack(this);
    Tensor b_hh = b_hh_.unpack(this);
    rnn::SeqGrads r;
    if (GradMode::is_enabled()) {
      r = replay(xg, h0, c0, w_hh, b_hh, g_y, g_hn, g_cn);
    } else {
      rnn::SeqForward f = fwd;
      f.y = y_.unpack(this);
      r = rnn::seq_backward(kind, xg, f, h0, c0, w_hh, has_b_hh, g_y, g_hn, g_cn, reverse);
    }
    Tensor* vals[] = {&r.d_xg, &r.d_h0, &r.d_c0, &r.d_w_hh, &r.d_b_hh};
    for (int i = 0; i < 5; ++i)
      if (should_compute(i)) out[i] = *vals[i];
    return out;
  }

  // Differentiable backward: rebuild each step's states with the cell ops, then take the
  // cells' own (ag::) gradient formulas step by step, newest first.
  rnn::SeqGrads replay(const Tensor& xg, const Tensor& h0, const Tensor& c0, const Tensor& w_hh, const Tensor& b_hh,
                       const Tensor& g_y, const Tensor& g_hn, const Tensor& g_cn) {
    const int64_t T = xg.size(0), B = xg.size(1), GH = xg.size(2);
    const bool lstm = kind == rnn::kLstm;
    Tensor zin = empty({B, 0}, xg.dtype()), w0 = empty({GH, 0}, xg.dtype());
    TensorList hs, cs, xs;
    Tensor h = h0, c = c0;
    for (int64_t s = 0; s < T; ++s) {
      int64_t ti = reverse ? T - 1 - s : s;
      xs.push_back(ag::select(xg, 0, ti));
      hs.push_back(h);
      cs.push_back(c);
      if (lstm) {
        auto hc = ag::lstm_cell(zin, {h, c}, w0, w_hh, xs.back(), b_hh);
        h = std::get<0>(hc);
        c = std::get<1>(hc);
      } else if (kind == rnn::kGru) {
        h = ag::gru_cell(zin, h, w0, w_hh, xs.back(), b_hh);
      } else if (kind == rnn::kTanh) {
        h = ag::rnn_tanh_cell(zin, h, w0, w_hh, xs.back(), b_hh);
      } else {
        h = ag::rnn_relu_cell(zin, h, w0, w_hh, xs.back(), b_hh);
      }
    }
    rnn::SeqGrads r;
    Tensor dh = g_hn.defined() ? g_hn : zeros_like_grad(h0);
    Tensor dc = !lstm ? Tensor() : g_cn.defined() ? g_cn : zeros_like_grad(c0);
    TensorList dxs(T);
    for (int64_t s = T - 1; s >= 0; --s) {
      int64_t ti = reverse ? T - 1 - s : s;
      if (g_y.defined()) dh = ag::add(dh, ag::select(g_y, 0, ti), kOne);
      Tensor dw, db;
      if (lstm) {
        TensorList g{dh, dc}, hx{hs[s], cs[s]};
        dxs[ti] = lstm_cell_grad(4, g, zin, hx, w0, w_hh, xs[s], b_hh)[0];
        dw = lstm_cell_grad(3, g, zin, hx, w0, w_hh, xs[s], b_hh)[0];
        if (has_b_hh) db = lstm_cell_grad(5, g, zin, hx, w0, w_hh, xs[s], b_hh)[0];
        TensorList d = lstm_cell_grad(1, g, zin, hx, w0, w_hh, xs[s], b_hh);
        dh = d[0];
        dc = d[1];
      } else {
        TensorList g{dh};
        dxs[ti] = rnn_cell_grad(kind, 4, g, zin, hs[s], w0, w_hh, xs[s], b_hh);
        dw = rnn_cell_grad(kind, 3, g, zin, hs[s], w0, w_hh, xs[s], b_hh);
        if (has_b_hh) db = rnn_cell_grad(kind, 5, g, zin, hs[s], w0, w_hh, xs[s], b_hh);
        dh = rnn_cell_grad(kind, 1, g, zin, hs[s], w0, w_hh, xs[s], b_hh);
      }
      r.d_w_hh = r.d_w_hh.defined() ? ag::add(r.d_w_hh, dw, kOne) : dw;
      if (has_b_hh) r.d_b_hh = r.d_b_hh.defined() ? ag::add(r.d_b_hh, db, kOne) : db;
    }
    r.d_xg = T ? ag::stack(dxs, 0) : zeros_like_grad(xg);
    if (!r.d_w_hh.defined()) r.d_w_hh = zeros_like_grad(w_hh);
    if (has_b_hh && !r.d_b_hh.defined()) r.d_b_hh = zeros_like_grad(b_hh);
    r.d_h0 = dh;
    r.d_c0 = dc;
    return r;
  }

  void release_variables() override {
    for (SavedVariable* v : {&xg_, &h0_, &c0_, &w_hh_, &b_hh_, &y_}) v->reset();
    fwd = rnn::SeqForward();
  }
};

void check_sequence(int kind, const Tensor& xg, const Tensor& h0, const Tensor& c0, const Tensor& w_hh,
                    const Tensor& b_hh) {
  const int64_t G = kind == rnn::kLstm ? 4 : kind == rnn::kGru ? 3 : 1;
  EMBER_CHECK(xg.dim() == 3 && h0.dim() == 2 && w_hh.dim() == 2, "_rnn_sequence: expected xg [T, B, G*H], h0 [B, H] "
              "and w_hh [G*H, H], got ", xg.dim(), "-D, ", h0.dim(), "-D and ", w_hh.dim(), "-D tensors");
  const int64_t B = h0.size(0), H = h0.size(1);
  EMBER_CHECK(xg.size(1) == B && xg.size(2) == G * H && w_hh.size(0) == G * H && w_hh.size(1) == H,
              "_rnn_sequence: shapes do not match: xg [", xg.size(0), ", ", xg.size(1), ", ", xg.size(2),
              "], h0 [", B, ", ", H, "], w_hh [", w_hh.size(0), ", ", w_hh.size(1), "]");
  EMBER_CHECK(!b_hh.defined() || (b_hh.dim() == 1 && b_hh.size(0) == G * H),
              "_rnn_sequence: expected b_hh of size [", G * H, "]");
  EMBER_CHECK((kind == rnn::kLstm) == c0.defined(), "_rnn_sequence: c0 is given exactly for LSTM");
  EMBER_CHECK(!c0.defined() || (c0.dim() == 2 && c0.size(0) == B && c0.size(1) == H),
              "_rnn_sequence: expected c0 of size [", B, ", ", H, "]");
  EMBER_CHECK(rnn::fused_ok({xg, h0, c0, w_hh, b_hh}),
              "_rnn_sequence: expected float32 or float64 CPU tensors of one dtype");
}
}  // namespace

namespace ag {
TensorList rnn_sequence(int kind, const Tensor& xg, const Tensor& h0, const Tensor& c0, const Tensor& w_hh,
                        const Tensor& b_hh, bool reverse) {
  EMBER_CHECK(kind >= 0 && kind <= 3, "_rnn_sequence: unknown kind ", kind);
  check_sequence(kind, xg, h0, c0, w_hh, b_hh);
  const rnn::Kind k = static_cast<rnn::Kind>(kind);
  rnn::SeqForward f = rnn::seq_forward(k, xg, h0, c0, w_hh, b_hh, reverse);
  TensorList outs{f.y, f.h_n};
  if (k == rnn::kLstm) outs.push_back(f.c_n);
  if (!GradMode::is_enabled() || !any_requires_grad({&xg, &h0, &c0, &w_hh, &b_hh})) return outs;
  auto node = make_ref<RnnSequenceBackward0>();
  node->set_next_edges({&xg, &h0, &c0, &w_hh, &b_hh});
  node->kind = k;
  node->reverse = reverse;
  node->has_b_hh = b_hh.defined();
  node->xg_.save(xg, false);
  node->h0_.save(h0, false);
  node->c0_.save(c0, false);
  node->w_hh_.save(w_hh, false);
  node->b_hh_.save(b_hh, false);
  for (const Tensor& o : outs) set_history(o, node);
  node->y_.save(f.y, true);
  node->fwd.gh = f.gh;
  node->fwd.c_all = f.c_all;
  node->fwd.tc = f.tc;
  return outs;
}
}  // namespace ag

}  // namespace ember
