// Recurrent cells: rnn_tanh_cell, rnn_relu_cell, lstm_cell, gru_cell.
// Each is two GEMMs (input and hidden projections, biases folded in by addmm)
// followed by one fused pass over the gates; other dtypes take a composite path.
#include "nn_rnn.h"

#include <algorithm>

#include "../autograd/formulas_nn_rnn.h"
#include "../autograd/grad_mode.h"
#include "../core/parallel.h"
#include "../kernels/cpu/vec_math.h"
#include "ops.h"

namespace ember {
namespace rnn {

namespace {
const Scalar kOne(int64_t(1));

// Rows per parallel chunk so that a chunk holds about kGrainSize gate elements.
int64_t row_grain(int64_t width) { return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(width, 1)); }

Tensor dense(const Tensor& t) { return t.is_contiguous() ? t : contiguous(t, MemoryFormat::Contiguous); }

template <class T>
void forward_rows(Kind k, int64_t B, int64_t H, const T* gi, const T* gh, const T* hx, const T* cx, T* hy, T* cy) {
  const int64_t G = k == kLstm ? 4 : k == kGru ? 3 : 1;
  parallel_for(0, B, row_grain(G * H), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const T* a = gi + b * G * H;
      const T* h = gh + b * G * H;
      T* out = hy + b * H;
      if (k == kTanh) {
#pragma omp simd
        for (int64_t j = 0; j < H; ++j) out[j] = vec::tanh(h[j] + a[j]);
      } else if (k == kRelu) {
#pragma omp simd
        for (int64_t j = 0; j < H; ++j) {
          T v = h[j] + a[j];
          out[j] = v > T(0) ? v : (v != v ? v : T(0));
        }
      } else if (k == kLstm) {
        const T* c0 = cx + b * H;
        T* c1 = cy + b * H;
#pragma omp simd
        for (int64_t j = 0; j < H; ++j) {
          T ig = vec::sigmoid(h[j] + a[j]);
          T fg = vec::sigmoid(h[H + j] + a[H + j]);
          T gg = vec::tanh(h[2 * H + j] + a[2 * H + j]);
          T og = vec::sigmoid(h[3 * H + j] + a[3 * H + j]);
          T c = fg * c0[j] + ig * gg;
          c1[j] = c;
          out[j] = og * vec::tanh(c);
        }
      } else {
        const T* h0 = hx + b * H;
#pragma omp simd
        for (int64_t j = 0; j < H; ++j) {
          T r = vec::sigmoid(h[j] + a[j]);
          T z = vec::sigmoid(h[H + j] + a[H + j]);
          T n = vec::tanh(a[2 * H + j] + h[2 * H + j] * r);
          out[j] = (h0[j] - n) * z + n;
        }
      }
    }
  });
}

template <class T>
void backward_rows(Kind k, int64_t B, int64_t H, const T* gi, const T* gh, const T* hx, const T* cx, const T* ghy,
                   const T* gcy, T* d_ih, T* d_hh, T* d_hx, T* d_cx) {
  const int64_t G = k == kLstm ? 4 : k == kGru ? 3 : 1;
  parallel_for(0, B, row_grain(G * H), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const T* a = gi + b * G * H;
      const T* h = gh + b * G * H;
      const T* gy = ghy ? ghy + b * H : nullptr;
      T* di = d_ih + b * G * H;
      T* dh = d_hh + b * G * H;
      if (k == kTanh || k == kRelu) {
        for (int64_t j = 0; j < H; ++j) {
          T g = gy ? gy[j] : T(0);
          T v = h[j] + a[j];
          T d;
          if (k == kTanh) {
            T y = vec::tanh(v);
            d = g * (T(1) - y * y);
          } else {
            d = v > T(0) ? g : T(0);
          }
          di[j] = d;
          dh[j] = d;
        }
      } else if (k == kLstm) {
        const T* c0 = cx + b * H;
        const T* gc = gcy ? gcy + b * H : nullptr;
        T* dc0 = d_cx + b * H;
#pragma omp simd
        for (int64_t j = 0; j < H; ++j) {
          T ig = vec::sigmoid(h[j] + a[j]);
          T fg = vec::sigmoid(h[H + j] + a[H + j]);
          T gg = vec::tanh(h[2 * H + j] + a[2 * H + j]);
          T og = vec::sigmoid(h[3 * H + j] + a[3 * H + j]);
          T c = fg * c0[j] + ig * gg;
          T tc = vec::tanh(c);
          T g = gy ? gy[j] : T(0);
          T dc = (gc ? gc[j] : T(0)) + g * og * (T(1) - tc * tc);
          T v0 = dc * gg * ig * (T(1) - ig);
          T v1 = dc * c0[j] * fg * (T(1) - fg);
          T v2 = dc * ig * (T(1) - gg * gg);
          T v3 = g * tc * og * (T(1) - og);
          di[j] = dh[j] = v0;
          di[H + j] = dh[H + j] = v1;
          di[2 * H + j] = dh[2 * H + j] = v2;
          di[3 * H + j] = dh[3 * H + j] = v3;
          dc0[j] = dc * fg;
        }
      } else {
        const T* h0 = hx + b * H;
        T* dx = d_hx + b * H;
#pragma omp simd
        for (int64_t j = 0; j < H; ++j) {
          T r = vec::sigmoid(h[j] + a[j]);
          T z = vec::sigmoid(h[H + j] + a[H + j]);
          T hn = h[2 * H + j];
          T n = vec::tanh(a[2 * H + j] + hn * r);
          T g = gy ? gy[j] : T(0);
          T dn = g * (T(1) - z) * (T(1) - n * n);
          T dz = g * (h0[j] - n) * z * (T(1) - z);
          T dr = dn * hn * r * (T(1) - r);
          di[j] = dh[j] = dr;
          di[H + j] = dh[H + j] = dz;
          di[2 * H + j] = dn;
          dh[2 * H + j] = dn * r;
          dx[j] = g * z;
        }
      }
    }
  });
}

}  // namespace

