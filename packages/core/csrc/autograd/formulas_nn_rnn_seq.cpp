// The whole-sequence recurrent layer (ag::rnn_sequence) and its hand-written node.
// Plain backward runs rnn::seq_backward (fused gate passes, one dW_hh GEMM). Under
// create_graph the node replays the steps with the differentiable cell ops and their
// ag:: formulas, so higher-order gradients still work (slowly, step by step).
#include "autograd_ops.h"
#include "formulas.h"
#include "formulas_nn_rnn.h"
#include "grad_mode.h"
#include "node.h"
#include "ops.h"
#include "ops/nn/nn_rnn.h"

namespace ember {

namespace {
const Scalar kOne(int64_t(1));

// Differentiable backward: rebuild each step's states with the cell ops, then take the
// cells' own (ag::) gradient formulas step by step, newest first.
rnn::SeqGrads replay(rnn::Kind kind, bool reverse, bool has_b_hh, const Tensor& xg, const Tensor& h0, const Tensor& c0,
                     const Tensor& w_hh, const Tensor& b_hh, const Tensor& g_y, const Tensor& g_hn,
                     const Tensor& g_cn) {
  const int64_t T = xg.size(0), B = xg.size(1), GH = xg.size(2);
  const bool lstm = kind == rnn::kLstm;
  Tensor zin = empty({B, 0}, xg.dtype(), xg.device()), w0 = empty({GH, 0}, xg.dtype(), xg.device());
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
      r = replay(kind, reverse, has_b_hh, xg, h0, c0, w_hh, b_hh, g_y, g_hn, g_cn);
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

  void release_variables() override {
    for (SavedVariable* v : {&xg_, &h0_, &c0_, &w_hh_, &b_hh_, &y_}) v->reset();
    fwd = rnn::SeqForward();
  }
};

// The LSTM layer with its input projection (ag::lstm_layer). The forward's one GEMM x @ w_ih^T
// leaves both biases to the gate pass; backward takes dW_ih and dW_hh from one GEMM of the gate
// gradients against [x | previous states], and both bias gradients from one column sum (LSTM
// feeds the same gate gradient to both GEMMs), where separate nodes packed the 8 MB gate
// gradient twice and summed it twice.
struct LstmLayerBackward0 final : Node {
  bool reverse = false;
  SavedVariable x_, w_ih_, b_ih_, h0_, c0_, w_hh_, b_hh_, y_;
  rnn::SeqForward fwd;
  const char* name() const override { return "LstmLayerBackward0"; }

  TensorList apply(TensorList& grads) override {
    TensorList out(7);  // x, w_ih, b_ih, h0, c0, w_hh, b_hh
    if (!any_defined(grads)) return out;
    Tensor g_y = grads[0], g_hn = grads[1], g_cn = grads[2];
    Tensor x = x_.unpack(this), w_ih = w_ih_.unpack(this), b_ih = b_ih_.unpack(this);
    Tensor h0 = h0_.unpack(this), c0 = c0_.unpack(this), w_hh = w_hh_.unpack(this), b_hh = b_hh_.unpack(this);
    const int64_t T = x.size(0), B = x.size(1), I = x.size(2), GH = w_hh.size(0), H = w_hh.size(1);
    if (GradMode::is_enabled()) {  // create_graph: the projection and the steps in ag:: ops
      Tensor x2 = ag::reshape(x, {T * B, I});
      Tensor xg = b_ih.defined() ? ag::addmm(b_ih, x2, ag::t(w_ih), kOne, kOne) : ag::mm(x2, ag::t(w_ih));
      rnn::SeqGrads r =
          replay(rnn::kLstm, reverse, b_hh.defined(), ag::reshape(xg, {T, B, GH}), h0, c0, w_hh, b_hh, g_y, g_hn, g_cn);
      Tensor dg = ag::reshape(r.d_xg, {T * B, GH});
      const int64_t dim0[] = {0};
      Tensor vals[] = {ag::reshape(ag::mm(dg, w_ih), {T, B, I}),
                       ag::mm(ag::t(dg), x2),
                       ag::sum(dg, IntArrayRef(dim0, 1), false, std::nullopt),
                       r.d_h0,
                       r.d_c0,
                       r.d_w_hh,
                       r.d_b_hh};
      for (int i = 0; i < 7; ++i)
        if (should_compute(i)) out[i] = vals[i];
      return out;
    }
    rnn::SeqForward f = fwd;
    f.y = y_.unpack(this);
    // f.gh stands in for the projection: LSTM's backward reads only its shape
    rnn::SeqGrads r = rnn::seq_backward(rnn::kLstm, f.gh, f, h0, c0, w_hh, false, g_y, g_hn, g_cn, reverse, false);
    Tensor dg = reshape(r.d_xg, {T * B, GH}), x2 = reshape(x, {T * B, I});
    if (should_compute(0)) out[0] = reshape(mm(dg, w_ih), {T, B, I});
    auto prev = [&] { return reshape(rnn::previous_states(f, h0, reverse), {T * B, H}); };
    if (should_compute(1) && should_compute(5)) {
      Tensor both = mm(t(dg), cat({x2, prev()}, 1));
      out[1] = contiguous(narrow(both, 1, 0, I), MemoryFormat::Contiguous);
      out[5] = contiguous(narrow(both, 1, I, H), MemoryFormat::Contiguous);
    } else if (should_compute(1)) {
      out[1] = mm(t(dg), x2);
    } else if (should_compute(5)) {
      out[5] = mm(t(dg), prev());
    }
    if (should_compute(2) || should_compute(6)) {
      const int64_t dim0[] = {0};
      Tensor db = sum(dg, IntArrayRef(dim0, 1), false, std::nullopt);
      if (should_compute(2)) out[2] = db;
      if (should_compute(6)) out[6] = should_compute(2) ? clone(db, std::nullopt) : db;  // two grads, two buffers
    }
    out[3] = should_compute(3) ? r.d_h0 : Tensor();
    out[4] = should_compute(4) ? r.d_c0 : Tensor();
    return out;
  }

