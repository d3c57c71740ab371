// Derivative helpers of the shape and sorting ops (see formulas_shape.h).
#include <algorithm>

#include "../core/parallel.h"
#include "autograd_ops.h"
#include "formulas.h"
#include "node.h"
#include "ops.h"
#include "ops/core/internal.h"
#include "ops/shape/shape_internal.h"

namespace ember {

namespace {

// (outer, n, inner) around dim of `sizes`.
void split3(IntArrayRef sizes, int64_t d, int64_t* outer, int64_t* inner) {
  *outer = 1;
  *inner = 1;
  for (int64_t i = 0; i < d; ++i) *outer *= sizes[i];
  for (int64_t i = d + 1; i < static_cast<int64_t>(sizes.size()); ++i) *inner *= sizes[i];
}

void check_index(int64_t v, int64_t n) {
  EMBER_CHECK_INDEX(v >= 0 && v < n, "index ", v, " is out of bounds for dimension with size ", n);
}

Tensor take_along_raw(const Tensor& x, int64_t d, const Tensor& idx) {
  if (x.device().is_meta()) return empty(idx.sizes(), x.dtype(), x.device());
  if (!x.device().is_cpu())  // as put_along_raw: the loop reads the indices on the host
    return to_device(take_along_raw(to_device(x, cpu_device()), d, to_device(idx, cpu_device())), x.device());
  Tensor xc = contiguous(x, MemoryFormat::Contiguous);
  Tensor ic = contiguous(idx, MemoryFormat::Contiguous);
  Tensor out = empty(ic.sizes(), x.dtype());
  int64_t outer, inner;
  split3(ic.sizes(), d, &outer, &inner);
  int64_t k = ic.dim() == 0 ? 1 : ic.size(d), n = xc.dim() == 0 ? 1 : xc.size(d);
  const int64_t* ip = ic.data<int64_t>();
  for (int64_t i = 0; i < ic.numel(); ++i) check_index(ip[i], n);
  EMBER_DISPATCH_ALL(x.dtype(), "take_along", [&] {
    const scalar_t* xp = xc.data<scalar_t>();
    scalar_t* op = out.data<scalar_t>();
    GilRelease nogil;
    parallel_for(0, outer, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(k * inner, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t o = b; o < e; ++o)
                     for (int64_t j = 0; j < k; ++j)
                       for (int64_t i = 0; i < inner; ++i) {
                         int64_t at = (o * k + j) * inner + i;
                         op[at] = xp[(o * n + ip[at]) * inner + i];
                       }
                 });
  });
  return out;
}

Tensor put_along_raw(const Tensor& g, int64_t d, const Tensor& idx, IntArrayRef sizes) {
  // The loop below reads the indices on the host: a device tensor's are copied over and back
  // (sort / topk / kthvalue backward on a GPU) until the CUDA backend has a scatter-add.
  if (g.device().is_meta()) return empty(sizes, g.dtype(), g.device());
  if (!g.device().is_cpu())
    return to_device(put_along_raw(to_device(g, cpu_device()), d, to_device(idx, cpu_device()), sizes), g.device());
  Tensor gc = contiguous(g, MemoryFormat::Contiguous);
  Tensor ic = contiguous(idx, MemoryFormat::Contiguous);
  Tensor out = zeros(sizes, g.dtype(), std::nullopt);
  int64_t outer, inner;
  split3(ic.sizes(), d, &outer, &inner);
  int64_t k = ic.dim() == 0 ? 1 : ic.size(d), n = sizes.empty() ? 1 : sizes[d];
  const int64_t* ip = ic.data<int64_t>();
  for (int64_t i = 0; i < ic.numel(); ++i) check_index(ip[i], n);
  EMBER_DISPATCH_FLOAT(g.dtype(), "put_along", [&] {
    using V = opmath_t<scalar_t>;
    const scalar_t* gp = gc.data<scalar_t>();
    scalar_t* op = out.data<scalar_t>();
    GilRelease nogil;
    // Parallel over `outer` only: indices may repeat along dim (accumulation).
    parallel_for(0, outer, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(k * inner, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t o = b; o < e; ++o)
                     for (int64_t j = 0; j < k; ++j)
                       for (int64_t i = 0; i < inner; ++i) {
                         int64_t at = (o * k + j) * inner + i;
                         scalar_t& dst = op[(o * n + ip[at]) * inner + i];
                         dst = static_cast<scalar_t>(static_cast<V>(dst) + static_cast<V>(gp[at]));
                       }
                 });
  });
  return out;
}

