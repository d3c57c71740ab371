// Autograd for in-place ops on views: the base's history is rewritten so the
// gradient of the modified region flows through the in-place op (CopySlices).
#pragma once
#include "node.h"

namespace ember {

struct Geometry {
  DimVector sizes, strides;
  int64_t offset = 0;
  static Geometry of(const Tensor& t) { return {t.impl()->sizes, t.impl()->strides, t.offset()}; }
};

// A zero tensor laid out like `base` in a fresh storage of the same size, so
// `view` geometry (storage-relative) applies to it unchanged.
Tensor zeros_like_storage(const Geometry& base, size_t storage_bytes, ScalarType dtype, Device device);

// The base's grad_fn after an in-place op `fn` on one of its views.
struct CopySlices final : Node {
  Geometry base, view;
  size_t storage_bytes;
  Ref<Node> fn;
  CopySlices(const Tensor& base_t, const Tensor& view_t, Ref<Node> f);
  const char* name() const override { return "torch::autograd::CopySlices"; }
  TensorList apply(TensorList& grads) override;
  void release_variables() override { fn->release_variables(); }
};

// A view's grad_fn after its base's history changed: scatter into the base.
struct AsStridedBackward final : Node {
  Geometry base, view;
  size_t storage_bytes;
  ScalarType dtype;
  const char* display = "AsStridedBackward0";
  const char* name() const override { return display; }
  TensorList apply(TensorList& grads) override;
};

// Record `view` (made by basic indexing of `input`) as a differentiable view.
void record_view(const Tensor& input, const Tensor& view, const char* name);

void rebase_view_history(const Tensor& self, const Ref<Node>& node);

}  // namespace ember
