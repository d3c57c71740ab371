#include "view_grad.h"

#include "autograd_ops.h"
#include "ops.h"
#include "ops/core/checks.h"

namespace ember {

Tensor zeros_like_storage(const Geometry& base, size_t storage_bytes, ScalarType dtype, Device device) {
  int64_t n = static_cast<int64_t>(storage_bytes / element_size(dtype));
  Tensor flat = zeros({n}, dtype, device);
  return make_view(flat, base.sizes, base.strides, base.offset);
}

namespace {
Tensor scatter_to(const Tensor& g, const Geometry& base, const Geometry& view, size_t bytes);
Tensor view_of(const Tensor& g, const Geometry& base, const Geometry& view, size_t bytes);
}  // namespace

CopySlices::CopySlices(const Tensor& base_t, const Tensor& view_t, Ref<Node> f)
    : base(Geometry::of(base_t)),
      view(Geometry::of(view_t)),
      storage_bytes(base_t.storage().nbytes),
      fn(std::move(f)) {}

TensorList CopySlices::apply(TensorList& grads) {
  TensorList out(next_edges.size());
  const Tensor& grad = grads[0];
  if (!grad.defined()) return out;
  TensorList res;
  if (GradMode::is_enabled()) {
    // create_graph: the same result from differentiable pieces (grad with the
    // view's region replaced by what the in-place op sends back).
    TensorList fg{view_of(grad, base, view, storage_bytes)};
    res = fn->apply(fg);
    Tensor region = scatter_to(fg[0], base, view, storage_bytes);
    Tensor result = ag::sub(grad, region, Scalar(int64_t(1)));
    if (!res.empty() && res[0].defined())
      result = ag::add(result, scatter_to(res[0], base, view, storage_bytes), Scalar(int64_t(1)));
    out[0] = result;
  } else {
    Tensor result = zeros_like_storage(base, storage_bytes, grad.dtype(), grad.device());
    copy_(result, grad, false);
    Tensor slice = make_view(result, view.sizes, view.strides, view.offset);
    TensorList fg{clone(slice, std::nullopt)};
    res = fn->apply(fg);
    if (!res.empty() && res[0].defined()) copy_(slice, res[0], false);
    else zero_(slice);
    out[0] = result;
  }
  for (size_t i = 1; i < res.size() && i < out.size(); ++i) out[i] = std::move(res[i]);
  return out;
}

namespace {

Tensor scatter_to(const Tensor& g, const Geometry& base, const Geometry& view, size_t bytes);
Tensor view_of(const Tensor& g, const Geometry& base, const Geometry& view, size_t bytes);

// The two directions of a strided view are each other's derivative, so
// gradients through indexing stay differentiable to any order.
struct ViewScatterBackward final : Node {  // derivative of scatter_to: take the view
  Geometry base, view;
  size_t bytes;
  const char* name() const override { return "AsStridedScatterBackward0"; }
  TensorList apply(TensorList& grads) override {
    if (!grads[0].defined()) return TensorList(1);
    return {view_of(grads[0], base, view, bytes)};
  }
};
struct ViewGatherBackward final : Node {  // derivative of view_of: scatter back
  Geometry base, view;
  size_t bytes;
  const char* name() const override { return "AsStridedBackward0"; }
  TensorList apply(TensorList& grads) override {
    if (!grads[0].defined()) return TensorList(1);
    return {scatter_to(grads[0], base, view, bytes)};
  }
};

template <class N>
void record(const Tensor& in, const Tensor& out, const Geometry& base, const Geometry& view, size_t bytes) {
  if (!GradMode::is_enabled() || !in.requires_grad()) return;
  auto n = make_ref<N>();
  n->base = base;
  n->view = view;
  n->bytes = bytes;
  n->next_edges.push_back(gradient_edge(in));
  set_history(out, n);
}

// g (view-shaped) written into zeros laid out like the base: base-shaped result.
Tensor scatter_to(const Tensor& g, const Geometry& base, const Geometry& view, size_t bytes) {
  Tensor result = zeros_like_storage(base, bytes, g.dtype(), g.device());
  copy_(make_view(result, view.sizes, view.strides, view.offset), g, false);
  drop_view(result.impl());  // a fresh tensor, not a view for autograd's purposes
  record<ViewScatterBackward>(g, result, base, view, bytes);
  return result;
}

// The view region of g (base-shaped), as a new tensor.
Tensor view_of(const Tensor& g, const Geometry& base, const Geometry& view, size_t bytes) {
  Tensor tmp = zeros_like_storage(base, bytes, g.dtype(), g.device());
  copy_(tmp, g, false);
  Tensor out = clone(make_view(tmp, view.sizes, view.strides, view.offset), std::nullopt);
  record<ViewGatherBackward>(g, out, base, view, bytes);
  return out;
}

}  // namespace

namespace {
// "Output 1 of Split": the view's place among its grad_fn's outputs and the node's name without
// "Backward0", as PyTorch's in-place refusals name a view (checks.cpp calls it).
std::string view_label(const Tensor& v) {
  const AutogradMeta* m = v.impl()->autograd.get();
  std::string name = m->grad_fn->name();
  const size_t at = name.rfind("Backward");
  if (at != std::string::npos && at > 0) name.resize(at);
  return "Output " + std::to_string(m->output_nr) + " of " + name;
}
const bool view_label_set = (set_view_label(&view_label), true);
}  // namespace

TensorList AsStridedBackward::apply(TensorList& grads) {
  TensorList out(1);
  if (!grads[0].defined()) return out;
  out[0] = scatter_to(grads[0], base, view, storage_bytes);
  return out;
}

void record_view(const Tensor& input, const Tensor& view, const char* name) {
  if (!GradMode::is_enabled() || !input.requires_grad() || !is_floating_or_complex(view.dtype())) return;
  auto fn = make_ref<AsStridedBackward>();
  fn->base = Geometry::of(input);
  fn->view = Geometry::of(view);
  fn->storage_bytes = input.storage().nbytes;
  fn->dtype = input.dtype();
  fn->display = name;
  fn->next_edges.push_back(gradient_edge(input));
  set_history(view, fn);
}

void rebase_view_history(const Tensor& self, const Ref<Node>& node) {
  Tensor base(self.impl()->base);
  // The base's gradient now comes through CopySlices: the op's inputs other
  // than self become CopySlices' inputs, next to the base's old edge.
  auto cs = make_ref<CopySlices>(base, self, node);
  cs->next_edges.push_back(gradient_edge(base));
  for (size_t i = 1; i < node->next_edges.size(); ++i) cs->next_edges.push_back(node->next_edges[i]);
  move_retains_grad(base, [&] {
    if (base.impl()->autograd) base.impl()->autograd->grad_fn.reset();
    set_history(base, cs);
  });
  auto view_fn = make_ref<AsStridedBackward>();
  view_fn->base = cs->base;
  view_fn->view = cs->view;
  view_fn->storage_bytes = cs->storage_bytes;
  view_fn->dtype = base.dtype();
  view_fn->next_edges.push_back(Edge{cs, 0});
  move_retains_grad(self, [&] {
    if (self.impl()->autograd) self.impl()->autograd->grad_fn.reset();
    set_history(self, view_fn);
  });
}

// An op body (declared in ops.h) kept here: it clears the autograd meta, whose graph types the
// op layer does not see.
Tensor detach_(const Tensor& self) {
  EMBER_CHECK(!self.impl()->base,
              "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
              "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
              "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
              "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.");
  if (AutogradMeta* m = self.impl()->autograd.get()) {
    m->requires_grad = false;
    m->grad_fn.reset();
    m->output_nr = 0;
  }
  return self;
}
}  // namespace ember
