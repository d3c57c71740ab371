// Derivatives of the recurrent cells. Without a graph to build (plain backward)
// the gate gradients come from one fused kernel and are shared by the six
// argument formulas of a node through a one-entry cache; under create_graph the
// same math runs in ag:: ops so that double backward works.
#include "formulas_nn_rnn.h"

#include <optional>

#include "autograd_ops.h"
#include "engine.h"
#include "formulas.h"
#include "grad_mode.h"
#include "ops.h"
#include "ops/nn/nn_rnn.h"

namespace ember {

namespace {
const Scalar kOne(int64_t(1));

Tensor tadd(const Tensor& a, const Tensor& b) { return ag::add(a, b, kOne); }
Tensor tsub(const Tensor& a, const Tensor& b) { return ag::sub(a, b, kOne); }
Tensor tmul(const Tensor& a, const Tensor& b) { return ag::mul(a, b); }
Tensor dsig(const Tensor& s) { return tmul(s, one_minus(s)); }   // sigmoid' from its value
Tensor dtanh(const Tensor& y) { return one_minus(tmul(y, y)); }  // tanh' from its value
Tensor or_zeros(const Tensor& g, const Tensor& like) { return g.defined() ? g : zeros_like_grad(like); }

Tensor gates_of(const Tensor& x, const Tensor& w, const Tensor& b) {
  return b.defined() ? ag::addmm(b, x, ag::t(w), kOne, kOne) : ag::mm(x, ag::t(w));
}

rnn::GateGrads composite_backward(int kind, const Tensor& gi, const Tensor& gh, const Tensor& hx, const Tensor& cx,
                                  const Tensor& ghy_, const Tensor& gcy_) {
  rnn::GateGrads r;
  Tensor ghy = or_zeros(ghy_, hx);
  if (kind == rnn::kTanh || kind == rnn::kRelu) {
    Tensor v = tadd(gh, gi);
    // relu: gradient where the pre-activation is not <= 0 (NaN passes, as relu's backward)
    r.d_ih = kind == rnn::kTanh ? tmul(ghy, dtanh(ag::tanh(v)))
                                : mask_mul(ghy, logical_not(le(v, wrap_scalar(Scalar(0.0)))));
    r.d_hh = r.d_ih;
  } else if (kind == rnn::kLstm) {
    TensorList c = ag::chunk(tadd(gh, gi), 4, 1);
    Tensor ig = ag::sigmoid(c[0]), fg = ag::sigmoid(c[1]), gg = ag::tanh(c[2]), og = ag::sigmoid(c[3]);
    Tensor tc = ag::tanh(tadd(tmul(fg, cx), tmul(ig, gg)));
    Tensor dc = tadd(or_zeros(gcy_, cx), tmul(tmul(ghy, og), dtanh(tc)));
    r.d_ih = ag::cat({tmul(tmul(dc, gg), dsig(ig)), tmul(tmul(dc, cx), dsig(fg)), tmul(tmul(dc, ig), dtanh(gg)),
                      tmul(tmul(ghy, tc), dsig(og))},
                     1);
    r.d_hh = r.d_ih;
    r.d_cx = tmul(dc, fg);
  } else {
    TensorList ci = ag::chunk(gi, 3, 1), ch = ag::chunk(gh, 3, 1);
    Tensor rg = ag::sigmoid(tadd(ch[0], ci[0])), zg = ag::sigmoid(tadd(ch[1], ci[1]));
    Tensor n = ag::tanh(tadd(ci[2], tmul(ch[2], rg)));
    Tensor dn = tmul(tmul(ghy, one_minus(zg)), dtanh(n));
    Tensor dz = tmul(tmul(ghy, tsub(hx, n)), dsig(zg));
    Tensor dr = tmul(tmul(dn, ch[2]), dsig(rg));
    r.d_ih = ag::cat({dr, dz, dn}, 1);
    r.d_hh = ag::cat({dr, dz, tmul(dn, rg)}, 1);
    r.d_hx = tmul(ghy, zg);
  }
  return r;
}

// The gate gradients of the node being differentiated: its six formulas ask for them in
// turn. Holding the key tensors keeps their addresses from being reused, so a hit is exact.
struct Cache {
  TensorList key;
  rnn::GateGrads val;
};
// Never destroyed: a thread's exit (the main thread's after Python has finalized) must not
// release tensors that may own NumPy memory or Python wrappers (PyGILState_Ensure then crashes).
std::optional<Cache>& rnn_cache() {
  thread_local std::optional<Cache>* c = new std::optional<Cache>();
  return *c;
}

bool same_key(const TensorList& a, const TensorList& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].impl() != b[i].impl()) return false;
  return true;
}