  void release_variables() override {
    for (SavedVariable* v : {&x_, &w_ih_, &b_ih_, &h0_, &c0_, &w_hh_, &b_hh_, &y_}) v->reset();
    fwd = rnn::SeqForward();
  }
};

// The sequence nodes' last step: history on every output, and the forward buffers kept (y as a
// saved output).
template <class NodeRef>
void attach_outputs(const NodeRef& node, const TensorList& outs, const rnn::SeqForward& f) {
  for (const Tensor& o : outs) set_history(o, node);
  node->y_.save(f.y, true);
  node->fwd.gh = f.gh;
  node->fwd.c_all = f.c_all;
  node->fwd.tc = f.tc;
}

void check_sequence(int kind, const Tensor& xg, const Tensor& h0, const Tensor& c0, const Tensor& w_hh,
                    const Tensor& b_hh) {
  const int64_t G = kind == rnn::kLstm ? 4 : kind == rnn::kGru ? 3 : 1;
  EMBER_CHECK(xg.dim() == 3 && h0.dim() == 2 && w_hh.dim() == 2,
              "_rnn_sequence: expected xg [T, B, G*H], h0 [B, H] "
              "and w_hh [G*H, H], got ",
              xg.dim(), "-D, ", h0.dim(), "-D and ", w_hh.dim(), "-D tensors");
  const int64_t B = h0.size(0), H = h0.size(1);
  EMBER_CHECK(xg.size(1) == B && xg.size(2) == G * H && w_hh.size(0) == G * H && w_hh.size(1) == H,
              "_rnn_sequence: shapes do not match: xg [", xg.size(0), ", ", xg.size(1), ", ", xg.size(2), "], h0 [", B,
              ", ", H, "], w_hh [", w_hh.size(0), ", ", w_hh.size(1), "]");
  EMBER_CHECK(!b_hh.defined() || (b_hh.dim() == 1 && b_hh.size(0) == G * H), "_rnn_sequence: expected b_hh of size [",
              G * H, "]");
  EMBER_CHECK((kind == rnn::kLstm) == c0.defined(), "_rnn_sequence: c0 is given exactly for LSTM");
  EMBER_CHECK(!c0.defined() || (c0.dim() == 2 && c0.size(0) == B && c0.size(1) == H),
              "_rnn_sequence: expected c0 of size [", B, ", ", H, "]");
  EMBER_CHECK(rnn::fused_ok({xg, h0, c0, w_hh, b_hh}),
              "_rnn_sequence: expected float32 or float64 tensors of one dtype and device");
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
  attach_outputs(node, outs, f);
  return outs;
}

TensorList lstm_layer(const Tensor& x, const Tensor& w_ih, const Tensor& b_ih, const Tensor& h0, const Tensor& c0,
                      const Tensor& w_hh, const Tensor& b_hh, bool reverse) {
  EMBER_CHECK(x.dim() == 3 && w_ih.dim() == 2, "_lstm_layer: expected x [T, B, I] and w_ih [4*H, I], got ", x.dim(),
              "-D and ", w_ih.dim(), "-D tensors");
  EMBER_CHECK(w_ih.size(1) == x.size(2) && w_ih.size(0) == w_hh.size(0), "_lstm_layer: shapes do not match: x [",
              x.size(0), ", ", x.size(1), ", ", x.size(2), "], w_ih [", w_ih.size(0), ", ", w_ih.size(1), "], w_hh [",
              w_hh.size(0), ", ", w_hh.size(1), "]");
  EMBER_CHECK(!b_ih.defined() || (b_ih.dim() == 1 && b_ih.size(0) == w_ih.size(0)),
              "_lstm_layer: expected b_ih of size [", w_ih.size(0), "]");
  EMBER_CHECK(rnn::fused_ok({x, w_ih, b_ih}),
              "_lstm_layer: expected float32 or float64 tensors of one dtype and device");
  const int64_t T = x.size(0), B = x.size(1), I = x.size(2), GH = w_ih.size(0);
  Tensor xg = ember::reshape(ember::mm(ember::reshape(x, {T * B, I}), ember::t(w_ih)), {T, B, GH});
  check_sequence(rnn::kLstm, xg, h0, c0, w_hh, b_hh);
  // both biases in the gate pass, added once
  Tensor bias = b_ih.defined() && b_hh.defined() ? ember::add(b_ih, b_hh, kOne) : b_ih.defined() ? b_ih : b_hh;
  rnn::SeqForward f = rnn::seq_forward(rnn::kLstm, xg, h0, c0, w_hh, bias, reverse, /*xg_scratch=*/true);
  TensorList outs{f.y, f.h_n, f.c_n};
  if (!GradMode::is_enabled() || !any_requires_grad({&x, &w_ih, &b_ih, &h0, &c0, &w_hh, &b_hh})) return outs;
  auto node = make_ref<LstmLayerBackward0>();
  node->set_next_edges({&x, &w_ih, &b_ih, &h0, &c0, &w_hh, &b_hh});
  node->reverse = reverse;
  node->x_.save(x, false);
  node->w_ih_.save(w_ih, false);
  node->b_ih_.save(b_ih, false);
  node->h0_.save(h0, false);
  node->c0_.save(c0, false);
  node->w_hh_.save(w_hh, false);
  node->b_hh_.save(b_hh, false);
  attach_outputs(node, outs, f);
  return outs;
}
}  // namespace ag

// The ops ember.nn's LSTM / GRU layers call (ops/nn_rnn.yaml, grad: composite): each records the
// one node above.
namespace {
std::tuple<Tensor, Tensor, Tensor> three(const TensorList& r) { return {r[0], r[1], r[2]}; }
}  // namespace

std::tuple<Tensor, Tensor, Tensor> _lstm_sequence(const Tensor& xg, const Tensor& h0, const Tensor& c0,
                                                  const Tensor& w_hh, const Tensor& b_hh, bool reverse) {
  return three(ag::rnn_sequence(rnn::kLstm, xg, h0, c0, w_hh, b_hh, reverse));
}

std::tuple<Tensor, Tensor, Tensor> _lstm_layer(const Tensor& x, const Tensor& w_ih, const Tensor& b_ih,
                                               const Tensor& h0, const Tensor& c0, const Tensor& w_hh,
                                               const Tensor& b_hh, bool reverse) {
  return three(ag::lstm_layer(x, w_ih, b_ih, h0, c0, w_hh, b_hh, reverse));
}

std::tuple<Tensor, Tensor> _gru_sequence(const Tensor& xg, const Tensor& h0, const Tensor& w_hh, const Tensor& b_hh,
                                         bool reverse) {
  TensorList r = ag::rnn_sequence(rnn::kGru, xg, h0, Tensor(), w_hh, b_hh, reverse);
  return {r[0], r[1]};
}

}  // namespace ember
