// Derivatives of the index ops, and the nodes of advanced indexing.
#include "formulas.h"

#include "autograd/formulas_complex.h"
#include "autograd_ops.h"
#include "node.h"
#include "ops/index/index_advanced.h"
#include "ops/index/index_common.h"

namespace ember {

namespace {

// (on like's device: a CUDA gradient scatters into a CUDA buffer)
Tensor zeros_for(IntArrayRef sizes, const Tensor& like) { return zeros(sizes, like.dtype(), like.device()); }

// grad of self[indices]: scatter-add grad into zeros of self's shape.
struct IndexBackward0 final : Node {
  DimVector self_sizes;
  ScalarType dtype = ScalarType::Float32;
  Device device = cpu_device();
  std::vector<Tensor> indices;
  const char* name() const override { return "IndexBackward0"; }
  TensorList apply(TensorList& grads) override {
    TensorList out(1);
    if (!any_defined(grads) || !should_compute(0)) return out;
    out[0] = ag::index_put(zeros(self_sizes, dtype, device), indices, grads[0], true);
    return out;
  }
  void release_variables() override { indices.clear(); }
};

}  // namespace

namespace ag {

Tensor index(const Tensor& self, const std::vector<Tensor>& indices) {
  Tensor r = ember::index(self, indices);
  if (GradMode::is_enabled() && any_requires_grad({&self}) && is_differentiable(r)) {
    auto node = make_ref<IndexBackward0>();
    node->set_next_edges({&self});
    node->self_sizes.assign(self.sizes().begin(), self.sizes().end());
    node->dtype = self.dtype();
    node->device = self.device();
    node->indices = indices;
    set_history(r, node);
  }
  return r;
}

}  // namespace ag

// index_put's gradients (ops/index.yaml): self's is grad with the written elements zeroed (kept
// whole under accumulate); values' is grad at the indices, summed to values' shape.
Tensor index_put_self_backward(const Tensor& grad, const TensorList& indices, bool accumulate) {
  return accumulate ? grad : ag::index_put(grad, indices, zeros({}, grad.dtype(), std::nullopt), false);
}

Tensor index_put_values_backward(const Tensor& grad, const TensorList& indices, IntArrayRef values_sizes) {
  Tensor r = ag::index(grad, indices);
  // values may carry extra leading unit dims that index_put_ dropped.
  if (r.dim() < static_cast<int64_t>(values_sizes.size())) {
    DimVector s(values_sizes.size() - r.dim(), 1);
    for (int64_t d : r.sizes()) s.push_back(d);
    r = ag::reshape(r, s);
  }
  return sum_to(r, values_sizes);
}

Tensor index_select_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, const Tensor& index) {
  if (input_sizes.size() == 0) return ag::reshape(ag::sum(grad, std::nullopt), input_sizes);
  return ag::index_add(zeros_for(input_sizes, grad), dim, index, grad, Scalar(int64_t(1)));
}

Tensor gather_backward(const Tensor& grad, IntArrayRef input_sizes, int64_t dim, const Tensor& index) {
  return ag::scatter_add(zeros_for(input_sizes, grad), dim, index, grad);
}

Tensor index_add_source_backward(const Tensor& grad, int64_t dim, const Tensor& index, const Tensor& source,
                                 const Scalar& alpha) {
  Tensor g = grad.dim() == 0 ? grad : ag::index_select(grad, dim, index);
  g = maybe_scale(g, conj_scalar(alpha));  // aten: alpha.conj() (a complex alpha scales the conjugate)
  return source.dim() == 0 ? ag::reshape(g, source.sizes()) : g;
}

Tensor index_fill_value_backward(const Tensor& grad, int64_t dim, const Tensor& index) {
  // Each filled position counts once, however often the index repeats it.
  Tensor kept = ag::index_fill(grad, dim, index, Scalar(int64_t(0)));
  return ag::sum(ag::sub(grad, kept, Scalar(int64_t(1))), std::nullopt);
}

Tensor masked_fill_value_backward(const Tensor& grad, const Tensor& mask) {
  return ag::sum(mask_mul(grad, mask), std::nullopt);
}