// Index of the last argument (0 input, 1 hx/cx, 2 w_ih, 3 w_hh, 4 b_ih, 5 b_hh) whose gradient
// the node will ask for: after that formula the cache entry is dropped, so it never outlives
// the node's backward (it holds the node's inputs and their graph).
int last_needed(const Tensor& input, const Tensor& hx, const Tensor& cx, const Tensor& w_ih, const Tensor& w_hh,
                const Tensor& b_ih, const Tensor& b_hh) {
  auto rg = [](const Tensor& t) { return t.defined() && t.requires_grad(); };
  if (rg(b_hh)) return 5;
  if (rg(b_ih)) return 4;
  if (rg(w_hh)) return 3;
  if (rg(w_ih)) return 2;
  if (rg(hx) || rg(cx)) return 1;
  return 0;
}

rnn::GateGrads gate_grads(int kind, int which, const TensorList& grads, const Tensor& input, const Tensor& hx,
                          const Tensor& cx, const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                          const Tensor& b_hh) {
  Tensor ghy = grads.size() > 0 ? grads[0] : Tensor();
  Tensor gcy = grads.size() > 1 ? grads[1] : Tensor();
  if (GradMode::is_enabled()) {  // building a graph: differentiable math, nothing cached
    rnn_cache().reset();
    return composite_backward(kind, gates_of(input, w_ih, b_ih), gates_of(hx, w_hh, b_hh), hx, cx, ghy, gcy);
  }
  bool last = which >= last_needed(input, hx, cx, w_ih, w_hh, b_ih, b_hh);
  TensorList key{ghy, gcy, input, hx, cx, w_ih, w_hh, b_ih, b_hh};
  if (rnn_cache() && same_key(rnn_cache()->key, key)) {
    rnn::GateGrads r = rnn_cache()->val;
    if (last) rnn_cache().reset();
    return r;
  }
  Tensor gi = rnn::gate_matrix(input, w_ih, b_ih), gh = rnn::gate_matrix(hx, w_hh, b_hh);
  rnn::GateGrads r = rnn::fused_ok({gi, gh, hx, cx, ghy, gcy})
                         ? rnn::fused_backward(static_cast<rnn::Kind>(kind), gi, gh, hx, cx, ghy, gcy)
                         : composite_backward(kind, gi, gh, hx, cx, ghy, gcy);
  if (last) rnn_cache().reset();
  else rnn_cache() = Cache{std::move(key), r};
  return r;
}

// Biases broadcast against the [batch, gates] matrix (1-D usually, 2-D allowed as in
// PyTorch), so their gradient is the gate gradient summed back to the bias's shape.
Tensor arg_grad(const rnn::GateGrads& g, int which, const Tensor& input, const Tensor& hx, const Tensor& w_ih,
                const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh) {
  switch (which) {
    case 0:
      return ag::mm(g.d_ih, w_ih);
    case 1: {
      Tensor d = ag::mm(g.d_hh, w_hh);
      return g.d_hx.defined() ? tadd(d, g.d_hx) : d;
    }
    case 2:
      return ag::mm(ag::t(g.d_ih), input);
    case 3:
      return ag::mm(ag::t(g.d_hh), hx);
    case 4:
      return sum_to(g.d_ih, b_ih.sizes());
    default:
      return sum_to(g.d_hh, b_hh.sizes());
  }
}

// The cells are holomorphic: PyTorch's gradient of a complex one is conj(J^T conj(grad)), the real
// formulas above run on the conjugated output gradients and conjugated back.
Tensor conj_of(const Tensor& t) { return t.defined() ? ag::conj_physical(t) : t; }
TensorList conj_all(const TensorList& ts) {
  TensorList r;
  for (const Tensor& t : ts) r.push_back(conj_of(t));
  return r;
}
}  // namespace

Tensor rnn_cell_grad(int kind, int which, const TensorList& grads, const Tensor& input, const Tensor& hx,
                     const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh) {
  const bool cx = is_complex(input.dtype());
  rnn::GateGrads g = gate_grads(kind, which, cx ? conj_all(grads) : grads, input, hx, Tensor(), w_ih, w_hh, b_ih, b_hh);
  Tensor r = arg_grad(g, which, input, hx, w_ih, w_hh, b_ih, b_hh);
  return cx ? conj_of(r) : r;
}

TensorList lstm_cell_grad(int which, const TensorList& grads, const Tensor& input, const TensorList& hx,
                          const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh) {
  const bool cx = is_complex(input.dtype());
  rnn::GateGrads g =
      gate_grads(rnn::kLstm, which, cx ? conj_all(grads) : grads, input, hx[0], hx[1], w_ih, w_hh, b_ih, b_hh);
  TensorList r{arg_grad(g, which, input, hx[0], w_ih, w_hh, b_ih, b_hh)};
  if (which == 1) r.push_back(g.d_cx);
  return cx ? conj_all(r) : r;
}

}  // namespace ember
