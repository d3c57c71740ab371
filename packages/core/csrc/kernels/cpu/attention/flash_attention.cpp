// Fused scaled-dot-product attention for CPU (aten's _scaled_dot_product_flash_attention_for_cpu
// and its backward; the op bodies are ops/nn/nn_attention.cpp). Per (batch, head) and block of
// query rows: scores = Q K^T * scale (+ mask, causal), the row softmax kept as its log-sum-exp,
// out = P V. The backward recomputes P from the log-sum-exp block by block, so no L x S matrix
// outlives a block.
#include "kernels/cpu/attention/flash_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/half.h"
#include "core/parallel.h"
#include "kernels/backend.h"
#include "kernels/cpu/isa_variants.h"
#include "kernels/cpu/vec_math.h"

namespace ember::attention {

namespace {

constexpr int64_t kBlock = 64;  // query rows per block: the block's scores stay in L2

template <class T>
struct Rows {
  T* s;    // rows of n scores (ld apart), turned into probabilities
  T* lse;  // one log-sum-exp per row (forward: written; backward: read)
  int64_t n, ld;
  bool forward;
  bool nan_max;         // a NaN score makes the row's max NaN, so the row NaN (forward: always; torch_known_wrong
                        // sdpa-flash-nan-row: aten's scalar tail skips it, a row of NaN and -inf reads as masked)
  T* inv;               // forward: 1 / sum per row, applied to the output rows after P V (aten's order)
  ScalarType round_to;  // forward: the exps P V reads are rounded to this half type (aten's
                        // buffer of the input's dtype), Float32 / Float64 for none
};

// Row softmax in place. Forward: lse = max + log(sum exp(s - max)), s = exp(s - max) and
// inv = 1 / sum (the output rows are scaled after P V); a fully masked row (max -inf) has P = 0,
// lse = 0 and inv = 1, as aten's CPU kernel gives. Backward:
// s = exp(s - lse) with the saved lse, for every row (aten's recomputation).
template <class T>
EMBER_VEC_INLINE void softmax_rows(const Rows<T>& p, int64_t b, int64_t e) {
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  const int64_t S = p.n;
  for (int64_t r = b; r < e; ++r) {
    T* __restrict s = p.s + r * p.ld;
    if (!p.forward) {
      const T l = p.lse[r];
#pragma omp simd
      for (int64_t j = 0; j < S; ++j) s[j] = vec::exp(s[j] - l);
      continue;
    }
    T m = kNegInf;
    int nan = 0;
#pragma omp simd reduction(max : m) reduction(| : nan)
    for (int64_t j = 0; j < S; ++j) {
      m = s[j] > m ? s[j] : m;
      nan |= s[j] != s[j];
    }
    if (nan && p.nan_max) m = std::numeric_limits<T>::quiet_NaN();
    if (m == kNegInf) {
      for (int64_t j = 0; j < S; ++j) s[j] = T(0);
      p.lse[r] = T(0);
      p.inv[r] = T(1);
      continue;
    }
    T sum = 0;  // one exp per score: e = exp(s - max), summed unrounded
#pragma omp simd reduction(+ : sum)
    for (int64_t j = 0; j < S; ++j) {
      const T ev = vec::exp(s[j] - m);
      s[j] = ev;
      sum += ev;
    }
    p.lse[r] = m + std::log(sum);
    p.inv[r] = T(1) / sum;
    if (p.round_to == ScalarType::Float16 || p.round_to == ScalarType::BFloat16)
      for (int64_t j = 0; j < S; ++j) s[j] = rounded(s[j], p.round_to);
  }
}
EMBER_ISA_VARIANTS(softmax_rows, Rows)

// Keys a block of query rows [i0, i0 + m) sees: all S, or with a causal mask (top-left aligned,
// as aten) the first i0 + m; the rest have probability 0 and are never computed.
inline int64_t block_keys(const Dims& d, int64_t i0, int64_t m, bool is_causal) {
  return is_causal ? std::min(d.S, i0 + m) : d.S;
}

// For each column e of V (S x Ev): the last key whose value there is inf or NaN, -1 for none.
// A skipped key's probability is 0, and 0 * inf is NaN in P V, as aten (and its math path) give.
template <class T>
void last_nonfinite_keys(const T* v, int64_t ldv, const Dims& d, std::vector<int64_t>& last) {
  last.assign(static_cast<size_t>(d.Ev), -1);
  for (int64_t j = 0; j < d.S; ++j)
    for (int64_t e = 0; e < d.Ev; ++e)
      if (!std::isfinite(v[j * ldv + e])) last[static_cast<size_t>(e)] = j;
}

// scores[m x n] (rows S apart) of query rows [i0, i0 + m) against the first n keys of one
// (batch, head) (rows ldq / ldk apart): Q K^T * scale, plus the mask, -inf above the diagonal
// when causal.
template <class T>
void block_scores(const GemmKernels& gemm, const T* q, int64_t ldq, const T* k, int64_t ldk, const Dims& d, T scale,
                  int64_t i0, int64_t m, int64_t n, bool is_causal, const MaskView& mv, int64_t b, int64_t h, T* sc) {
  gemm(false, true, m, n, d.E, scale, q + i0 * ldq, ldq, k, ldk, T(0), sc, d.S);
  if (mv.p) {
    const T* mp = static_cast<const T*>(mv.p) + b * mv.sb + h * mv.sh;
    for (int64_t r = 0; r < m; ++r) {
      const T* row = mp + (i0 + r) * mv.sl;
      T* s = sc + r * d.S;
      for (int64_t j = 0; j < n; ++j) s[j] += row[j * mv.ss];
    }
  }
  if (is_causal)
    for (int64_t r = 0; r < m; ++r)
      for (int64_t j = i0 + r + 1; j < n; ++j) sc[r * d.S + j] = -std::numeric_limits<T>::infinity();
}

template <class T>
void forward_impl(const FlashForward<T>& a) {
  const Dims& d = a.d;
  const MaskView& mv = a.mask;
  const bool is_causal = a.is_causal;
  const double sc = a.scale;
  const ScalarType round_to = a.round_to;
  auto rows = softmax_rows_best<T>();
  const GemmKernels& gemm = cpu_backend().gemm;
  GilRelease nogil;
  parallel_for(0, d.B * d.H, 1, [&](int64_t bh0, int64_t bh1) {
    std::vector<T> buf(static_cast<size_t>(std::min(kBlock, d.L) * d.S)), inv(static_cast<size_t>(kBlock));
    std::vector<int64_t> last_bad;
    for (int64_t bh = bh0; bh < bh1; ++bh) {
      const T* qb = a.q.head(bh, d.H);
      const T* kb = a.k.head(bh, d.H);
      const T* vb = a.v.head(bh, d.H);
      T* ob = a.out + bh * d.L * d.Ev;
      T* lb = a.lse + bh * d.L;
      if (is_causal) last_nonfinite_keys(vb, a.v.sl, d, last_bad);
      for (int64_t i0 = 0; i0 < d.L; i0 += kBlock) {
        const int64_t m = std::min(kBlock, d.L - i0), n = block_keys(d, i0, m, is_causal);
        block_scores(gemm, qb, a.q.sl, kb, a.k.sl, d, T(sc), i0, m, n, is_causal, mv, bh / d.H, bh % d.H, buf.data());
        rows(Rows<T>{buf.data(), lb + i0, n, d.S, true, true, inv.data(), round_to}, 0, m);
        gemm(false, false, m, d.Ev, n, T(1), buf.data(), d.S, vb, a.v.sl, T(0), ob + i0 * d.Ev, d.Ev);
        for (int64_t r = 0; r < m; ++r)
          for (int64_t e = 0; e < d.Ev; ++e) ob[(i0 + r) * d.Ev + e] *= inv[r];
        if (n < d.S)  // the skipped keys' 0 * inf / 0 * NaN
          for (int64_t e = 0; e < d.Ev; ++e)
            if (last_bad[static_cast<size_t>(e)] >= n)
              for (int64_t r = 0; r < m; ++r) ob[(i0 + r) * d.Ev + e] = std::numeric_limits<T>::quiet_NaN();
      }
    }
  });
}

template <class T>
void backward_impl(const FlashBackward<T>& a) {
  const Dims& d = a.d;
  const MaskView& mv = a.mask;
  const bool is_causal = a.is_causal;
  const double sc = a.scale;
  auto rows = softmax_rows_best<T>();
  const GemmKernels& gemm = cpu_backend().gemm;
  GilRelease nogil;
  parallel_for(0, d.B * d.H, 1, [&](int64_t bh0, int64_t bh1) {
    const int64_t mb = std::min(kBlock, d.L);
    std::vector<T> p(static_cast<size_t>(mb * d.S)), dp(static_cast<size_t>(mb * d.S)), D(static_cast<size_t>(mb));
    for (int64_t bh = bh0; bh < bh1; ++bh) {
      const T* qb = a.q.head(bh, d.H);
      const T* kb = a.k.head(bh, d.H);
      const T* vb = a.v.head(bh, d.H);
      const T* ob = a.out + bh * d.L * d.Ev;
      const T* gb = a.grad_out.head(bh, d.H);
      const int64_t ldq = a.q.sl, ldk = a.k.sl, ldv = a.v.sl, ldg = a.grad_out.sl;
      T* lb = const_cast<T*>(a.lse) + bh * d.L;  // read only: Rows' backward never writes it
      T* dqb = a.dq + bh * d.L * d.E;
      T* dkb = a.dk + bh * d.S * d.E;
      T* dvb = a.dv + bh * d.S * d.Ev;
      std::fill(dkb, dkb + d.S * d.E, T(0));  // every block of query rows adds its share
      std::fill(dvb, dvb + d.S * d.Ev, T(0));
      for (int64_t i0 = 0; i0 < d.L; i0 += kBlock) {
        const int64_t m = std::min(kBlock, d.L - i0), n = block_keys(d, i0, m, is_causal);
        block_scores(gemm, qb, ldq, kb, ldk, d, T(sc), i0, m, n, is_causal, mv, bh / d.H, bh % d.H, p.data());
        rows(Rows<T>{p.data(), lb + i0, n, d.S, false, false, nullptr, ScalarType::Float64}, 0, m);
        // dV += P^T dO;  dP = dO V^T;  dS = P * (dP - rowsum(dO * O))  (first n keys)
        gemm(true, false, n, d.Ev, m, T(1), p.data(), d.S, gb + i0 * ldg, ldg, T(1), dvb, d.Ev);
        gemm(false, true, m, n, d.Ev, T(1), gb + i0 * ldg, ldg, vb, ldv, T(0), dp.data(), d.S);
        for (int64_t r = 0; r < m; ++r) {
          T acc = 0;
          for (int64_t e = 0; e < d.Ev; ++e) acc += gb[(i0 + r) * ldg + e] * ob[(i0 + r) * d.Ev + e];
          D[r] = acc;
        }
        for (int64_t r = 0; r < m; ++r) {
          T* ds = dp.data() + r * d.S;
          const T* pr = p.data() + r * d.S;
#pragma omp simd
          for (int64_t j = 0; j < n; ++j) ds[j] = pr[j] * (ds[j] - D[r]);
        }
        // dQ = dS K * scale;  dK += dS^T Q * scale
        gemm(false, false, m, d.E, n, T(sc), dp.data(), d.S, kb, ldk, T(0), dqb + i0 * d.E, d.E);
        gemm(true, false, n, d.E, m, T(sc), dp.data(), d.S, qb + i0 * ldq, ldq, T(1), dkb, d.E);
      }
    }
  });
}

}  // namespace

void flash_forward(const FlashForward<float>& a) { forward_impl(a); }
void flash_forward(const FlashForward<double>& a) { forward_impl(a); }
void flash_backward(const FlashBackward<float>& a) { backward_impl(a); }
void flash_backward(const FlashBackward<double>& a) { backward_impl(a); }

}  // namespace ember::attention