struct GatherBackwardNode final : Node {
  Tensor idx;
  int64_t dim = 0;
  DimVector sizes;
  const char* name() const override { return "GatherBackward0"; }
  TensorList apply(TensorList& grads) override {
    TensorList out(1);
    if (grads.empty() || !grads[0].defined()) return out;
    out[0] = put_along(grads[0], dim, idx, sizes);
    return out;
  }
};

struct ScatterAddBackwardNode final : Node {
  Tensor idx;
  int64_t dim = 0;
  const char* name() const override { return "ScatterAddBackward0"; }
  TensorList apply(TensorList& grads) override {
    TensorList out(1);
    if (grads.empty() || !grads[0].defined()) return out;
    out[0] = take_along(grads[0], dim, idx);
    return out;
  }
};

Tensor zeros_of(IntArrayRef sizes, ScalarType dt, Device device) { return zeros(sizes, dt, device); }

// The device of the pieces' gradients (the first defined one), for the zeros standing in for the rest.
Device grads_device(const TensorList& grads) {
  for (const Tensor& g : grads)
    if (g.defined()) return g.device();
  return cpu_device();
}

Tensor cast_to(const Tensor& g, ScalarType dt) { return g.dtype() == dt ? g : ag::_to_copy(g, dt); }

// Pieces of a split as (start, length); gradients are laid back into place with cat.
Tensor join_pieces(const TensorList& grads, IntArrayRef input_sizes, ScalarType dtype, int64_t dim,
                   const std::vector<int64_t>& starts, const std::vector<int64_t>& lengths) {
  int64_t d = wrap_dim(dim, static_cast<int64_t>(input_sizes.size()));
  bool disjoint = true;
  int64_t at = 0;
  for (size_t i = 0; i < starts.size(); ++i) {
    if (starts[i] != at) disjoint = false;
    at = starts[i] + lengths[i];
  }
  if (disjoint && at == input_sizes[d]) {
    TensorList parts;
    for (size_t i = 0; i < lengths.size(); ++i) {
      DimVector s = to_vec(input_sizes);
      s[d] = lengths[i];
      parts.push_back(i < grads.size() && grads[i].defined() ? grads[i] : zeros_of(s, dtype, grads_device(grads)));
    }
    return ag::cat(parts, d);
  }
  // Overlapping or incomplete pieces (tensor_split with unsorted indices): sum padded pieces.
  Tensor total;
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (i >= grads.size() || !grads[i].defined()) continue;
    Tensor p = narrow_backward(grads[i], input_sizes, d, starts[i], lengths[i]);
    total = total.defined() ? ag::add(total, p, Scalar(int64_t(1))) : p;
  }
  return total.defined() ? total : zeros_of(input_sizes, dtype, grads_device(grads));
}

Tensor join_lengths(const TensorList& grads, IntArrayRef input_sizes, ScalarType dtype, int64_t dim,
                    const std::vector<int64_t>& lengths) {
  std::vector<int64_t> starts;
  int64_t at = 0;
  for (int64_t l : lengths) {
    starts.push_back(at);
    at += l;
  }
  return join_pieces(grads, input_sizes, dtype, dim, starts, lengths);
}

// Pad `t` with zeros along dim to `before + t.size(dim) + after`.
Tensor pad_dim(const Tensor& t, int64_t d, int64_t before, int64_t after) {
  if (before == 0 && after == 0) return t;
  TensorList parts;
  DimVector s = to_vec(t.sizes());
  if (before > 0) {
    s[d] = before;
    parts.push_back(zeros_of(s, t.dtype(), t.device()));
  }
  parts.push_back(t);
  if (after > 0) {
    s[d] = after;
    parts.push_back(zeros_of(s, t.dtype(), t.device()));
  }
  return ag::cat(parts, d);
}

// Crop or zero-pad dim d of t to `target`.
Tensor fit_dim(const Tensor& t, int64_t d, int64_t target) {
  int64_t n = t.size(d);
  if (n > target) return ag::narrow(t, d, 0, target);
  return pad_dim(t, d, 0, target - n);
}

}  // namespace

Tensor take_along(const Tensor& x, int64_t dim, const Tensor& idx) {
  int64_t d = x.dim() == 0 ? 0 : wrap_dim(dim, x.dim());
  Tensor r = take_along_raw(x, d, idx);
  if (GradMode::is_enabled() && x.requires_grad() && is_differentiable(r)) {
    auto node = make_ref<GatherBackwardNode>();
    node->idx = idx;
    node->dim = d;
    node->sizes = to_vec(x.sizes());
    node->set_next_edges({&x});
    set_history(r, node);
  }
  return r;
}