void check_cell(const char* op, const Tensor& input, const TensorList& hx, const Tensor& w_ih, const Tensor& w_hh) {
  (void)op;
  EMBER_CHECK(w_ih.dim() == 2 && w_hh.dim() == 2, op, ": expected 2-D weights, got w_ih of ", w_ih.dim(),
              " and w_hh of ", w_hh.dim(), " dimensions");
  int64_t in = input.size(1);  // IndexError for a 1-D input, as PyTorch
  EMBER_CHECK(in == w_ih.size(1), "input has inconsistent input_size: got ", in, " expected ", w_ih.size(1));
  for (size_t i = 0; i < hx.size(); ++i) {
    const Tensor& h = hx[i];
    EMBER_CHECK(input.size(0) == h.size(0), "Input batch size ", input.size(0), " doesn't match hidden", i,
                " batch size ", h.size(0));
    EMBER_CHECK(h.size(1) == w_hh.size(1), "hidden", i, " has inconsistent hidden_size: got ", h.size(1),
                ", expected ", w_hh.size(1));
  }
}

Tensor gate_matrix(const Tensor& x, const Tensor& w, const Tensor& b) {
  return b.defined() ? addmm(b, x, t(w), kOne, kOne) : mm(x, t(w));
}

bool fused_ok(const TensorList& ts) {
  ScalarType dt = ts[0].dtype();
  if (dt != ScalarType::Float32 && dt != ScalarType::Float64) return false;
  for (const Tensor& x : ts)
    if (x.defined() && (x.dtype() != dt || x.device().type != DeviceType::CPU)) return false;
  return true;
}

TensorList fused_forward(Kind k, const Tensor& gi_, const Tensor& gh_, const Tensor& hx_, const Tensor& cx_) {
  Tensor gi = dense(gi_), gh = dense(gh_), hx = dense(hx_);
  Tensor cx = cx_.defined() ? dense(cx_) : cx_;
  int64_t B = hx.size(0), H = hx.size(1);
  Tensor hy = empty({B, H}, gi.dtype());
  Tensor cy = k == kLstm ? empty({B, H}, gi.dtype()) : Tensor();
  if (gi.dtype() == ScalarType::Float32)
    forward_rows<float>(k, B, H, gi.data<float>(), gh.data<float>(), hx.data<float>(),
                        cx.defined() ? cx.data<float>() : nullptr, hy.data<float>(),
                        cy.defined() ? cy.data<float>() : nullptr);
  else
    forward_rows<double>(k, B, H, gi.data<double>(), gh.data<double>(), hx.data<double>(),
                         cx.defined() ? cx.data<double>() : nullptr, hy.data<double>(),
                         cy.defined() ? cy.data<double>() : nullptr);
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
  r.d_ih = empty(gi.sizes(), dt);
  r.d_hh = k == kLstm || k == kTanh || k == kRelu ? r.d_ih : empty(gi.sizes(), dt);
  if (k == kGru) r.d_hx = empty({B, H}, dt);
  if (k == kLstm) r.d_cx = empty({B, H}, dt);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    auto p = [](const Tensor& x) { return x.defined() ? x.data<T>() : static_cast<T*>(nullptr); };
    backward_rows<T>(k, B, H, p(gi), p(gh), p(hx), p(cx), p(ghy), p(gcy), p(r.d_ih), p(r.d_hh), p(r.d_hx),
                     p(r.d_cx));
  };
  if (dt == ScalarType::Float32)
    run(float());
  else
    run(double());
  return r;
}

// One cell step: checks, the two GEMMs, then the fused pass or the composite.
TensorList cell(Kind k, const char* op, const Tensor& input, const TensorList& hx, const Tensor& w_ih,
                const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh) {
  check_cell(op, input, hx, w_ih, w_hh);
  Tensor gi = gate_matrix(input, w_ih, b_ih);
  Tensor gh = gate_matrix(hx[0], w_hh, b_hh);
  Tensor cx = k == kLstm ? hx[1] : Tensor();
  if (fused_ok({gi, gh, hx[0], cx})) return fused_forward(k, gi, gh, hx[0], cx);
  AutoGradMode no_grad(false);
  return cell_math(k, gi, gh, hx[0], cx);
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
