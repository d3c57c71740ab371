// Recurrent cells: rnn_tanh_cell, rnn_relu_cell, lstm_cell, gru_cell.
// Each is two GEMMs (input and hidden projections, biases folded in by addmm)
// followed by one fused pass over the gates; other dtypes take a composite path.
#include "ops/nn/nn_rnn.h"

#include <algorithm>
#include <string_view>

#include "kernels/backend.h"
#include "ops.h"

namespace ember {
namespace rnn {

namespace {
const Scalar kOne(int64_t(1));

Tensor dense(const Tensor& t) { return t.is_contiguous() ? t : contiguous(t, MemoryFormat::Contiguous); }

template <class T>
const T* cptr(const Tensor& x) {
  return x.defined() ? x.data<T>() : nullptr;
}
template <class T>
T* mptr(const Tensor& x) {
  return x.defined() ? x.data<T>() : nullptr;
}

}  // namespace

void check_cell(const char* op, const Tensor& input, const TensorList& hx, const Tensor& w_ih, const Tensor& w_hh) {
  // aten 2.13 reads and checks in a per-cell order (a read of a missing dim is an IndexError):
  //   rnn: hidden size (w_hh.size(1)), weight_ih, weight_hh, input, hidden states;
  //   gru: input, hidden size, hidden states, weight_ih, weight_hh;
  //   lstm: hidden size, input, weight_ih, weight_hh, hidden states.
  const std::string_view name(op);
  const bool gru = name == "gru_cell", lstm = name == "lstm_cell";
  const int64_t gates = gru ? 3 : lstm ? 4 : 1;
  auto check_input = [&] {
    const int64_t want = w_ih.size(1), in = input.size(1);
    EMBER_CHECK(in == want, "input has inconsistent input_size: got ", in, " expected ", want);
  };
  auto check_weights = [&](int64_t hidden) {
    EMBER_CHECK(w_ih.size(0) == gates * hidden, "weight_ih first dim must be ", gates,
                " * hidden_size = ", gates * hidden, ", but got ", w_ih.size(0));
    EMBER_CHECK(w_hh.size(0) == gates * hidden, "weight_hh first dim must be ", gates,
                " * hidden_size = ", gates * hidden, ", but got ", w_hh.size(0));
  };
  auto check_hidden = [&](int64_t hidden) {
    for (size_t i = 0; i < hx.size(); ++i) {
      const Tensor& h = hx[i];
      EMBER_CHECK(input.size(0) == h.size(0), "Input batch size ", input.size(0), " doesn't match hidden", i,
                  " batch size ", h.size(0));
      EMBER_CHECK(h.size(1) == hidden, "hidden", i, " has inconsistent hidden_size: got ", h.size(1), ", expected ",
                  hidden);
    }
  };
  if (gru) {
    check_input();
    const int64_t hidden = w_hh.size(1);
    check_hidden(hidden);
    check_weights(hidden);
  } else {
    const int64_t hidden = w_hh.size(1);
    if (lstm) check_input();
    check_weights(hidden);
    if (!lstm) check_input();
    check_hidden(hidden);
  }
  // Weights of more dims fail later in aten (linear's t()); here before any gate math.
  EMBER_CHECK(w_ih.dim() == 2 && w_hh.dim() == 2, op, ": expected 2-D weights, got w_ih of ", w_ih.dim(),
              " and w_hh of ", w_hh.dim(), " dimensions");
}

Tensor gate_matrix(const Tensor& x, const Tensor& w, const Tensor& b) {
  return b.defined() ? addmm(b, x, t(w), kOne, kOne) : mm(x, t(w));
}

bool fused_ok(const TensorList& ts) {
  ScalarType dt = ts[0].dtype();
  const Device dev = ts[0].device();  // the CPU's or (CUDA backend) a GPU's gate kernels
  if (dt != ScalarType::Float32 && dt != ScalarType::Float64) return false;
  for (const Tensor& x : ts)
    if (x.defined() && (x.dtype() != dt || x.device() != dev)) return false;
  return true;
}

TensorList fused_forward(Kind k, const Tensor& gi_, const Tensor& gh_, const Tensor& hx_, const Tensor& cx_) {
  Tensor gi = dense(gi_), gh = dense(gh_), hx = dense(hx_);
  Tensor cx = cx_.defined() ? dense(cx_) : cx_;
  int64_t B = hx.size(0), H = hx.size(1);
  Tensor hy = empty({B, H}, gi.dtype(), gi.device());
  Tensor cy = k == kLstm ? empty({B, H}, gi.dtype(), gi.device()) : Tensor();
  auto run = [&](auto tag) {
    using T = decltype(tag);
    Rows<T> p{k,       H,           cptr<T>(gi), cptr<T>(gh), cptr<T>(hx), cptr<T>(cx), nullptr,
              nullptr, mptr<T>(hy), mptr<T>(cy), nullptr,     nullptr,     nullptr,     nullptr};
    backend(gi).rnn.cell_rows(p, B, false);
  };
  if (gi.dtype() == ScalarType::Float32) run(float());
  else run(double());
  if (k == kLstm) return {hy, cy};
  return {hy};
}

GateGrads fused_backward(Kind k, const Tensor& gi_, const Tensor& gh_, const Tensor& hx_, const Tensor& cx_,
                         const Tensor& ghy_, const Tensor& gcy_) {
  Tensor gi = dense(gi_), gh = dense(gh_), hx = dense(hx_);
  Tensor cx = cx_.defined() ? dense(cx_) : cx_;
  Tensor ghy = ghy_.defined() ? dense(ghy_) : ghy_, gcy = gcy_.defined() ? dense(gcy_) : gcy_;
  int64_t B = hx.size(0), H = hx.size(1);
  ScalarType dt = gi.dtype();
  GateGrads r;
  r.d_ih = empty(gi.sizes(), dt, gi.device());
  r.d_hh = k == kLstm || k == kTanh || k == kRelu ? r.d_ih : empty(gi.sizes(), dt, gi.device());
  if (k == kGru) r.d_hx = empty({B, H}, dt, gi.device());
  if (k == kLstm) r.d_cx = empty({B, H}, dt, gi.device());
  auto run = [&](auto tag) {
    using T = decltype(tag);
    Rows<T> p{
        k,       H,       cptr<T>(gi),     cptr<T>(gh),     cptr<T>(hx),     cptr<T>(cx),    cptr<T>(ghy), cptr<T>(gcy),
        nullptr, nullptr, mptr<T>(r.d_ih), mptr<T>(r.d_hh), mptr<T>(r.d_hx), mptr<T>(r.d_cx)};
    backend(gi).rnn.cell_rows(p, B, true);
  };
  if (dt == ScalarType::Float32) run(float());
  else run(double());
  return r;
}

namespace {
// The cell's pointwise part from the gate matrices in plain ops (hy, and cy for LSTM): the dtypes
// the fused pass does not take (the autograd wrapper records the cell's node around it).
TensorList cell_math(Kind k, const Tensor& gi, const Tensor& gh, const Tensor& hx, const Tensor& cx) {
  auto add2 = [](const Tensor& a, const Tensor& b) { return add(a, b, kOne); };
  if (k == kTanh) return {tanh(add2(gh, gi))};
  if (k == kRelu) return {relu(add2(gh, gi))};
  if (k == kLstm) {
    TensorList c = chunk(add2(gh, gi), 4, 1);
    Tensor cy = add2(mul(sigmoid(c[1]), cx), mul(sigmoid(c[0]), tanh(c[2])));
    return {mul(sigmoid(c[3]), tanh(cy)), cy};
  }
  TensorList ci = chunk(gi, 3, 1), ch = chunk(gh, 3, 1);
  Tensor rg = sigmoid(add2(ch[0], ci[0])), zg = sigmoid(add2(ch[1], ci[1]));
  Tensor n = tanh(add2(ci[2], mul(ch[2], rg)));
  return {add2(mul(sub(hx, n, kOne), zg), n)};
}
}  // namespace

// One cell step: checks, the two GEMMs, then the fused pass or the composite.
TensorList cell(Kind k, const char* op, const Tensor& input, const TensorList& hx, const Tensor& w_ih,
                const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh) {
  check_cell(op, input, hx, w_ih, w_hh);
  Tensor gi = gate_matrix(input, w_ih, b_ih);
  Tensor gh = gate_matrix(hx[0], w_hh, b_hh);
  Tensor cx = k == kLstm ? hx[1] : Tensor();
  if (fused_ok({gi, gh, hx[0], cx})) return fused_forward(k, gi, gh, hx[0], cx);
  return cell_math(k, gi, gh, hx[0], cx);
}

namespace {
int64_t gate_count(Kind k) { return k == kLstm ? 4 : k == kGru ? 3 : 1; }
template <class T>
T* at_step(const Tensor& x, int64_t t) {
  return x.defined() ? x.data<T>() + t * x.stride(0) : nullptr;
}

// A float32 weight w (rows of ld = its width) packed once for GemmKernels::packed_gemm as B[K,N]
// (B[k][n] = w[n][k] when transposed); buf holds the panels.
struct PackedWeight {
  Tensor buf;
  PackedB b{nullptr, 0, 0};
};
PackedWeight pack_weight(const GemmKernels& gemm, const Tensor& w, int64_t K, int64_t N, bool transposed) {
  PackedWeight r;
  r.buf = empty({PackedB::floats(K, N)}, ScalarType::Float32, w.device());
  gemm.pack_b(w.data<float>(), K, N, w.size(1), transposed, r.buf.data<float>());
  r.b = PackedB{r.buf.data<float>(), K, N};
  return r;
}

// Forward time index of processing step s (reverse walks from the end).
int64_t time_of(int64_t s, int64_t T, bool reverse) { return reverse ? T - 1 - s : s; }
}  // namespace

// out = h @ wT (+ b): in column blocks small enough (M*N*K <= 1e6) for OpenBLAS's unpacked
// small-matrix kernels, which beat its packing GEMM on these batch-row products. Straight
// into out's rows: no temporary, no copy (h, wT, out contiguous; out rows N apart).
void hidden_gemm(const Tensor& h_, const Tensor& wT, const Tensor& b, const Tensor& out) {
  Tensor h = dense(h_);
  const int64_t M = h.size(0), K = h.size(1), N = wT.size(1);
  int64_t n = std::max<int64_t>(16, (1000000 / std::max<int64_t>(M * K, 1)) / 16 * 16);
  const GemmKernels& gemm = backend(h).gemm;
  auto run = [&](auto tag) {
    using U = decltype(tag);
    const U *hp = h.data<U>(), *wp = wT.data<U>();
    U* op = out.data<U>();
    for (int64_t j = 0; j < N; j += n)
      gemm(false, false, M, std::min(n, N - j), K, U(1), hp, K, wp + j, N, U(0), op + j, N);
  };
  if (h.dtype() == ScalarType::Float32) run(float());
  else run(double());
  if (b.defined()) add_(out, b, kOne);  // one broadcast pass (addmm per block is slower)
}

// dg @ w_hh summed over blocks of the gate dimension, each small enough (as above) for
// OpenBLAS's small-matrix kernels, accumulated in place; returns a new contiguous [B, H].
Tensor hidden_grad_gemm(const Tensor& dg_, const Tensor& w_hh_) {
  Tensor dg = dense(dg_), w_hh = dense(w_hh_);
  const int64_t M = dg.size(0), K = dg.size(1), N = w_hh.size(1);
  int64_t kb = std::max<int64_t>(16, (1000000 / std::max<int64_t>(M * N, 1)) / 16 * 16);
  Tensor acc = K == 0 ? zeros({M, N}, dg.dtype(), dg.device()) : empty({M, N}, dg.dtype(), dg.device());
  const GemmKernels& gemm = backend(dg).gemm;
  auto run = [&](auto tag) {
    using U = decltype(tag);
    const U *dp = dg.data<U>(), *wp = w_hh.data<U>();
    U* ap = acc.data<U>();
    for (int64_t j = 0; j < K; j += kb)
      gemm(false, false, M, N, std::min(kb, K - j), U(1), dp + j, K, wp + j * N, N, U(j ? 1 : 0), ap, N);
  };
  if (dg.dtype() == ScalarType::Float32) run(float());
  else run(double());
  return acc;
}

SeqForward seq_forward(Kind k, const Tensor& xg_, const Tensor& h0_, const Tensor& c0_, const Tensor& w_hh,
                       const Tensor& b_hh, bool reverse, bool xg_scratch) {
  Tensor xg = dense(xg_), h0 = dense(h0_), c0 = c0_.defined() ? dense(c0_) : c0_;
  const int64_t T = xg.size(0), B = xg.size(1), GH = xg.size(2), H = h0.size(1);
  ScalarType dt = xg.dtype();
  SeqForward f;
  // gates computed in place over the projection: one 8 MB buffer and one read stream fewer
  const GemmKernels& gemm = backend(xg).gemm;
  const RnnKernels& rnn_k = backend(xg).rnn;
  const bool in_place = xg_scratch && k == kLstm && dt == ScalarType::Float32 && gemm.packed_available() &&
                        xg.same(xg_) && xg.is_contiguous();
  f.gh = in_place ? xg : empty({T, B, GH}, dt, xg.device());
  f.y = empty({T, B, H}, dt, xg.device());
  if (k == kLstm) {
    f.c_all = empty({T, B, H}, dt, xg.device());
    f.tc = empty({T, B, H}, dt, xg.device());
  }
  // OpenBLAS is markedly faster on these short (M = batch) products with the weight
  // already transposed in memory than with a transposed view; one copy serves every step.
  // float32 on a vector CPU: the weight packed once for every step instead.
  Tensor w = dense(w_hh);
  PackedWeight wp;
  Tensor wT;
  if (dt == ScalarType::Float32 && gemm.packed_available())
    wp = pack_weight(gemm, w, H, GH, true);  // B[k][n] = w_hh[n][k]
  else wT = contiguous(t(w_hh), MemoryFormat::Contiguous);
  // LSTM adds b_hh inside its gate pass; the other cells after the GEMM.
  Tensor lstm_bias = k != kLstm ? Tensor() : b_hh.defined() ? dense(b_hh) : zeros({GH}, dt, xg.device());
  Tensor gemm_bias = k == kLstm ? Tensor() : b_hh;
  Tensor h = h0, c = c0;
  for (int64_t s = 0; s < T; ++s) {
    int64_t ti = time_of(s, T, reverse);
    Tensor gh = select(f.gh, 0, ti);
    if (wp.buf.defined()) {
      Tensor hd = dense(h);
      gemm.packed_gemm(B, hd.data<float>(), H, wp.b, gh.data<float>(), GH, in_place);
      if (gemm_bias.defined()) add_(gh, gemm_bias, kOne);
    } else {
      hidden_gemm(h, wT, gemm_bias, gh);
    }
    auto run = [&](auto tag) {
      using U = decltype(tag);
      if (k == kLstm) {
        const U* proj = in_place ? nullptr : at_step<U>(xg, ti);  // in place: already in gh
        LstmSeqRows<U> p{H,
                         proj,
                         c.data<U>(),
                         nullptr,
                         nullptr,
                         at_step<U>(f.gh, ti),
                         at_step<U>(f.c_all, ti),
                         at_step<U>(f.tc, ti),
                         at_step<U>(f.y, ti),
                         nullptr,
                         nullptr,
                         lstm_bias.data<U>()};
        rnn_k.lstm_seq(p, B, false);
        return;
      }
      Rows<U> p{k,       H,       at_step<U>(xg, ti),  at_step<U>(f.gh, ti),    h.data<U>(), cptr<U>(c),
                nullptr, nullptr, at_step<U>(f.y, ti), at_step<U>(f.c_all, ti), nullptr,     nullptr,
                nullptr, nullptr};
      rnn_k.cell_rows(p, B, false);
    };
    if (dt == ScalarType::Float32) run(float());
    else run(double());
    h = select(f.y, 0, ti);
    if (k == kLstm) c = select(f.c_all, 0, ti);
  }
  f.h_n = T ? clone(h, std::nullopt) : clone(h0, std::nullopt);
  if (k == kLstm) f.c_n = T ? clone(c, std::nullopt) : clone(c0, std::nullopt);
  return f;
}

Tensor previous_states(const SeqForward& f, const Tensor& h0, bool reverse) {
  const int64_t T = f.y.size(0);
  if (T == 0) return empty({0, h0.size(0), h0.size(1)}, h0.dtype(), h0.device());
  if (!reverse) return cat({unsqueeze(h0, 0), narrow(f.y, 0, 0, T - 1)}, 0);
  return cat({narrow(f.y, 0, 1, T - 1), unsqueeze(h0, 0)}, 0);
}

SeqGrads seq_backward(Kind k, const Tensor& xg_, const SeqForward& f, const Tensor& h0_, const Tensor& c0_,
                      const Tensor& w_hh, bool has_b_hh, const Tensor& g_y_, const Tensor& g_hn, const Tensor& g_cn,
                      bool reverse, bool hidden_weight_grads) {
  Tensor xg = dense(xg_), h0 = dense(h0_), c0 = c0_.defined() ? dense(c0_) : c0_;
  Tensor g_y = g_y_.defined() ? dense(g_y_) : g_y_;
  const int64_t T = xg.size(0), B = xg.size(1), GH = xg.size(2), H = h0.size(1);
  ScalarType dt = xg.dtype();
  SeqGrads r;
  r.d_xg = empty({T, B, GH}, dt, xg.device());
  // LSTM and the plain cells share one gate gradient for both GEMMs; GRU's new gate differs.
  Tensor d_gh = k == kGru ? empty({T, B, GH}, dt, xg.device()) : r.d_xg;
  Tensor dh = g_hn.defined() ? dense(g_hn) : zeros({B, H}, dt, xg.device());
  Tensor dc = k != kLstm ? Tensor() : g_cn.defined() ? dense(g_cn) : zeros({B, H}, dt, xg.device());
  Tensor d_hx = k == kGru ? empty({B, H}, dt, xg.device()) : Tensor();
  Tensor no_gy = k == kLstm && !g_y.defined() ? zeros({B, H}, dt, xg.device()) : Tensor();
  Tensor w = dense(w_hh);
  const GemmKernels& gemm = backend(xg).gemm;
  const RnnKernels& rnn_k = backend(xg).rnn;
  PackedWeight wp;
  if (dt == ScalarType::Float32 && gemm.packed_available()) wp = pack_weight(gemm, w, GH, H, false);
  for (int64_t s = T - 1; s >= 0; --s) {
    int64_t ti = time_of(s, T, reverse);
    Tensor h_prev = s == 0 ? h0 : select(f.y, 0, time_of(s - 1, T, reverse));
    Tensor c_prev = k != kLstm ? Tensor() : s == 0 ? c0 : select(f.c_all, 0, time_of(s - 1, T, reverse));
    if (g_y.defined() && k != kLstm) dh = add(dh, select(g_y, 0, ti), kOne);  // LSTM: in its gate pass
    Tensor dc_new = k == kLstm ? empty({B, H}, dt, xg.device()) : Tensor();
    auto run = [&](auto tag) {
      using U = decltype(tag);
      if (k == kLstm) {
        LstmSeqRows<U> p{H,
                         nullptr,
                         c_prev.data<U>(),
                         dh.data<U>(),
                         dc.data<U>(),
                         at_step<U>(f.gh, ti),
                         nullptr,
                         at_step<U>(f.tc, ti),
                         nullptr,
                         at_step<U>(r.d_xg, ti),
                         dc_new.data<U>()};
        p.gy_out = g_y.defined() ? at_step<U>(g_y, ti) : no_gy.data<U>();
        rnn_k.lstm_seq(p, B, true);
        return;
      }
      Rows<U> p{k,
                H,
                at_step<U>(xg, ti),
                at_step<U>(f.gh, ti),
                h_prev.data<U>(),
                cptr<U>(c_prev),
                dh.data<U>(),
                cptr<U>(dc),
                nullptr,
                nullptr,
                at_step<U>(r.d_xg, ti),
                at_step<U>(d_gh, ti),
                mptr<U>(d_hx),
                mptr<U>(dc_new)};
      rnn_k.cell_rows(p, B, true);
    };
    if (dt == ScalarType::Float32) run(float());
    else run(double());
    Tensor dg = select(d_gh, 0, ti);
    if (wp.buf.defined()) {
      dh = empty({B, H}, dt, xg.device());
      gemm.packed_gemm(B, dg.data<float>(), GH, wp.b, dh.data<float>(), H, false);
    } else {
      dh = hidden_grad_gemm(dg, w);
    }
    if (k == kGru) add_(dh, d_hx, kOne);
    dc = dc_new;
  }
  r.d_h0 = dh;
  r.d_c0 = dc;
  if (!hidden_weight_grads) return r;
  // dW_hh = sum_t d_gh[t]^T @ h_prev[t]: the previous states of every step side by side.
  Tensor dg2 = reshape(d_gh, {T * B, GH});
  r.d_w_hh = mm(t(dg2), reshape(previous_states(f, h0, reverse), {T * B, H}));
  if (has_b_hh) {
    const int64_t dims[] = {0};
    r.d_b_hh = sum(dg2, IntArrayRef(dims, 1), false, std::nullopt);
  }
  return r;
}

}  // namespace rnn

Tensor rnn_tanh_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                     const Tensor& b_hh) {
  return rnn::cell(rnn::kTanh, "rnn_tanh_cell", input, {hx}, w_ih, w_hh, b_ih, b_hh)[0];
}

Tensor rnn_relu_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                     const Tensor& b_hh) {
  return rnn::cell(rnn::kRelu, "rnn_relu_cell", input, {hx}, w_ih, w_hh, b_ih, b_hh)[0];
}

std::tuple<Tensor, Tensor> lstm_cell(const Tensor& input, const TensorList& hx, const Tensor& w_ih, const Tensor& w_hh,
                                     const Tensor& b_ih, const Tensor& b_hh) {
  EMBER_CHECK(hx.size() == 2, "lstm_cell expects two hidden states");
  TensorList r = rnn::cell(rnn::kLstm, "lstm_cell", input, hx, w_ih, w_hh, b_ih, b_hh);
  return {r[0], r[1]};
}

Tensor gru_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                const Tensor& b_hh) {
  return rnn::cell(rnn::kGru, "gru_cell", input, {hx}, w_ih, w_hh, b_ih, b_hh)[0];
}

}  // namespace ember