Tensor put_along(const Tensor& g, int64_t dim, const Tensor& idx, IntArrayRef sizes) {
  int64_t d = sizes.empty() ? 0 : wrap_dim(dim, static_cast<int64_t>(sizes.size()));
  Tensor r = put_along_raw(g, d, idx, sizes);
  if (GradMode::is_enabled() && g.requires_grad() && is_differentiable(r)) {
    auto node = make_ref<ScatterAddBackwardNode>();
    node->idx = idx;
    node->dim = d;
    node->set_next_edges({&g});
    set_history(r, node);
  }
  return r;
}

// ---- Tensor[] inputs ----

TensorList cat_backward(const Tensor& grad, const std::vector<DimVector>& sizes, const std::vector<ScalarType>& dtypes,
                        int64_t dim) {
  TensorList out;
  const DimVector* ref = nullptr;
  for (const auto& s : sizes)
    if (!(s.size() == 1 && s[0] == 0)) {
      ref = &s;
      break;
    }
  int64_t d = ref ? wrap_dim(dim, static_cast<int64_t>(ref->size())) : 0;
  int64_t at = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i].size() == 1 && sizes[i][0] == 0 && ref) {  // skipped by cat (legacy empty)
      out.push_back(zeros_of(sizes[i], dtypes[i], grad.device()));
      continue;
    }
    int64_t len = sizes[i].empty() ? 0 : sizes[i][d];
    out.push_back(cast_to(ag::narrow(grad, d, at, len), dtypes[i]));
    at += len;
  }
  return out;
}

TensorList stack_backward(const Tensor& grad, const std::vector<ScalarType>& dtypes, int64_t dim) {
  int64_t d = wrap_dim(dim, grad.dim());
  TensorList out;
  for (size_t i = 0; i < dtypes.size(); ++i)
    out.push_back(cast_to(ag::select(grad, d, static_cast<int64_t>(i)), dtypes[i]));
  return out;
}

TensorList hvdstack_backward(const Tensor& grad, const std::vector<DimVector>& sizes,
                             const std::vector<ScalarType>& dtypes, int kind) {
  // The joined pieces are the inputs made at least 1-, 2- or 3-d.
  std::vector<DimVector> lifted;
  for (const auto& s : sizes) {
    DimVector l = s;
    if (kind == 0 && l.empty()) l = {1};
    if (kind == 1) {
      if (l.empty()) l = {1, 1};
      else if (l.size() == 1) l = {1, l[0]};
    }
    if (kind == 2) {
      if (l.empty()) l = {1, 1, 1};
      else if (l.size() == 1) l = {1, l[0], 1};
      else if (l.size() == 2) l = {l[0], l[1], 1};
    }
    lifted.push_back(l);
  }
  int64_t dim = kind == 0 ? (lifted[0].size() == 1 ? 0 : 1) : kind == 1 ? 0 : 2;
  TensorList parts = cat_backward(grad, lifted, dtypes, dim);
  for (size_t i = 0; i < parts.size(); ++i) parts[i] = ag::reshape(parts[i], sizes[i]);
  return parts;
}

// ---- Tensor[] returns ----

Tensor split_backward(const TensorList& grads, IntArrayRef input_sizes, ScalarType dtype, int64_t dim,
                      const std::vector<int64_t>& pieces) {
  return join_lengths(grads, input_sizes, dtype, dim, pieces);
}

Tensor split_size_backward(const TensorList& grads, IntArrayRef input_sizes, ScalarType dtype, int64_t split,
                           int64_t dim) {
  int64_t d = wrap_dim(dim, static_cast<int64_t>(input_sizes.size()));
  return join_lengths(grads, input_sizes, dtype, d, split_pieces(input_sizes[d], split));
}

Tensor chunk_backward(const TensorList& grads, IntArrayRef input_sizes, ScalarType dtype, int64_t chunks, int64_t dim) {
  int64_t d = wrap_dim(dim, static_cast<int64_t>(input_sizes.size()));
  return join_lengths(grads, input_sizes, dtype, d, chunk_pieces(input_sizes[d], chunks));
}

Tensor tensor_split_backward(const TensorList& grads, IntArrayRef input_sizes, ScalarType dtype,
                             std::optional<int64_t> sections, IntArrayRef indices, int64_t dim) {
  int64_t d = wrap_dim(dim, static_cast<int64_t>(input_sizes.size()));
  std::vector<int64_t> pairs = tensor_split_pieces(input_sizes[d], sections, indices);
  std::vector<int64_t> starts, lengths;
  for (size_t i = 0; i < pairs.size(); i += 2) {
    starts.push_back(pairs[i]);
    lengths.push_back(pairs[i + 1]);
  }
  return join_pieces(grads, input_sizes, dtype, d, starts, lengths);
}