Tensor masked_select_backward(const Tensor& grad, const Tensor& input, const Tensor& mask) {
  DimVector bs(input.sizes().begin(), input.sizes().end());
  if (mask.dim() > input.dim() || !index_detail::same_shape(bs, mask.sizes())) {
    // broadcast shape of input and mask
    size_t n = std::max<size_t>(input.dim(), mask.dim());
    DimVector r(n, 1);
    for (size_t i = 0; i < n; ++i) {
      int64_t a = i < n - input.dim() ? 1 : input.sizes()[i - (n - input.dim())];
      int64_t b = i < n - mask.dim() ? 1 : mask.sizes()[i - (n - mask.dim())];
      r[i] = a == 1 ? b : a;
    }
    bs = r;
  }
  // a 0-d input and mask select into a 1-element result: index a 1-element view (index_put's value
  // may not drop a leading unit dim the indexing result lacks)
  if (bs.empty()) bs.push_back(1);
  Tensor m = expand(mask, bs, false);
  Tensor g = ag::index_put(zeros_for(bs, grad), {m}, grad, true);
  return sum_to(g, input.sizes());
}

Tensor take_backward(const Tensor& grad, const Tensor& input, const Tensor& index) {
  Tensor flat = zeros_for({input.numel()}, grad);
  Tensor g = ag::index_put(flat, {reshape(index, {-1})}, ag::reshape(grad, {-1}), true);
  return ag::reshape(g, input.sizes());
}

Tensor masked_scatter_source_backward(const Tensor& grad, const Tensor& mask, const Tensor& source) {
  // The first count(mask) source elements were used; the rest get zero gradient.
  DimVector bs(grad.sizes().begin(), grad.sizes().end());
  Tensor picked = ag::masked_select(grad, mask);
  Tensor flat = zeros_for({source.numel()}, grad);
  Tensor pos = arange(Scalar(picked.numel()), ScalarType::Int64, grad.device());
  return ag::reshape(ag::index_put(flat, {pos}, picked, false), source.sizes());
}

Tensor take_along_dim_backward(const Tensor& grad, const Tensor& input, const Tensor& indices,
                               std::optional<int64_t> dim) {
  if (!dim) return take_backward(grad, input, indices);
  int64_t d = wrap_dim(*dim, std::max<int64_t>(input.dim(), 1));
  if (input.dim() == 0) return gather_backward(grad, input.sizes(), d, indices);
  // The forward gathered from input broadcast against indices (except along dim).
  DimVector xs(grad.sizes().begin(), grad.sizes().end());
  xs[d] = input.sizes()[d];
  Tensor idx = expand(indices, grad.sizes(), false);
  return sum_to(gather_backward(grad, xs, d, idx), input.sizes());
}

Tensor put_self_backward(const Tensor& grad, const Tensor& index, const Tensor& source, bool accumulate) {
  if (accumulate) return grad;
  return ag::put(grad, index, zeros(source.sizes(), grad.dtype(), grad.device()), false);
}

Tensor put_source_backward(const Tensor& grad, const Tensor& index, const Tensor& source) {
  return ag::reshape(ag::take(grad, index), source.sizes());
}

// ---- scatter_reduce ----------------------------------------------------------

namespace {

Tensor as_dtype(const Tensor& t, ScalarType dt) { return _to_copy(t, dt); }

// Positions of `like` that some index entry writes to.
Tensor scattered_mask(const Tensor& like, int64_t dim, const Tensor& index) {
  Tensor none = zeros(like.sizes(), ScalarType::Bool, like.device());
  return scatter(none, dim, index, Scalar(true));
}

Tensor zero_where(const Tensor& g, const Tensor& mask) { return ag::masked_fill(g, mask, Scalar(int64_t(0))); }

// How many values met at each position (itself included when include_self).
Tensor meet_count(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& src, bool include_self) {
  Tensor n = full(input.sizes(), Scalar(int64_t(include_self ? 1 : 0)), input.dtype(), input.device());
  n = scatter_add(n, dim, index, ones_like(src, std::nullopt, std::nullopt, std::nullopt));
  return masked_fill(n, eq(n, scalar_tensor(Scalar(int64_t(0)), n.dtype())), Scalar(int64_t(1)));
}

// amax/amin: which inputs equal the result, and how many ties share each result.
struct Ties {
  Tensor self_is, src_is, count;
};
Ties extreme_ties(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& src, bool include_self,
                  const Tensor& result) {
  Tensor r = result;
  Tensor self_is = eq(input, r);
  if (!include_self) self_is = logical_and(self_is, logical_not(scattered_mask(input, dim, index)));
  Tensor src_is = eq(src, gather(r, dim, index, false));
  Tensor count = scatter_add(as_dtype(self_is, input.dtype()), dim, index, as_dtype(src_is, input.dtype()));
  return {self_is, src_is, count};
}

// The forward also takes max/min; PyTorch's backward knows only the five names.
void check_backward_reduce(std::string_view r) {
  EMBER_CHECK(r == "sum" || r == "prod" || r == "mean" || r == "amax" || r == "amin",
              "Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got ", r, ".");
}

}  // namespace

