// Fused scaled-dot-product attention for CPU, aten's _scaled_dot_product_flash_attention_for_cpu
// and its backward. Per (batch, head) and block of query rows: scores = Q K^T * scale (+ mask,
// causal), the row softmax kept as its log-sum-exp, out = P V. The backward recomputes P from the
// log-sum-exp block by block, so no L x S matrix outlives a block (the composed version kept the
// scores, the probabilities and their gradients for the whole batch).
#include <cmath>
#include <limits>
#include <vector>

#include "../core/parallel.h"
#include "../kernels/cpu/isa_variants.h"
#include "../kernels/cpu/vec_math.h"
#include "blas_gemm.h"
#include "checks.h"
#include "nn_norm_common.h"
#include "ops.h"

namespace ember {

namespace {

using norm_detail::dense;
using norm_detail::dense_as;

constexpr int64_t kBlock = 64;  // query rows per block: the block's scores stay in L2

struct Dims {
  int64_t B, H, L, S, E, Ev;
};

Dims check_inputs(const Tensor& q, const Tensor& k, const Tensor& v, double dropout_p, bool is_causal,
                  const Tensor& mask) {
  const char* op = "scaled_dot_product_attention_flash_attention";
  // aten reads the query's sizes 0, 2 and 1 before any check: an IndexError below 3 dims.
  for (int64_t dim : {0, 2, 1}) (void)q.size(dim);
  EMBER_CHECK(q.dim() == 4 && k.dim() == 4 && v.dim() == 4, op, ": Accept only 4 dims inputs shape of {B, H, T, K}");
  EMBER_CHECK(dropout_p == 0.0, op, ": Currently do not support dropout > 0");
  EMBER_CHECK(q.dtype() == k.dtype() && q.dtype() == v.dtype(), op, ": Q/K/V should have the same data type, got ",
              dtype_name(q.dtype()), ", ", dtype_name(k.dtype()), " and ", dtype_name(v.dtype()));
  EMBER_CHECK_NOTIMPL(q.dtype() == ScalarType::Float32 || q.dtype() == ScalarType::Float64, op,
                      ": not implemented for '", legacy_name(q.dtype()), "'");
  const Dims d{q.size(0), q.size(1), q.size(2), k.size(2), q.size(3), v.size(3)};
  EMBER_CHECK(k.size(0) == d.B && v.size(0) == d.B && k.size(1) == d.H && v.size(1) == d.H, op,
              ": Q/K/V should have the same batch size and number of heads, got ", shape_str(q.sizes()), ", ",
              shape_str(k.sizes()), " and ", shape_str(v.sizes()));
  EMBER_CHECK(k.size(3) == d.E && v.size(2) == d.S, op, ": Q/K/V shapes do not match: ", shape_str(q.sizes()), ", ",
              shape_str(k.sizes()), " and ", shape_str(v.sizes()));
  if (mask.defined()) {
    // aten takes a float32 mask beside any query dtype (its accumulation type), or the query's.
    EMBER_CHECK(mask.dtype() == q.dtype() || mask.dtype() == ScalarType::Float32, op, ": Attention mask is the same data type as query, got ",
                dtype_name(mask.dtype()), " and ", dtype_name(q.dtype()));
    EMBER_CHECK(mask.dim() <= 4, op, ": attn_mask must have at most 4 dims, got ", shape_str(mask.sizes()));
  }
  return d;
}

// The mask seen as (B, H, L, S) with stride 0 where it broadcasts.
struct MaskView {
  const void* p = nullptr;
  int64_t sb = 0, sh = 0, sl = 0, ss = 0;
};

MaskView mask_view(const Tensor& mask, const Dims& d) {
  MaskView m;
  if (!mask.defined()) return m;
  Tensor e = expand(mask, DimVector{d.B, d.H, d.L, d.S}, false);
  m.p = e.raw();  // the expanded view shares mask's storage, which the caller keeps alive
  m.sb = e.strides()[0], m.sh = e.strides()[1], m.sl = e.strides()[2], m.ss = e.strides()[3];
  return m;
}

template <class T>
struct Rows {
  T* s;    // rows of n scores (ld apart), turned into probabilities
  T* lse;  // one log-sum-exp per row (forward: written; backward: read)
  int64_t n, ld;
  bool forward;
};

// Row softmax in place. Forward: lse = max + log(sum exp(s - max)), s = exp(s - max) / sum.
// Backward: s = exp(s - lse) with the saved lse. A fully masked row (all -inf) has P = 0 and
// lse = 0, as aten's CPU kernel gives.
template <class T>
EMBER_VEC_INLINE void softmax_rows(const Rows<T>& p, int64_t b, int64_t e) {
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  const int64_t S = p.n;
  for (int64_t r = b; r < e; ++r) {
    T* __restrict s = p.s + r * p.ld;
    T m = kNegInf;
#pragma omp simd reduction(max : m)
    for (int64_t j = 0; j < S; ++j) m = s[j] > m ? s[j] : m;
    if (m == kNegInf) {
      for (int64_t j = 0; j < S; ++j) s[j] = T(0);
      if (p.forward) p.lse[r] = T(0);
      continue;
    }
    if (p.forward) {  // one exp per score: e = exp(s - max), then scaled by 1 / sum
      T sum = 0;
#pragma omp simd reduction(+ : sum)
      for (int64_t j = 0; j < S; ++j) {
        const T ev = vec::exp(s[j] - m);
        s[j] = ev;
        sum += ev;
      }
      p.lse[r] = m + std::log(sum);
      const T inv = T(1) / sum;
#pragma omp simd
      for (int64_t j = 0; j < S; ++j) s[j] *= inv;
    } else {
      const T l = p.lse[r];
#pragma omp simd
      for (int64_t j = 0; j < S; ++j) s[j] = vec::exp(s[j] - l);
    }
  }
}
EMBER_ISA_VARIANTS(softmax_rows, Rows)

// Keys a block of query rows [i0, i0 + m) sees: all S, or with a causal mask (top-left aligned,
// as aten) the first i0 + m; the rest have probability 0 and are never computed.
inline int64_t block_keys(const Dims& d, int64_t i0, int64_t m, bool is_causal) {
  return is_causal ? std::min(d.S, i0 + m) : d.S;
}

// scores[m x n] (rows S apart) of query rows [i0, i0 + m) against the first n keys of one
// (batch, head): Q K^T * scale, plus the mask, -inf above the diagonal when causal.
template <class T>
void block_scores(const T* q, const T* k, const Dims& d, T scale, int64_t i0, int64_t m, int64_t n, bool is_causal,
                  const MaskView& mv, int64_t b, int64_t h, T* sc) {
  blas_gemm(false, true, m, n, d.E, scale, q + i0 * d.E, d.E, k, d.E, T(0), sc, d.S);
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
void forward_impl(const Tensor& q, const Tensor& k, const Tensor& v, Tensor& out, Tensor& lse, const Dims& d,
                  bool is_causal, const MaskView& mv, double sc) {
  auto rows = softmax_rows_best<T>();
  GilRelease nogil;
  parallel_for(0, d.B * d.H, 1, [&](int64_t bh0, int64_t bh1) {
    std::vector<T> buf(static_cast<size_t>(std::min(kBlock, d.L) * d.S));
    for (int64_t bh = bh0; bh < bh1; ++bh) {
      const T* qb = q.data<T>() + bh * d.L * d.E;
      const T* kb = k.data<T>() + bh * d.S * d.E;
      const T* vb = v.data<T>() + bh * d.S * d.Ev;
      T* ob = out.data<T>() + bh * d.L * d.Ev;
      T* lb = lse.data<T>() + bh * d.L;
      for (int64_t i0 = 0; i0 < d.L; i0 += kBlock) {
        const int64_t m = std::min(kBlock, d.L - i0), n = block_keys(d, i0, m, is_causal);
        block_scores(qb, kb, d, T(sc), i0, m, n, is_causal, mv, bh / d.H, bh % d.H, buf.data());
        rows(Rows<T>{buf.data(), lb + i0, n, d.S, true}, 0, m);
        blas_gemm(false, false, m, d.Ev, n, T(1), buf.data(), d.S, vb, d.Ev, T(0), ob + i0 * d.Ev, d.Ev);
      }
    }
  });
}

template <class T>
void backward_impl(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& o, const Tensor& go,
                   const Tensor& lse, Tensor& dq, Tensor& dk, Tensor& dv, const Dims& d, bool is_causal,
                   const MaskView& mv, double sc) {
  auto rows = softmax_rows_best<T>();
  GilRelease nogil;
  parallel_for(0, d.B * d.H, 1, [&](int64_t bh0, int64_t bh1) {
    const int64_t mb = std::min(kBlock, d.L);
    std::vector<T> p(static_cast<size_t>(mb * d.S)), dp(static_cast<size_t>(mb * d.S)), D(static_cast<size_t>(mb));
    for (int64_t bh = bh0; bh < bh1; ++bh) {
      const T* qb = q.data<T>() + bh * d.L * d.E;
      const T* kb = k.data<T>() + bh * d.S * d.E;
      const T* vb = v.data<T>() + bh * d.S * d.Ev;
      const T* ob = o.data<T>() + bh * d.L * d.Ev;
      const T* gb = go.data<T>() + bh * d.L * d.Ev;
      T* lb = lse.data<T>() + bh * d.L;
      T* dqb = dq.data<T>() + bh * d.L * d.E;
      T* dkb = dk.data<T>() + bh * d.S * d.E;
      T* dvb = dv.data<T>() + bh * d.S * d.Ev;
      for (int64_t i0 = 0; i0 < d.L; i0 += kBlock) {
        const int64_t m = std::min(kBlock, d.L - i0), n = block_keys(d, i0, m, is_causal);
        block_scores(qb, kb, d, T(sc), i0, m, n, is_causal, mv, bh / d.H, bh % d.H, p.data());
        rows(Rows<T>{p.data(), lb + i0, n, d.S, false}, 0, m);
        // dV += P^T dO;  dP = dO V^T;  dS = P * (dP - rowsum(dO * O))  (first n keys)
        blas_gemm(true, false, n, d.Ev, m, T(1), p.data(), d.S, gb + i0 * d.Ev, d.Ev, T(1), dvb, d.Ev);
        blas_gemm(false, true, m, n, d.Ev, T(1), gb + i0 * d.Ev, d.Ev, vb, d.Ev, T(0), dp.data(), d.S);
        for (int64_t r = 0; r < m; ++r) {
          T acc = 0;
          for (int64_t e = 0; e < d.Ev; ++e) acc += gb[(i0 + r) * d.Ev + e] * ob[(i0 + r) * d.Ev + e];
          D[r] = acc;
        }
        for (int64_t r = 0; r < m; ++r) {
          T* ds = dp.data() + r * d.S;
          const T* pr = p.data() + r * d.S;
#pragma omp simd
          for (int64_t j = 0; j < n; ++j) ds[j] = pr[j] * (ds[j] - D[r]);
        }
        // dQ = dS K * scale;  dK += dS^T Q * scale
        blas_gemm(false, false, m, d.E, n, T(sc), dp.data(), d.S, kb, d.E, T(0), dqb + i0 * d.E, d.E);
        blas_gemm(true, false, n, d.E, m, T(sc), dp.data(), d.S, qb + i0 * d.E, d.E, T(1), dkb, d.E);
      }
    }
  });
}

}  // namespace

std::tuple<Tensor, Tensor> nn_sdpa_flash(const Tensor& query, const Tensor& key, const Tensor& value, double dropout_p,
                                         bool is_causal, const Tensor& attn_mask, std::optional<double> scale) {
  const Dims d = check_inputs(query, key, value, dropout_p, is_causal, attn_mask);
  Tensor q = dense(query), k = dense(key), v = dense(value);
  Tensor out = empty({d.B, d.H, d.L, d.Ev}, q.dtype()), lse = empty({d.B, d.H, d.L}, q.dtype());
  const Tensor mask = attn_mask.defined() && attn_mask.dtype() != q.dtype() ? to_dtype(attn_mask, q.dtype())
                                                                          : attn_mask;
  const MaskView mv = mask_view(mask, d);
  const double sc = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(d.E));
  if (out.numel() == 0 && lse.numel() == 0) return {out, lse};
  if (q.dtype() == ScalarType::Float32)
    forward_impl<float>(q, k, v, out, lse, d, is_causal, mv, sc);
  else
    forward_impl<double>(q, k, v, out, lse, d, is_causal, mv, sc);
  return {out, lse};
}

std::tuple<Tensor, Tensor, Tensor> nn_sdpa_flash_backward(const Tensor& grad_out, const Tensor& query,
                                                          const Tensor& key, const Tensor& value, const Tensor& out,
                                                          const Tensor& logsumexp, double dropout_p, bool is_causal,
                                                          const Tensor& attn_mask, std::optional<double> scale) {
  // aten transposes (1, 2) each of these first: an IndexError for one with fewer dims.
  for (const Tensor* t : {&grad_out, &query, &key, &value, &out, &logsumexp}) {
    (void)wrap_dim(1, t->dim());
    (void)wrap_dim(2, t->dim());
  }
  // ... and its kernel dispatches on the query's dtype before the forward's checks.
  EMBER_CHECK_NOTIMPL(is_floating(query.dtype()), "\"flash_attention_backward\" not implemented for '",
                      legacy_name(query.dtype()), "'");
  // The kernel reads the head size (dim 3) of the query, key and value: an IndexError below 4 dims.
  for (const Tensor* t : {&query, &key, &value}) (void)t->size(3);
  const Dims d = check_inputs(query, key, value, dropout_p, is_causal, attn_mask);
  Tensor q = dense(query), k = dense(key), v = dense(value), o = dense(out), lse = dense(logsumexp);
  Tensor go = dense_as(grad_out, q);
  EMBER_CHECK(go.numel() == o.numel() && o.numel() == d.B * d.H * d.L * d.Ev && lse.numel() == d.B * d.H * d.L,
              "scaled_dot_product_attention backward: grad_out ", shape_str(grad_out.sizes()), " and out ",
              shape_str(out.sizes()), " do not match the inputs");
  // dq is written block by block; dk and dv gather every block's share
  Tensor dq = empty(q.sizes(), q.dtype()), dk = zeros(k.sizes(), q.dtype(), std::nullopt),
         dv = zeros(v.sizes(), q.dtype(), std::nullopt);
  const Tensor mask = attn_mask.defined() && attn_mask.dtype() != q.dtype() ? to_dtype(attn_mask, q.dtype())
                                                                          : attn_mask;
  const MaskView mv = mask_view(mask, d);
  const double sc = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(d.E));
  if (q.dtype() == ScalarType::Float32)
    backward_impl<float>(q, k, v, o, go, lse, dq, dk, dv, d, is_causal, mv, sc);
  else
    backward_impl<double>(q, k, v, o, go, lse, dq, dk, dv, d, is_causal, mv, sc);
  return {dq, dk, dv};
}

}  // namespace ember