Tensor unbind_backward(const TensorList& grads, IntArrayRef input_sizes, ScalarType dtype, int64_t dim) {
  int64_t d = wrap_dim(dim, static_cast<int64_t>(input_sizes.size()));
  DimVector s = to_vec(input_sizes);
  s.erase(static_cast<size_t>(d));
  TensorList parts;
  for (int64_t i = 0; i < input_sizes[d]; ++i) {
    size_t k = static_cast<size_t>(i);
    parts.push_back(k < grads.size() && grads[k].defined() ? grads[k] : zeros_of(s, dtype, grads_device(grads)));
  }
  return ag::stack(parts, d);
}

TensorList atleast_list_backward(const TensorList& grads, const std::vector<DimVector>& sizes,
                                 const std::vector<ScalarType>& dtypes) {
  TensorList out;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i < grads.size() && grads[i].defined()) out.push_back(cast_to(ag::reshape(grads[i], sizes[i]), dtypes[i]));
    else out.push_back(Tensor());
  }
  return out;
}

// ---- views and reorderings ----

Tensor narrow_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t start, int64_t length) {
  int64_t d = wrap_dim(dim, static_cast<int64_t>(sizes.size()));
  if (start < 0) start += sizes[d];
  return pad_dim(grad, d, start, sizes[d] - start - length);
}

Tensor select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t index) {
  int64_t d = wrap_dim(dim, static_cast<int64_t>(sizes.size()));
  if (index < 0) index += sizes[d];
  return narrow_backward(ag::unsqueeze(grad, d), sizes, d, index, 1);
}

Tensor unfold_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t size, int64_t step) {
  if (sizes.empty()) return ag::reshape(grad, sizes);
  int64_t d = wrap_dim(dim, static_cast<int64_t>(sizes.size()));
  int64_t windows = grad.size(d);
  if (grad.numel() == 0) return zeros_of(sizes, grad.dtype(), grad.device());
  Tensor total;
  for (int64_t w = 0; w < windows; ++w) {
    // Window w: (…, size) with its elements at [w*step, w*step+size) of dim d.
    Tensor g = ag::movedim_int(ag::select(grad, d, w), -1, d);
    Tensor p = narrow_backward(g, sizes, d, w * step, size);
    total = total.defined() ? ag::add(total, p, Scalar(int64_t(1))) : p;
  }
  return total;
}

Tensor as_strided_backward(const Tensor& grad, const Tensor& input, IntArrayRef size, IntArrayRef stride,
                           std::optional<int64_t> offset) {
  // Storage positions of every output and input element, relative to the lowest one used.
  int64_t out_off = offset ? *offset : input.offset();
  auto positions = [](IntArrayRef sz, IntArrayRef st, int64_t off) {
    Tensor p = empty(sz, ScalarType::Int64);
    int64_t* d = p.data<int64_t>();
    int64_t n = p.numel();
    for (int64_t i = 0; i < n; ++i) {
      int64_t rem = i, at = off;
      for (int64_t k = static_cast<int64_t>(sz.size()) - 1; k >= 0; --k) {
        at += (rem % sz[k]) * st[k];
        rem /= sz[k];
      }
      d[i] = at;
    }
    return reshape(p, {-1});
  };
  Tensor op = positions(size, stride, out_off);
  Tensor ip = positions(input.sizes(), input.strides(), input.offset());
  int64_t hi = 0;
  for (const Tensor* t : {&op, &ip}) {
    const int64_t* d = t->data<int64_t>();
    for (int64_t i = 0; i < t->numel(); ++i) hi = std::max(hi, d[i] + 1);
  }
  Tensor flat = put_along(ag::reshape(grad, {-1}), 0, op, {hi});
  return ag::reshape(take_along(flat, 0, ip), input.sizes());
}

Tensor diagonal_backward(const Tensor& grad, IntArrayRef sizes, int64_t offset, int64_t dim1, int64_t dim2) {
  int64_t nd = static_cast<int64_t>(sizes.size());
  int64_t a = wrap_dim(dim1, nd), b = wrap_dim(dim2, nd);
  if (grad.numel() == 0 || grad.size(-1) == 0) return zeros_of(sizes, grad.dtype(), grad.device());
  Tensor e = ag::diag_embed(grad, offset, a, b);
  e = fit_dim(e, a, sizes[a]);
  return fit_dim(e, b, sizes[b]);
}