Tensor scatter_reduce_backward_self(const Tensor& grad, const Tensor& input, int64_t dim, const Tensor& index,
                                    const Tensor& src, std::string_view reduce, bool include_self,
                                    const Tensor& result) {
  check_backward_reduce(reduce);
  Tensor g;
  if (reduce == "sum") {
    g = grad;
  } else if (reduce == "mean") {
    g = ag::div(grad, meet_count(input, dim, index, src, include_self), std::nullopt);
  } else if (reduce == "prod") {
    // self's derivative is the product of the others: recompute with self's zeros made 1.
    Tensor self_zero = eq(input, scalar_tensor(Scalar(int64_t(0)), input.dtype()));
    Tensor masked_self = ag::masked_fill(input, self_zero, Scalar(int64_t(1)));
    Tensor others = ag::scatter_reduce(masked_self, dim, index, src, "prod", include_self);
    g = ag::div(ag::mul(grad, others), masked_self, std::nullopt);
  } else {
    Ties t = extreme_ties(input, dim, index, src, include_self, result);
    g = zero_where(ag::div(grad, t.count, std::nullopt), logical_not(t.self_is));
  }
  return include_self ? g : zero_where(g, scattered_mask(input, dim, index));
}

Tensor scatter_reduce_backward_src(const Tensor& grad, const Tensor& input, int64_t dim, const Tensor& index,
                                   const Tensor& src, std::string_view reduce, bool include_self,
                                   const Tensor& result) {
  check_backward_reduce(reduce);
  if (reduce == "sum") return ag::gather(grad, dim, index, false);
  if (reduce == "mean")
    return ag::gather(ag::div(grad, meet_count(input, dim, index, src, include_self), std::nullopt), dim, index, false);
  if (reduce == "prod") {
    // A lone zero among the values meeting at a position: its derivative is the product of
    // the others (recomputed with it made 1); otherwise result / src (0 with two zeros or more).
    Tensor zero = scalar_tensor(Scalar(int64_t(0)), src.dtype());
    Tensor src_zero = eq(src, zero);
    Tensor zeros_met = gather(scatter_add(zeros_like(input, std::nullopt, std::nullopt, std::nullopt), dim, index,
                                          as_dtype(src_zero, input.dtype())),
                              dim, index, false);
    Tensor lone_zero = logical_and(src_zero, eq(zeros_met, scalar_tensor(Scalar(int64_t(1)), input.dtype())));
    Tensor others = ag::scatter_reduce(input, dim, index, ag::masked_fill(src, lone_zero, Scalar(int64_t(1))), "prod",
                                       include_self);
    Tensor via_others = ag::gather(ag::mul(grad, others), dim, index, false);
    Tensor via_result = ag::div(ag::gather(ag::mul(grad, result), dim, index, false),
                                ag::masked_fill(src, src_zero, Scalar(int64_t(1))), std::nullopt);
    return ag::where(lone_zero, via_others, via_result);
  }
  Ties t = extreme_ties(input, dim, index, src, include_self, result);
  return zero_where(ag::gather(ag::div(grad, t.count, std::nullopt), dim, index, false), logical_not(t.src_is));
}

Tensor scatter_reduce_not_implemented() { fail(ErrorKind::Runtime, "derivative for aten::scatter is not implemented"); }

}  // namespace ember
