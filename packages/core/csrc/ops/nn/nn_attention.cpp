// aten's _scaled_dot_product_flash_attention_for_cpu and its backward: the checks in aten's order,
// the op-math copies (none for a float operand whose rows are unit-stride) and the results; the
// fused kernel is the backend's attention family (kernels/cpu/attention/flash_attention.cpp).
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/nn/nn_norm_common.h"

namespace ember {

namespace {

using attention::Dims;
using attention::MaskView;
using norm_detail::dense;

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

MaskView mask_view(const Tensor& mask, const Dims& d) {
  MaskView m;
  if (!mask.defined()) return m;
  Tensor e = expand(mask, DimVector{d.B, d.H, d.L, d.S}, false);
  m.p = e.raw();  // the expanded view shares mask's storage, which the caller keeps alive
  m.sb = e.strides()[0], m.sh = e.strides()[1], m.sl = e.strides()[2], m.ss = e.strides()[3];
  return m;
}

// t as the kernels read a (B, H, rows, E) operand: through its strides when E's is 1 and rows do
// not overlap within one (as BLAS needs), else a dense copy.
Tensor rows_readable(const Tensor& t) {
  const int64_t E = t.size(3);
  const bool unit = E <= 1 || t.strides()[3] == 1;
  return unit && (t.size(2) <= 1 || t.strides()[2] >= E) ? t : dense(t);
}

template <class T>
attention::HeadRows<T> head_rows(const Tensor& t) {
  // a single row's stride is never used: E keeps BLAS's leading dimension valid
  const int64_t sl = t.size(2) <= 1 ? std::max<int64_t>(t.size(3), 1) : t.strides()[2];
  return {t.data<T>(), t.strides()[0], t.strides()[1], sl};
}

// float16 / bfloat16 run the float32 kernel (aten's op-math) and round the results once.
ScalarType kernel_type(ScalarType t) { return half_type(t) ? ScalarType::Float32 : t; }

}  // namespace

std::tuple<Tensor, Tensor> nn_sdpa_flash(const Tensor& query, const Tensor& key, const Tensor& value, double dropout_p,
                                         bool is_causal, const Tensor& attn_mask, std::optional<double> scale) {
  Tensor mask = attn_mask;
  const Dims d = check_forward(query, key, value, dropout_p, mask);
  const ScalarType kt = kernel_type(query.dtype());
  Tensor q = rows_readable(to_dtype(query, kt)), k = rows_readable(to_dtype(key, kt)),
         v = rows_readable(to_dtype(value, kt));
  // the log-sum-exp is kept in the op-math type, as aten's
  Tensor out = empty({d.B, d.H, d.L, d.Ev}, kt, q.device()), lse = empty({d.B, d.H, d.L}, kt, q.device());
  if (mask.defined() && mask.dtype() != kt) mask = to_dtype(mask, kt);
  const MaskView mv = mask_view(mask, d);
  const double sc = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(d.E));
  if (out.numel() > 0 || lse.numel() > 0) {
    const AttentionKernels& kern = backend(q).attention;
    if (kt == ScalarType::Float32)
      kern.flash_forward(attention::FlashForward<float>{head_rows<float>(q), head_rows<float>(k), head_rows<float>(v),
                                                        out.data<float>(), lse.data<float>(), d, is_causal, mv, sc,
                                                        query.dtype()});
    else
      kern.flash_forward(attention::FlashForward<double>{head_rows<double>(q), head_rows<double>(k),
                                                         head_rows<double>(v), out.data<double>(), lse.data<double>(),
                                                         d, is_causal, mv, sc, query.dtype()});
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
  Tensor q = rows_readable(to_dtype(query, kt)), k = rows_readable(to_dtype(key, kt)),
         v = rows_readable(to_dtype(value, kt)), go = rows_readable(to_dtype(grad_out, kt)),
         o = dense(to_dtype(out, kt)), lse = dense(logsumexp);
  Tensor dq = empty(q.sizes(), kt, q.device()), dk = empty(k.sizes(), kt, k.device()),
         dv = empty(v.sizes(), kt, v.device());
  if (mask.defined() && mask.dtype() != kt) mask = to_dtype(mask, kt);
  const MaskView mv = mask_view(mask, d);
  const double sc = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(d.E));
  const AttentionKernels& kern = backend(q).attention;
  if (kt == ScalarType::Float32)
    kern.flash_backward(attention::FlashBackward<float>{
        head_rows<float>(q), head_rows<float>(k), head_rows<float>(v), head_rows<float>(go), o.data<float>(),
        lse.data<float>(), dq.data<float>(), dk.data<float>(), dv.data<float>(), d, is_causal, mv, sc});
  else
    kern.flash_backward(attention::FlashBackward<double>{
        head_rows<double>(q), head_rows<double>(k), head_rows<double>(v), head_rows<double>(go), o.data<double>(),
        lse.data<double>(), dq.data<double>(), dk.data<double>(), dv.data<double>(), d, is_causal, mv, sc});
  return {to_dtype(dq, qt), to_dtype(dk, qt), to_dtype(dv, qt)};
}

}  // namespace ember
