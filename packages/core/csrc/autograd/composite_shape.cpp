// Shape ops that aten implements as composites of differentiable ops (CompositeImplicitAutograd):
// their bodies call the autograd-aware ops (ember::ag::), each output with its own node, so they
// sit in the autograd layer. ops.yaml declares them with `grad: composite`.
#include "autograd_ops.h"
#include "core/error.h"
#include "core/profiler_op.h"
#include "ops.h"

namespace ember {

TensorList meshgrid(const TensorList& tensors, std::optional<std::string_view> indexing) {
  EMBER_CHECK(!tensors.empty(), "torch.meshgrid expects a non-empty TensorList");
  std::string_view mode = indexing ? *indexing : std::string_view("ij");
  EMBER_CHECK(mode == "ij" || mode == "xy",
              "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: ", std::string(mode));
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].dim() <= 1,
                "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: ", tensors[i].dim(), "D");
    EMBER_CHECK(tensors[i].dtype() == tensors[0].dtype(), "meshgrid expects all tensors to have the same dtype");
  }
  size_t n = tensors.size();
  bool swap = mode == "xy" && n >= 2;
  DimVector shape;
  for (const Tensor& t : tensors) shape.push_back(t.dim() == 0 ? 1 : t.size(0));
  if (swap) std::swap(shape[0], shape[1]);
  // as aten's composite: each output a view then an expand of its own input (its own
  // ViewBackward0 -> ExpandBackward0 chain, nested view/expand events)
  TensorList r;
  for (size_t i = 0; i < n; ++i) {
    DimVector view(n, 1);
    size_t at = swap && i < 2 ? 1 - i : i;
    view[at] = shape[at];
    Tensor v = profiler::nested_op("aten::view", {&tensors[i], nullptr}, [&] { return ag::view(tensors[i], view); });
    r.push_back(
        profiler::nested_op("aten::expand", {&v, nullptr, nullptr}, [&] { return ag::expand(v, shape, false); }));
  }
  return r;
}

TensorList broadcast_tensors(const TensorList& tensors) {
  DimVector shape;
  for (const Tensor& t : tensors) {
    IntArrayRef s = t.sizes();
    size_t nd = std::max(shape.size(), s.size());
    DimVector out(nd, 1);
    for (size_t k = 0; k < nd; ++k) {
      int64_t a = k < nd - shape.size() ? 1 : shape[k - (nd - shape.size())];
      int64_t b = k < nd - s.size() ? 1 : s[k - (nd - s.size())];
      EMBER_CHECK(a == b || a == 1 || b == 1, "The size of tensor a (", a, ") must match the size of tensor b (", b,
                  ") at non-singleton dimension ", k);
      out[k] = a == 1 ? b : a;
    }
    shape = out;
  }
  // as aten's composite: a tensor of the broadcast shape already is returned as it is; the others
  // are expanded each (one ExpandBackward0 per expanded input, none for the rest)
  TensorList r;
  for (const Tensor& t : tensors) {
    if (t.sizes().equals(shape)) {
      r.push_back(t);
      continue;
    }
    r.push_back(
        profiler::nested_op("aten::expand", {&t, nullptr, nullptr}, [&] { return ag::expand(t, shape, false); }));
  }
  return r;
}

}  // namespace ember
