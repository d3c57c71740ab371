// Fused scaled-dot-product attention for CPU, aten's _scaled_dot_product_flash_attention_for_cpu
// and its backward. Per (batch, head) and block of query rows: scores = Q K^T * scale (+ mask,
// causal), the row softmax kept as its log-sum-exp, out = P V. The backward recomputes P from the
// log-sum-exp block by block, so no L x S matrix outlives a block (the composed version kept the
// scores, the probabilities and their gradients for the whole batch).
#include <cmath>
#include <limits>
#include <vector>

#include "core/half.h"
#include "core/parallel.h"
#include "kernels/backend.h"
#include "kernels/cpu/isa_variants.h"
#include "kernels/cpu/vec_math.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/nn/nn_norm_common.h"

namespace ember {

namespace {

using norm_detail::dense;

constexpr int64_t kBlock = 64;  // query rows per block: the block's scores stay in L2

struct Dims {
  int64_t B, H, L, S, E, Ev;
};

const char* const kOp = "scaled_dot_product_attention_flash_attention";

bool half_type(ScalarType t) { return t == ScalarType::Float16 || t == ScalarType::BFloat16; }

// The kernel's typed reads (aten's data_ptr<scalar_t> after its dtype dispatch on the query).
void check_read(const Tensor& t, ScalarType want) {
  EMBER_CHECK(t.dtype() == want, "expected scalar type ", legacy_name(want), " but found ", legacy_name(t.dtype()));
}

// aten's reshape_attn_mask_to_4d (only for a mask with elements): a 4-d mask keeps its batch and
// head dims where they equal the query's and is viewed as 1 there otherwise, any other mask as
// (1, 1, rows, cols); the view is expanded over the query rows and keys (its errors are aten's).
Tensor mask_4d(const Tensor& mask, int64_t B, int64_t H, int64_t L, int64_t S) {
  int64_t s0 = 1, s1 = 1;
  if (mask.dim() == 4) {
    if (mask.size(0) == B) s0 = B;
    if (mask.size(1) == H) s1 = H;
  }
  Tensor m = view(mask, DimVector{s0, s1, mask.size(-2), mask.size(-1)});
  return expand(m, DimVector{s0, s1, L, S}, false);
}

// aten reads K and V through their strides for the query's batches and heads and V's keys
// (reading past smaller ones): refused here unless they agree.
Dims check_extents(const Tensor& q, const Tensor& k, const Tensor& v, const char* op) {
  EMBER_CHECK(q.dim() == 4 && k.dim() == 4 && v.dim() == 4, op, ": Accept only 4 dims inputs shape of {B, H, T, K}");
  const Dims d{q.size(0), q.size(1), q.size(2), v.size(2), q.size(3), v.size(3)};
  EMBER_CHECK(k.size(0) == d.B && v.size(0) == d.B && k.size(1) == d.H && v.size(1) == d.H && k.size(2) == d.S, op,
              ": query, key and value must agree in batch size, heads and key length, got ", shape_str(q.sizes()), ", ",
              shape_str(k.sizes()), " and ", shape_str(v.sizes()));
  return d;
}

// The forward's checks in aten's order; the mask comes back as (B, H, L, S) (undefined when it
// has no elements: aten ignores it then).
Dims check_forward(const Tensor& q, const Tensor& k, const Tensor& v, double dropout_p, Tensor& mask) {
  // aten reads the query's sizes 0, 2 and 1 before any check: an IndexError below 3 dims.
  for (int64_t dim : {0, 2, 1}) (void)q.size(dim);
  EMBER_CHECK(is_floating(q.dtype()), kOp, ": Expected data type in FP32, FP64, BF16, FP16, but got ",
              legacy_name(q.dtype()), " instead.");
  EMBER_CHECK(q.dim() == 4 && k.dim() == 4 && v.dim() == 4, kOp, ": Accept only 4 dims inputs shape of {B, H, T, K}");
  EMBER_CHECK(dropout_p == 0.0, kOp, ": Currently do not support dropout > 0");
  EMBER_CHECK(q.size(3) == v.size(3) && k.size(3) == v.size(3), kOp, ": Q/K/V should have the same head size");
  if (mask.defined()) {
    EMBER_CHECK(mask.dtype() == ScalarType::Float32 || mask.dtype() == q.dtype(), kOp,
                ": Attention mask is the same data type as query");
    EMBER_CHECK(mask.dim() == 2 || mask.dim() == 4, kOp, ": Attention mask dim in {2, 4}");
    if (mask.numel() > 0) mask = mask_4d(mask, q.size(0), q.size(1), q.size(2), v.size(2));
    else mask = Tensor();
  }
  check_read(k, q.dtype());
  check_read(v, q.dtype());
  return check_extents(q, k, v, kOp);
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
  bool nan_max;         // a NaN score makes the row's max NaN (aten's masked path), else it is skipped
  T* inv;               // forward: 1 / sum per row, applied to the output rows after P V (aten's order)
  ScalarType round_to;  // forward: the exps P V reads are rounded to this half type (aten's
                        // buffer of the input's dtype), Float32 / Float64 for none
};

template <class T>
EMBER_VEC_INLINE T rounded(T v, ScalarType to) {
  if (to == ScalarType::Float16) return static_cast<T>(static_cast<float>(Half(static_cast<float>(v))));
  if (to == ScalarType::BFloat16) return static_cast<T>(static_cast<float>(BFloat16(static_cast<float>(v))));
  return v;
}

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

// scores[m x n] (rows S apart) of query rows [i0, i0 + m) against the first n keys of one
// (batch, head): Q K^T * scale, plus the mask, -inf above the diagonal when causal.
template <class T>
void block_scores(const GemmKernels& gemm, const T* q, const T* k, const Dims& d, T scale, int64_t i0, int64_t m,
                  int64_t n, bool is_causal, const MaskView& mv, int64_t b, int64_t h, T* sc) {
  gemm(false, true, m, n, d.E, scale, q + i0 * d.E, d.E, k, d.E, T(0), sc, d.S);
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
                  bool is_causal, const MaskView& mv, double sc, ScalarType round_to) {
  auto rows = softmax_rows_best<T>();
  const GemmKernels& gemm = backend(q).gemm;
  GilRelease nogil;
  parallel_for(0, d.B * d.H, 1, [&](int64_t bh0, int64_t bh1) {
    std::vector<T> buf(static_cast<size_t>(std::min(kBlock, d.L) * d.S)), inv(static_cast<size_t>(kBlock));
    for (int64_t bh = bh0; bh < bh1; ++bh) {
      const T* qb = q.data<T>() + bh * d.L * d.E;
      const T* kb = k.data<T>() + bh * d.S * d.E;
      const T* vb = v.data<T>() + bh * d.S * d.Ev;
      T* ob = out.data<T>() + bh * d.L * d.Ev;
      T* lb = lse.data<T>() + bh * d.L;
      for (int64_t i0 = 0; i0 < d.L; i0 += kBlock) {
        const int64_t m = std::min(kBlock, d.L - i0), n = block_keys(d, i0, m, is_causal);
        block_scores(gemm, qb, kb, d, T(sc), i0, m, n, is_causal, mv, bh / d.H, bh % d.H, buf.data());
        rows(Rows<T>{buf.data(), lb + i0, n, d.S, true, mv.p != nullptr, inv.data(), round_to}, 0, m);
        gemm(false, false, m, d.Ev, n, T(1), buf.data(), d.S, vb, d.Ev, T(0), ob + i0 * d.Ev, d.Ev);
        for (int64_t r = 0; r < m; ++r)
          for (int64_t e = 0; e < d.Ev; ++e) ob[(i0 + r) * d.Ev + e] *= inv[r];
      }
    }
  });
}

template <class T>
void backward_impl(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& o, const Tensor& go,
                   const Tensor& lse, Tensor& dq, Tensor& dk, Tensor& dv, const Dims& d, bool is_causal,
                   const MaskView& mv, double sc) {
  auto rows = softmax_rows_best<T>();
  const GemmKernels& gemm = backend(q).gemm;
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
        block_scores(gemm, qb, kb, d, T(sc), i0, m, n, is_causal, mv, bh / d.H, bh % d.H, p.data());
        rows(Rows<T>{p.data(), lb + i0, n, d.S, false, false, nullptr, ScalarType::Float64}, 0, m);
        // dV += P^T dO;  dP = dO V^T;  dS = P * (dP - rowsum(dO * O))  (first n keys)
        gemm(true, false, n, d.Ev, m, T(1), p.data(), d.S, gb + i0 * d.Ev, d.Ev, T(1), dvb, d.Ev);
        gemm(false, true, m, n, d.Ev, T(1), gb + i0 * d.Ev, d.Ev, vb, d.Ev, T(0), dp.data(), d.S);
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
        gemm(false, false, m, d.E, n, T(sc), dp.data(), d.S, kb, d.E, T(0), dqb + i0 * d.E, d.E);
        gemm(true, false, n, d.E, m, T(sc), dp.data(), d.S, qb + i0 * d.E, d.E, T(1), dkb, d.E);
      }
    }
  });
}

