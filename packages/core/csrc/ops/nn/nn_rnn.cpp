// Recurrent cells: rnn_tanh_cell, rnn_relu_cell, lstm_cell, gru_cell.
// Each is two GEMMs (input and hidden projections, biases folded in by addmm)
// followed by one fused pass over the gates; other dtypes take a composite path.
#include "ops/nn/nn_rnn.h"

#include <algorithm>
#include <memory>
#include <string_view>
#include <type_traits>

#include "core/parallel.h"
#include "kernels/backend.h"
#include "kernels/cpu/isa_variants.h"
#include "kernels/cpu/vec_math.h"
#if EMBER_HAVE_TARGETS
#include "kernels/cpu/gemm/tile512.h"
#include "kernels/cpu/rnn/gate_math512.h"
#endif
#include "kernels/cpu/gemm/packed_gemm.h"
#include "ops.h"

namespace ember {
namespace rnn {

namespace {
const Scalar kOne(int64_t(1));

// Rows per parallel chunk so that a chunk holds about kGrainSize gate elements.
int64_t row_grain(int64_t width) { return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(width, 1)); }

Tensor dense(const Tensor& t) { return t.is_contiguous() ? t : contiguous(t, MemoryFormat::Contiguous); }

// Pointers of one fused pass (forward: hy / cy; backward: the gate gradients).
template <class T>
struct Rows {
  Kind k;
  int64_t H;
  const T *gi, *gh, *hx, *cx, *ghy, *gcy;
  T *hy, *cy, *d_ih, *d_hh, *d_hx, *d_cx;
};

template <class T>
EMBER_VEC_INLINE void forward_rows(const Rows<T>& p, int64_t b0, int64_t b1) {
  const Kind k = p.k;
  const int64_t H = p.H, G = k == kLstm ? 4 : k == kGru ? 3 : 1;
  for (int64_t b = b0; b < b1; ++b) {
    const T* a = p.gi + b * G * H;
    const T* h = p.gh + b * G * H;
    T* out = p.hy + b * H;
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
      const T* c0 = p.cx + b * H;
      T* c1 = p.cy + b * H;
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
      const T* h0 = p.hx + b * H;
#pragma omp simd
      for (int64_t j = 0; j < H; ++j) {
        T r = vec::sigmoid(h[j] + a[j]);
        T z = vec::sigmoid(h[H + j] + a[H + j]);
        T n = vec::tanh(a[2 * H + j] + h[2 * H + j] * r);
        out[j] = (h0[j] - n) * z + n;
      }
    }
  }
}

template <class T>
EMBER_VEC_INLINE void backward_rows(const Rows<T>& p, int64_t b0, int64_t b1) {
  const Kind k = p.k;
  const int64_t H = p.H, G = k == kLstm ? 4 : k == kGru ? 3 : 1;
  for (int64_t b = b0; b < b1; ++b) {
    const T* a = p.gi + b * G * H;
    const T* h = p.gh + b * G * H;
    const T* gy = p.ghy ? p.ghy + b * H : nullptr;
    T* di = p.d_ih + b * G * H;
    T* dh = p.d_hh + b * G * H;
    if (k == kTanh || k == kRelu) {
#pragma omp simd
      for (int64_t j = 0; j < H; ++j) {
        T g = gy ? gy[j] : T(0);
        T v = h[j] + a[j];
        T y = vec::tanh(v);
        T d = k == kTanh ? g * (T(1) - y * y) : (v <= T(0) ? T(0) : g);  // NaN passes, as relu's backward
        di[j] = d;
        dh[j] = d;
      }
    } else if (k == kLstm) {
      const T* c0 = p.cx + b * H;
      const T* gc = p.gcy ? p.gcy + b * H : nullptr;
      T* dc0 = p.d_cx + b * H;
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
      const T* h0 = p.hx + b * H;
      T* dx = p.d_hx + b * H;
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
}

// The core library is built for baseline x86-64; these passes are the hot loop of every
// recurrent step, so AVX2 and AVX-512 copies are chosen at run time (16 lanes pay off
// directly: the gate passes are bound by their transcendentals).
EMBER_ISA_VARIANTS(forward_rows, Rows)
EMBER_ISA_VARIANTS(backward_rows, Rows)

template <class T>
void run_rows(const Rows<T>& p, int64_t B, bool backward) {
  const int64_t G = p.k == kLstm ? 4 : p.k == kGru ? 3 : 1;
  auto fn = backward ? backward_rows_best<T>() : forward_rows_best<T>();
  parallel_for(0, B, row_grain(G * p.H), [&](int64_t b0, int64_t b1) { fn(p, b0, b1); });
}

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

template <class T>
EMBER_VEC_INLINE void lstm_seq_fwd(const LstmSeqRows<T>& p, int64_t b0, int64_t b1) {
  const int64_t H = p.H;
  for (int64_t b = b0; b < b1; ++b) {
    const T* a = p.xg + b * 4 * H;
    const T* bb = p.bias;
    T* g = p.gates + b * 4 * H;
    const T* c0 = p.c0 + b * H;
    T *c1 = p.c1 + b * H, *tc = p.tc + b * H, *out = p.hy + b * H;
#pragma omp simd
    for (int64_t j = 0; j < H; ++j) {
      T ig = vec::sigmoid(g[j] + a[j] + bb[j]);
      T fg = vec::sigmoid(g[H + j] + a[H + j] + bb[H + j]);
      T gg = vec::tanh(g[2 * H + j] + a[2 * H + j] + bb[2 * H + j]);
      T og = vec::sigmoid(g[3 * H + j] + a[3 * H + j] + bb[3 * H + j]);
      g[j] = ig;
      g[H + j] = fg;
      g[2 * H + j] = gg;
      g[3 * H + j] = og;
      T c = fg * c0[j] + ig * gg;
      T t = vec::tanh(c);
      c1[j] = c;
      tc[j] = t;
      out[j] = og * t;
    }
  }
}

template <class T>
EMBER_VEC_INLINE void lstm_seq_bwd(const LstmSeqRows<T>& p, int64_t b0, int64_t b1) {
  const int64_t H = p.H;
  for (int64_t b = b0; b < b1; ++b) {
    const T* g = p.gates + b * 4 * H;
    const T *c0 = p.c0 + b * H, *tc = p.tc + b * H, *gy = p.gy + b * H, *gc = p.gc + b * H;
    const T* go = p.gy_out + b * H;
    T *d = p.d_g + b * 4 * H, *dc0 = p.d_c0 + b * H;
#pragma omp simd
    for (int64_t j = 0; j < H; ++j) {
      T ig = g[j], fg = g[H + j], gg = g[2 * H + j], og = g[3 * H + j], t = tc[j], dh = gy[j] + go[j];
      T dc = gc[j] + dh * og * (T(1) - t * t);
      d[j] = dc * gg * ig * (T(1) - ig);
      d[H + j] = dc * c0[j] * fg * (T(1) - fg);
      d[2 * H + j] = dc * ig * (T(1) - gg * gg);
      d[3 * H + j] = dh * t * og * (T(1) - og);
      dc0[j] = dc * fg;
    }
  }
}

EMBER_ISA_VARIANTS(lstm_seq_fwd, LstmSeqRows)
EMBER_ISA_VARIANTS(lstm_seq_bwd, LstmSeqRows)

#if EMBER_HAVE_TARGETS
// A gate's pre-activation at offset o: hidden GEMM + input projection + bias.
EMBER_TARGET_AVX512 inline __m512 gate_pre(__mmask16 m, const float* g, const float* a, const float* bias, int64_t o) {
  const __m512 v = _mm512_add_ps(_mm512_maskz_loadu_ps(m, g + o), _mm512_maskz_loadu_ps(m, bias + o));
  return a ? _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, a + o)) : v;  // a null: already in g
}

// lstm_seq_fwd for float32 on AVX-512 with gate512's activations (rcp14 + Newton instead of the
// divisions of vec::sigmoid / vec::tanh): the gate pass was ~19% of the LSTM forward.
EMBER_TARGET_AVX512 void lstm_seq_fwd_f32_512(const LstmSeqRows<float>& p, int64_t b0, int64_t b1) {
  const int64_t H = p.H;
  for (int64_t b = b0; b < b1; ++b) {
    const float* a = p.xg ? p.xg + b * 4 * H : nullptr;
    float* g = p.gates + b * 4 * H;
    const float* c0 = p.c0 + b * H;
    float *c1 = p.c1 + b * H, *tc = p.tc + b * H, *out = p.hy + b * H;
    for (int64_t j = 0; j < H; j += 16) {
      const __mmask16 m = tile512::lanes(H - j);
      const __m512 ig = gate512::sigmoid(gate_pre(m, g, a, p.bias, j)),
                   fg = gate512::sigmoid(gate_pre(m, g, a, p.bias, H + j)),
                   gg = gate512::tanh(gate_pre(m, g, a, p.bias, 2 * H + j)),
                   og = gate512::sigmoid(gate_pre(m, g, a, p.bias, 3 * H + j));
      _mm512_mask_storeu_ps(g + j, m, ig);
      _mm512_mask_storeu_ps(g + H + j, m, fg);
      _mm512_mask_storeu_ps(g + 2 * H + j, m, gg);
      _mm512_mask_storeu_ps(g + 3 * H + j, m, og);
      const __m512 c = _mm512_fmadd_ps(fg, _mm512_maskz_loadu_ps(m, c0 + j), _mm512_mul_ps(ig, gg));
      const __m512 t = gate512::tanh(c);
      _mm512_mask_storeu_ps(c1 + j, m, c);
      _mm512_mask_storeu_ps(tc + j, m, t);
      _mm512_mask_storeu_ps(out + j, m, _mm512_mul_ps(og, t));
    }
  }
}
#endif

template <class T>
void run_lstm_seq(const LstmSeqRows<T>& p, int64_t B, bool backward) {
  auto fn = backward ? lstm_seq_bwd_best<T>() : lstm_seq_fwd_best<T>();
#if EMBER_HAVE_TARGETS
  if constexpr (std::is_same_v<T, float>)
    if (!backward && cpu_has_avx512()) fn = lstm_seq_fwd_f32_512;
#endif
  parallel_for(0, B, row_grain(4 * p.H), [&](int64_t b0, int64_t b1) { fn(p, b0, b1); });
}

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
  auto run = [&](auto tag) {
    using T = decltype(tag);
    Rows<T> p{k,       H,           cptr<T>(gi), cptr<T>(gh), cptr<T>(hx), cptr<T>(cx), nullptr,
              nullptr, mptr<T>(hy), mptr<T>(cy), nullptr,     nullptr,     nullptr,     nullptr};
    run_rows(p, B, false);
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
  r.d_ih = empty(gi.sizes(), dt);
  r.d_hh = k == kLstm || k == kTanh || k == kRelu ? r.d_ih : empty(gi.sizes(), dt);
  if (k == kGru) r.d_hx = empty({B, H}, dt);
  if (k == kLstm) r.d_cx = empty({B, H}, dt);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    Rows<T> p{
        k,       H,       cptr<T>(gi),     cptr<T>(gh),     cptr<T>(hx),     cptr<T>(cx),    cptr<T>(ghy), cptr<T>(gcy),
        nullptr, nullptr, mptr<T>(r.d_ih), mptr<T>(r.d_hh), mptr<T>(r.d_hx), mptr<T>(r.d_cx)};
    run_rows(p, B, true);
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
  Tensor acc = empty({M, N}, dg.dtype());
  const GemmKernels& gemm = backend(dg).gemm;
  auto run = [&](auto tag) {
    using U = decltype(tag);
    const U *dp = dg.data<U>(), *wp = w_hh.data<U>();
    U* ap = acc.data<U>();
    if (K == 0) std::fill(ap, ap + M * N, U(0));
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
  const bool in_place = xg_scratch && k == kLstm && dt == ScalarType::Float32 && packed_gemm_available() &&
                        xg.same(xg_) && xg.is_contiguous();
  f.gh = in_place ? xg : empty({T, B, GH}, dt);
  f.y = empty({T, B, H}, dt);
  if (k == kLstm) {
    f.c_all = empty({T, B, H}, dt);
    f.tc = empty({T, B, H}, dt);
  }
  // OpenBLAS is markedly faster on these short (M = batch) products with the weight
  // already transposed in memory than with a transposed view; one copy serves every step.
  // float32 on a vector CPU: the weight packed once for every step instead.
  Tensor w = dense(w_hh);
  std::unique_ptr<PackedB> wp;
  Tensor wT;
  if (dt == ScalarType::Float32 && packed_gemm_available())
    wp = std::make_unique<PackedB>(w.data<float>(), H, GH, H, true);  // B[k][n] = w_hh[n][k]
  else wT = contiguous(t(w_hh), MemoryFormat::Contiguous);
  // LSTM adds b_hh inside its gate pass; the other cells after the GEMM.
  Tensor lstm_bias = k != kLstm ? Tensor() : b_hh.defined() ? dense(b_hh) : zeros({GH}, dt, std::nullopt);
  Tensor gemm_bias = k == kLstm ? Tensor() : b_hh;
  Tensor h = h0, c = c0;
  for (int64_t s = 0; s < T; ++s) {
    int64_t ti = time_of(s, T, reverse);
    Tensor gh = select(f.gh, 0, ti);
    if (wp) {
      Tensor hd = dense(h);
      packed_gemm(B, hd.data<float>(), H, *wp, gh.data<float>(), GH, in_place);
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
        run_lstm_seq(p, B, false);
        return;
      }
      Rows<U> p{k,       H,       at_step<U>(xg, ti),  at_step<U>(f.gh, ti),    h.data<U>(), cptr<U>(c),
                nullptr, nullptr, at_step<U>(f.y, ti), at_step<U>(f.c_all, ti), nullptr,     nullptr,
                nullptr, nullptr};
      run_rows(p, B, false);
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
  if (T == 0) return empty({0, h0.size(0), h0.size(1)}, h0.dtype());
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
  r.d_xg = empty({T, B, GH}, dt);
  // LSTM and the plain cells share one gate gradient for both GEMMs; GRU's new gate differs.
  Tensor d_gh = k == kGru ? empty({T, B, GH}, dt) : r.d_xg;
  Tensor dh = g_hn.defined() ? dense(g_hn) : zeros({B, H}, dt, std::nullopt);
  Tensor dc = k != kLstm ? Tensor() : g_cn.defined() ? dense(g_cn) : zeros({B, H}, dt, std::nullopt);
  Tensor d_hx = k == kGru ? empty({B, H}, dt) : Tensor();
  Tensor no_gy = k == kLstm && !g_y.defined() ? zeros({B, H}, dt, std::nullopt) : Tensor();
  Tensor w = dense(w_hh);
  std::unique_ptr<PackedB> wp;
  if (dt == ScalarType::Float32 && packed_gemm_available())
    wp = std::make_unique<PackedB>(w.data<float>(), GH, H, H, false);
  for (int64_t s = T - 1; s >= 0; --s) {
    int64_t ti = time_of(s, T, reverse);
    Tensor h_prev = s == 0 ? h0 : select(f.y, 0, time_of(s - 1, T, reverse));
    Tensor c_prev = k != kLstm ? Tensor() : s == 0 ? c0 : select(f.c_all, 0, time_of(s - 1, T, reverse));
    if (g_y.defined() && k != kLstm) dh = add(dh, select(g_y, 0, ti), kOne);  // LSTM: in its gate pass
    Tensor dc_new = k == kLstm ? empty({B, H}, dt) : Tensor();
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
        run_lstm_seq(p, B, true);
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
      run_rows(p, B, true);
    };
    if (dt == ScalarType::Float32) run(float());
    else run(double());
    Tensor dg = select(d_gh, 0, ti);
    if (wp) {
      dh = empty({B, H}, dt);
      packed_gemm(B, dg.data<float>(), GH, *wp, dh.data<float>(), H, false);
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