Tensor diag_backward(const Tensor& grad, IntArrayRef sizes, int64_t diagonal) {
  if (sizes.size() == 1) return ag::diagonal(grad, diagonal, 0, 1);
  return diagonal_backward(grad, sizes, diagonal, 0, 1);
}

Tensor movedim_backward(const Tensor& grad, IntArrayRef source, IntArrayRef destination) {
  return ag::movedim(grad, destination, source);
}

Tensor roll_backward(const Tensor& grad, IntArrayRef shifts, IntArrayRef dims) {
  DimVector neg;
  for (int64_t s : shifts) neg.push_back(-s);
  return ag::roll(grad, neg, dims);
}

Tensor flip_lr_ud_backward(const Tensor& grad, int64_t dim) { return ag::flip(grad, {dim}); }

DimVector tile_repeats(IntArrayRef sizes, IntArrayRef dims) {
  DimVector reps(std::max<int64_t>(static_cast<int64_t>(sizes.size()) - static_cast<int64_t>(dims.size()), 0), 1);
  for (int64_t d : dims) reps.push_back(d);
  return reps;
}

Tensor repeat_backward(const Tensor& grad, IntArrayRef sizes, IntArrayRef repeats) {
  int64_t nr = static_cast<int64_t>(repeats.size());
  DimVector padded(nr - static_cast<int64_t>(sizes.size()), 1);
  for (int64_t s : sizes) padded.push_back(s);
  for (int64_t r : repeats)
    if (r == 0) return zeros_of(sizes, grad.dtype(), grad.device());
  DimVector split, sum_dims;
  for (int64_t i = 0; i < nr; ++i) {
    split.push_back(repeats[i]);
    split.push_back(padded[i]);
    sum_dims.push_back(2 * i);
  }
  Tensor g = ag::reshape(grad, split);
  if (!sum_dims.empty()) g = ag::sum(g, std::optional<IntArrayRef>(sum_dims), false, std::nullopt);
  return ag::reshape(g, sizes);
}

Tensor repeat_interleave_backward(const Tensor& grad, IntArrayRef sizes, const Tensor& repeats,
                                  std::optional<int64_t> dim) {
  int64_t d = dim ? wrap_dim(*dim, std::max<int64_t>(static_cast<int64_t>(sizes.size()), 1)) : 0;
  int64_t n = dim ? (sizes.empty() ? 1 : sizes[d]) : compute_numel(sizes);
  if (!grad.device().is_cpu()) {
    // on a device: the forward's gather index, its gradient one index_add (a sum per slice would
    // launch once per slice); the repeats stay there
    Tensor reps = _to_copy(to_device(repeats, grad.device()), ScalarType::Int64);
    if (reps.numel() == 1) reps = expand(reshape(reps, {1}), {n}, false);
    const Tensor g = dim ? grad : ag::reshape(grad, {-1});
    DimVector shape = dim ? to_vec(sizes) : DimVector{n};
    if (shape.empty()) shape.push_back(1);
    const Tensor index = repeat_interleave_index(reps, g.size(d));
    return ag::reshape(ag::index_add(zeros_of(shape, grad.dtype(), grad.device()), d, index, g), sizes);
  }
  Tensor r64 = contiguous(_to_copy(repeats, ScalarType::Int64), MemoryFormat::Contiguous);
  std::vector<int64_t> reps(r64.data<int64_t>(), r64.data<int64_t>() + r64.numel());
  Tensor g = grad;
  TensorList parts;
  int64_t at = 0;
  for (int64_t i = 0; i < n; ++i) {
    int64_t r = reps.size() == 1 ? reps[0] : reps[i];
    Tensor piece = ag::narrow(g, d, at, r);
    parts.push_back(ag::sum(piece, std::optional<IntArrayRef>(IntArrayRef(&d, 1)), true, std::nullopt));
    at += r;
  }
  if (parts.empty()) return zeros_of(sizes, grad.dtype(), grad.device());
  return ag::reshape(ag::cat(parts, d), sizes);
}

Tensor sort_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, const Tensor& indices, bool keepdim) {
  if (sizes.empty()) return ag::reshape(grad, sizes);
  int64_t d = wrap_dim(dim, static_cast<int64_t>(sizes.size()));
  Tensor g = keepdim ? grad : ag::unsqueeze(grad, d);
  Tensor idx = keepdim ? indices : unsqueeze(indices, d);
  return put_along(g, d, idx, sizes);
}

}  // namespace ember