// float16 / bfloat16 run the float32 kernel (aten's op-math) and round the results once.
ScalarType kernel_type(ScalarType t) { return half_type(t) ? ScalarType::Float32 : t; }

}  // namespace

std::tuple<Tensor, Tensor> nn_sdpa_flash(const Tensor& query, const Tensor& key, const Tensor& value, double dropout_p,
                                         bool is_causal, const Tensor& attn_mask, std::optional<double> scale) {
  Tensor mask = attn_mask;
  const Dims d = check_forward(query, key, value, dropout_p, mask);
  const ScalarType kt = kernel_type(query.dtype());
  Tensor q = dense(to_dtype(query, kt)), k = dense(to_dtype(key, kt)), v = dense(to_dtype(value, kt));
  // the log-sum-exp is kept in the op-math type, as aten's
  Tensor out = empty({d.B, d.H, d.L, d.Ev}, kt, q.device()), lse = empty({d.B, d.H, d.L}, kt, q.device());
  if (mask.defined() && mask.dtype() != kt) mask = to_dtype(mask, kt);
  const MaskView mv = mask_view(mask, d);
  const double sc = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(d.E));
  if (out.numel() > 0 || lse.numel() > 0) {
    if (kt == ScalarType::Float32) forward_impl<float>(q, k, v, out, lse, d, is_causal, mv, sc, query.dtype());
    else forward_impl<double>(q, k, v, out, lse, d, is_causal, mv, sc, query.dtype());
  }
  return {to_dtype(out, query.dtype()), lse};
}

