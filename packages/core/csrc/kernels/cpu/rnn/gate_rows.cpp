// The recurrent cells' fused gate passes (kernels/backend.h, RnnKernels): one pass over the
// gates per step, forward (hy / cy) and backward (the gate gradients), for the cells and for the
// LSTM sequence path. The op bodies are ops/nn/nn_rnn.cpp.
#include "kernels/cpu/rnn/gate_rows.h"

#include <algorithm>
#include <type_traits>

#include "core/parallel.h"
#include "kernels/cpu/isa_variants.h"
#include "kernels/cpu/vec_math.h"
#if EMBER_HAVE_TARGETS
#include "kernels/cpu/gemm/tile512.h"
#include "kernels/cpu/rnn/gate_math512.h"
#endif

namespace ember::rnn {

namespace {

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

}  // namespace

void cell_rows(const Rows<float>& p, int64_t B, bool backward) { run_rows(p, B, backward); }
void cell_rows(const Rows<double>& p, int64_t B, bool backward) { run_rows(p, B, backward); }
void lstm_seq(const LstmSeqRows<float>& p, int64_t B, bool backward) { run_lstm_seq(p, B, backward); }
void lstm_seq(const LstmSeqRows<double>& p, int64_t B, bool backward) { run_lstm_seq(p, B, backward); }

}  // namespace ember::rnn
