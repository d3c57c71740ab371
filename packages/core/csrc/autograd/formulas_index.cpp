// Derivatives of the index ops, and the nodes of advanced indexing.
#include "formulas.h"

#include "../ops/index_advanced.h"
#include "../ops/index_common.h"
#include "autograd_ops.h"
#include "node.h"

namespace ember {

namespace {

Tensor zeros_for(IntArrayRef sizes, const Tensor& like) { return zeros(sizes, like.dtype(), std::nullopt); }

// grad of self[indices]: scatter-add grad into zeros of self's shape.
struct IndexBackward0 final : Node {
  DimVector self_sizes;
  ScalarType dtype = ScalarType::Float32;
  std::vector<Tensor> indices;
  const char* name() const override { return "IndexBackward0"; }
  TensorList apply(TensorList& grads) override {
    TensorList out(1);
    if (!any_defined(grads) || !should_compute(0)) return out;
    out[0] = ag::index_put(zeros(self_sizes, dtype, std::nullopt), indices, grads[0], true);
    return out;
  }
  void release_variables() override { indices.clear(); }
};

// grads of self.index_put(indices, values, accumulate).
struct IndexPutBackward0 final : Node {
  std::vector<Tensor> indices;
  DimVector values_sizes;
  bool accumulate = false;
  const char* name() const override { return "IndexPutBackward0"; }
  TensorList apply(TensorList& grads) override {
    TensorList out(2);
    if (!any_defined(grads)) return out;
    const Tensor& g = grads[0];
    if (should_compute(0))
      out[0] = accumulate ? g : ag::index_put(g, indices, zeros({}, g.dtype(), std::nullopt), false);
    if (should_compute(1)) {
      Tensor r = ag::index(g, indices);
      // values may carry extra leading unit dims that index_put_ dropped.
      if (r.dim() < static_cast<int64_t>(values_sizes.size())) {
        DimVector s(values_sizes.size() - r.dim(), 1);
        for (int64_t d : r.sizes()) s.push_back(d);
        r = ag::reshape(r, s);
      }
      out[1] = sum_to(r, values_sizes);
    }
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
    node->indices = indices;
    set_history(r, node);
  }
  return r;
}

static Ref<IndexPutBackward0> index_put_node(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                                      bool accumulate) {
  auto node = make_ref<IndexPutBackward0>();
  node->set_next_edges({&self, &values});
  node->indices = indices;
  node->values_sizes.assign(values.sizes().begin(), values.sizes().end());
  node->accumulate = accumulate;
  return node;
}

Tensor index_put(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  Tensor r = ember::index_put(self, indices, values, accumulate);
  if (GradMode::is_enabled() && any_requires_grad({&self, &values}) && is_differentiable(r))
    set_history(r, index_put_node(self, indices, values, accumulate));
  return r;
}

Tensor index_put_(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  if (!GradMode::is_enabled() || !any_requires_grad({&self, &values})) {
    ember::index_put_(self, indices, values, accumulate);
    return self;
  }
  check_inplace(self);
  auto node = index_put_node(self, indices, values, accumulate);
  ember::index_put_(self, indices, values, accumulate);
  rebase_history(self, node);
  return self;
}

}  // namespace ag

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
  g = maybe_scale(g, alpha);
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
  Tensor pos = arange(Scalar(picked.numel()), ScalarType::Int64, std::nullopt);
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
  return ag::put(grad, index, zeros(source.sizes(), grad.dtype(), std::nullopt), false);
}

Tensor put_source_backward(const Tensor& grad, const Tensor& index, const Tensor& source) {
  return ag::reshape(ag::take(grad, index), source.sizes());
}

}  // namespace ember