std::tuple<Tensor, Tensor, Tensor> nn_sdpa_flash_backward(const Tensor& grad_out, const Tensor& query,
                                                          const Tensor& key, const Tensor& value, const Tensor& out,
                                                          const Tensor& logsumexp, double dropout_p, bool is_causal,
                                                          const Tensor& attn_mask, std::optional<double> scale) {
  (void)dropout_p;  // aten's backward takes it and never looks at it
  // aten transposes (1, 2) each of these first: an IndexError for one with fewer dims.
  for (const Tensor* t : {&grad_out, &query, &key, &value, &out, &logsumexp}) {
    (void)wrap_dim(1, t->dim());
    (void)wrap_dim(2, t->dim());
  }
  // Then its kernel dispatches on the query's dtype and on the mask's.
  const ScalarType qt = query.dtype();
  EMBER_CHECK_NOTIMPL(is_floating(qt), "\"flash_attention_backward\" not implemented for '", legacy_name(qt), "'");
  if (attn_mask.defined())
    EMBER_CHECK_NOTIMPL(attn_mask.dtype() == ScalarType::Bool || is_floating(attn_mask.dtype()),
                        "\"flash_attention_mask_backward\" not implemented for '", legacy_name(attn_mask.dtype()), "'");
  // The head sizes (dim 3: an IndexError below 4 dims), the mask's view, then its typed reads.
  EMBER_CHECK(query.size(3) == value.size(3) && key.size(3) == value.size(3), kOp,
              "_backward: Q/K/V should have the same head size");
  Tensor mask;
  if (attn_mask.defined() && attn_mask.numel() > 0)
    mask = mask_4d(attn_mask, query.size(0), query.size(1), query.size(2), value.size(2));
  for (const Tensor* t : {&key, &value, &grad_out, &out}) check_read(*t, qt);
  const ScalarType kt = kernel_type(qt);
  check_read(logsumexp, kt);
  const Dims d = check_extents(query, key, value, kOp);
  EMBER_CHECK(grad_out.sizes().equals(DimVector{d.B, d.H, d.L, d.Ev}) && out.sizes().equals(grad_out.sizes()) &&
                  logsumexp.sizes().equals(DimVector{d.B, d.H, d.L}),
              kOp, "_backward: grad_out ", shape_str(grad_out.sizes()), ", out ", shape_str(out.sizes()),
              " and logsumexp ", shape_str(logsumexp.sizes()), " do not match the query and value");
  Tensor q = dense(to_dtype(query, kt)), k = dense(to_dtype(key, kt)), v = dense(to_dtype(value, kt)),
         o = dense(to_dtype(out, kt)), go = dense(to_dtype(grad_out, kt)), lse = dense(logsumexp);
  // dq is written block by block; dk and dv gather every block's share
  Tensor dq = empty(q.sizes(), kt, q.device()), dk = zeros(k.sizes(), kt, k.device()),
         dv = zeros(v.sizes(), kt, v.device());
  if (mask.defined() && mask.dtype() != kt) mask = to_dtype(mask, kt);
  const MaskView mv = mask_view(mask, d);
  const double sc = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(d.E));
  if (kt == ScalarType::Float32) backward_impl<float>(q, k, v, o, go, lse, dq, dk, dv, d, is_causal, mv, sc);
  else backward_impl<double>(q, k, v, o, go, lse, dq, dk, dv, d, is_causal, mv, sc);
  return {to_dtype(dq, qt), to_dtype(dk, qt), to_dtype(dv, qt)};
}

}  // namespace ember
