// View ops: new sizes/strides over the same storage (and version counter).
#include <algorithm>

#include "core/profiler_op.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"
#include "ops/shape/shape_internal.h"

namespace ember {

namespace {

// Resolve one -1 in a requested shape, with PyTorch's messages.
DimVector infer_size(IntArrayRef shape, int64_t numel) {
  DimVector out = to_vec(shape);
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      EMBER_CHECK(infer < 0, "only one dimension can be inferred");
      infer = static_cast<int>(i);
    } else {
      EMBER_CHECK(shape[i] >= 0, "invalid shape dimension ", shape[i]);
      known *= shape[i];
    }
  }
  bool ok = infer >= 0 ? (known > 0 && numel % known == 0) : known == numel;
  EMBER_CHECK(ok, "shape '", shape_str(shape), "' is invalid for input of size ", numel);
  if (infer >= 0) out[infer] = numel / known;
  return out;
}

// Strides for viewing (old sizes, strides) as new sizes, if no copy is needed:
// old dims are grouped into chunks contiguous with each other, and every new
// dim must fall inside one chunk.
bool view_strides(IntArrayRef old_sizes, IntArrayRef old_strides, IntArrayRef sizes, DimVector* out) {
  out->resize(sizes.size());
  if (old_sizes.empty()) {
    for (auto& s : *out) s = 1;
    return true;
  }
  int64_t numel = compute_numel(old_sizes);
  if (numel == 0) {
    *out = old_sizes.equals(sizes) ? to_vec(old_strides) : contiguous_strides(sizes);
    return true;
  }
  int64_t view_d = static_cast<int64_t>(sizes.size()) - 1;
  int64_t chunk_base = old_strides[old_sizes.size() - 1];
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(old_sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= old_sizes[d];
    if (d == 0 || (old_sizes[d - 1] != 1 && old_strides[d - 1] != tensor_numel * chunk_base)) {
      while (view_d >= 0 && (view_numel < tensor_numel || sizes[view_d] == 1)) {
        (*out)[view_d] = view_numel * chunk_base;
        view_numel *= sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base = old_strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

Tensor restride(const Tensor& t, IntArrayRef sizes, IntArrayRef strides) {
  return make_view(t, sizes, strides, t.offset());
}

// Apply new sizes/strides to `self` itself (the in-place view ops).
Tensor restride_(const Tensor& self, const Tensor& v) {
  TensorImpl* s = self.impl();
  s->sizes = v.impl()->sizes;
  s->strides = v.impl()->strides;
  s->refresh();
  return self;
}

// aten's in-place views restride self through as_strided_ (its event nests in the op's).
Tensor restride_op_(const Tensor& self, const Tensor& v) {
  check_view_inplace(self, false);  // t_() on a piece of split is refused, as any in-place op
  return profiler::nested_op("aten::as_strided_", {&self, nullptr, nullptr, nullptr},
                             [&] { return restride_(self, v); });
}

}  // namespace

Tensor view(const Tensor& self, IntArrayRef size) {
  DimVector shape = infer_size(size, self.numel());
  DimVector st;
  EMBER_CHECK(view_strides(self.sizes(), self.strides(), shape, &st),
              "view size is not compatible with input tensor's size and stride (at least one "
              "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  return restride(self, shape, st);
}

Tensor view(const Tensor& self, ScalarType dtype) {
  EMBER_CHECK(!self.impl()->conj,
              "torch.Tensor.view is not supported for conjugate view tensors when converting to a different dtype.");
  if (dtype == self.dtype()) return restride(self, self.sizes(), self.strides());
  size_t a = self.itemsize(), b = element_size(dtype);
  DimVector sizes = to_vec(self.sizes()), strides = to_vec(self.strides());
  int64_t off = self.offset();
  if (a != b) {
    EMBER_CHECK(self.dim() > 0, "self.dim() cannot be 0 to view ", legacy_name(self.dtype()), " as ",
                legacy_name(dtype), " (different element sizes)");
    EMBER_CHECK(strides.back() == 1, "self.stride(-1) must be 1 to view ", legacy_name(self.dtype()), " as ",
                legacy_name(dtype), " (different element sizes), but got ", strides.back());
    if (b > a) {
      int64_t r = static_cast<int64_t>(b / a);
      EMBER_CHECK(sizes.back() % r == 0, "self.size(-1) must be divisible by ", r, " to view ",
                  legacy_name(self.dtype()), " as ", legacy_name(dtype), " (different element sizes), but got ",
                  sizes.back());
      EMBER_CHECK(off % r == 0, "self.storage_offset() must be divisible by ", r, " to view ",
                  legacy_name(self.dtype()), " as ", legacy_name(dtype));
      sizes.back() /= r;
      for (size_t i = 0; i + 1 < strides.size(); ++i) {
        EMBER_CHECK(strides[i] % r == 0, "self.stride(", i, ") must be divisible by ", r, " to view ",
                    legacy_name(self.dtype()), " as ", legacy_name(dtype), " (different element sizes), but got ",
                    strides[i]);
        strides[i] /= r;
      }
      off /= r;
    } else {
      int64_t r = static_cast<int64_t>(a / b);
      sizes.back() *= r;
      for (size_t i = 0; i + 1 < strides.size(); ++i) strides[i] *= r;
      off *= r;
    }
  }
  Tensor v = make_view(self, sizes, strides, off);
  v.impl()->dtype = dtype;
  return v;
}

// reshape's copy (out of line: the view path stays small)
[[gnu::noinline]] static Tensor reshape_copy(const Tensor& input, const DimVector& s) {
  Tensor c =
      profiler::nested_op("aten::clone", {&input, nullptr}, [&] { return clone(input, MemoryFormat::Contiguous); });
  return profiler::nested_op("aten::_unsafe_view", {&c, nullptr},
                             [&] { return make_view(c, s, contiguous_strides(s), 0); });
}

Tensor reshape(const Tensor& input, IntArrayRef shape) {
  // aten's reshape is a view, or a clone and an _unsafe_view of it: each its own nested event
  DimVector s = infer_size(shape, input.numel());
  DimVector st;
  if (!view_strides(input.sizes(), input.strides(), s, &st)) return reshape_copy(input, s);
  return profiler::nested_op("aten::view", {&input, nullptr}, [&] { return restride(input, s, st); });
}

Tensor _unsafe_view(const Tensor& self, IntArrayRef size) {
  Tensor v = view(self, size);  // view()'s size rules and errors; always a new TensorImpl
  drop_view(v.impl());          // aliases a fresh intermediate nobody else sees: no view for autograd
  return v;
}

Tensor view_as(const Tensor& self, const Tensor& other) {
  return profiler::nested_op("aten::view", {&self, nullptr}, [&] { return view(self, other.sizes()); });
}
Tensor reshape_as(const Tensor& self, const Tensor& other) {
  return profiler::nested_op("aten::reshape", {&self, nullptr}, [&] { return reshape(self, other.sizes()); });
}

Tensor permute(const Tensor& input, IntArrayRef dims) {
  int64_t nd = input.dim();
  EMBER_CHECK(static_cast<int64_t>(dims.size()) == nd,
              "permute(sparse_coo): number of dimensions in the tensor input does not match the "
              "length of the desired ordering of dimensions i.e. input.dim() = ",
              nd, " is not equal to len(dims) = ", dims.size());
  DimVector sizes(nd), strides(nd);
  SmallVec<bool, 8> seen(static_cast<size_t>(nd), false);
  for (int64_t i = 0; i < nd; ++i) {
    int64_t d = wrap_dim(dims[i], nd);
    EMBER_CHECK(!seen[d], "permute(): duplicate dims are not allowed.");
    seen[d] = true;
    sizes[i] = input.sizes()[d];
    strides[i] = input.strides()[d];
  }
  return via_as_strided(input, [&] { return restride(input, sizes, strides); });
}

namespace {
// `input` with dims a and b swapped (a raw view: the in-place ops restride with it).
Tensor swapped(const Tensor& input, int64_t a, int64_t b) {
  DimVector sizes = to_vec(input.sizes()), strides = to_vec(input.strides());
  std::swap(sizes[a], sizes[b]);
  std::swap(strides[a], strides[b]);
  return restride(input, sizes, strides);
}
}  // namespace

Tensor transpose(const Tensor& input, int64_t dim0, int64_t dim1) {
  int64_t nd = input.dim();
  int64_t a = wrap_dim(dim0, nd), b = wrap_dim(dim1, nd);
  // aten's transpose is an alias of a 0-d tensor or for one dim twice, else an as_strided view:
  // that op's event nests in transpose's, as in PyTorch's trace
  if (nd == 0 || a == b)
    return profiler::nested_op("aten::alias", {&input},
                               [&] { return restride(input, input.sizes(), input.strides()); });
  DimVector sizes = to_vec(input.sizes()), strides = to_vec(input.strides());
  std::swap(sizes[a], sizes[b]);
  std::swap(strides[a], strides[b]);
  return profiler::nested_op("aten::as_strided", {&input, nullptr, nullptr, nullptr},
                             [&] { return as_strided(input, sizes, strides, std::nullopt); });
}
Tensor transpose_(const Tensor& self, int64_t dim0, int64_t dim1) {
  int64_t nd = self.dim();
  int64_t a = wrap_dim(dim0, nd), b = wrap_dim(dim1, nd);
  return nd == 0 || a == b ? self : restride_op_(self, swapped(self, a, b));
}

Tensor t(const Tensor& input) {
  EMBER_CHECK(input.dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ", input.dim(), "D");
  // aten's t is transpose(0, 0) of a 0- or 1-d tensor (an alias), else transpose(0, 1)
  int64_t b = input.dim() < 2 ? 0 : 1;
  return profiler::nested_op("aten::transpose", {&input, nullptr, nullptr}, [&] { return transpose(input, 0, b); });
}
Tensor t_(const Tensor& self) {
  EMBER_CHECK(self.dim() <= 2, "t_() expects a tensor with <= 2 dimensions, but self is ", self.dim(), "D");
  // aten's t_ is transpose_(0, 0) of a 0- or 1-d tensor (self), else transpose_(0, 1)
  int64_t b = self.dim() < 2 ? 0 : 1;
  return profiler::nested_op("aten::transpose_", {&self, nullptr, nullptr}, [&] { return transpose_(self, 0, b); });
}

Tensor adjoint(const Tensor& input) {
  if (input.dim() == 0) {
    warn("adjoint() is deprecated on 0-D tensors. Consider using x.conj().");
    return is_complex(input.dtype()) ? conj_physical(input) : input;  // PyTorch's x.conj() (itself if real)
  }
  EMBER_CHECK(input.dim() >= 2, "tensor.adjoint() is only supported on matrices or batches of matrices. Got ",
              input.dim(), "-D tensor.");
  // a complex adjoint conjugates too (a copy: ember has no lazy conjugate bit)
  Tensor tr =
      profiler::nested_op("aten::transpose", {&input, nullptr, nullptr}, [&] { return transpose(input, -2, -1); });
  return is_complex(input.dtype()) ? conj_physical(tr) : tr;
}

Tensor expand(const Tensor& self, IntArrayRef size, bool implicit) {
  (void)implicit;
  int64_t nd = self.dim(), n = static_cast<int64_t>(size.size());
  EMBER_CHECK(n >= nd, "expand(", cpu_type_string(self.dtype()), "{", shape_str(self.sizes()),
              "}, size=", shape_str(size), "): the number of sizes provided (", n,
              ") must be greater or equal to the number of dimensions in the tensor (", nd, ")");
  DimVector sizes(n), strides(n);
  for (int64_t i = n - 1; i >= 0; --i) {
    int64_t off = i - (n - nd);
    int64_t want = size[i];
    if (off < 0) {
      EMBER_CHECK(want >= 0, "The expanded size of the tensor (", want,
                  ") isn't allowed in a leading, non-existing dimension ", i);
      sizes[i] = want;
      strides[i] = 0;
      continue;
    }
    int64_t have = self.sizes()[off];
    if (want == -1) want = have;
    EMBER_CHECK(want >= 0, "expand: the expanded size of the tensor (", want,
                ") is not allowed: sizes must be "
                "non-negative or -1. Target sizes: ",
                shape_str(size));
    EMBER_CHECK(have == want || have == 1, "The expanded size of the tensor (", want,
                ") must match the existing size (", have, ") at non-singleton dimension ", i,
                ".  Target sizes: ", shape_str(size), ".  Tensor sizes: ", shape_str(self.sizes()));
    sizes[i] = want;
    strides[i] = have == want ? self.strides()[off] : 0;
  }
  // aten's expand is an as_strided view: its event nests in expand's, as in PyTorch's trace (the
  // view as_strided makes; its bounds checks hold by construction here)
  return profiler::nested_op("aten::as_strided", {&self, nullptr, nullptr, nullptr},
                             [&] { return restride(self, sizes, strides); });
}

// aten's expand_as and broadcast_to call expand (its event nests in theirs)
Tensor expand_as(const Tensor& self, const Tensor& other) {
  return profiler::nested_op("aten::expand", {&self, nullptr}, [&] { return expand(self, other.sizes(), false); });
}
Tensor broadcast_to(const Tensor& input, IntArrayRef size) {
  return profiler::nested_op("aten::expand", {&input, nullptr}, [&] { return expand(input, size, false); });
}

static Tensor squeeze_mask(const Tensor& input, const SmallVec<bool, 8>& drop) {
  DimVector sizes, strides;
  for (int64_t d = 0; d < input.dim(); ++d) {
    if (drop[d] && input.sizes()[d] == 1) continue;
    sizes.push_back(input.sizes()[d]);
    strides.push_back(input.strides()[d]);
  }
  return restride(input, sizes, strides);
}

static SmallVec<bool, 8> squeeze_all(const Tensor& input) {
  return SmallVec<bool, 8>(static_cast<size_t>(input.dim()), true);
}
static SmallVec<bool, 8> squeeze_dim(const Tensor& input, int64_t dim) {
  SmallVec<bool, 8> drop(static_cast<size_t>(input.dim()), false);
  int64_t d = wrap_dim(dim, input.dim());
  if (input.dim() > 0) drop[d] = true;
  return drop;
}
static SmallVec<bool, 8> squeeze_dims(const Tensor& input, IntArrayRef dims) {
  SmallVec<bool, 8> drop(static_cast<size_t>(input.dim()), false);
  const uint64_t bits = dim_list_bits(dims, input.dim());
  for (int64_t d = 0; d < input.dim(); ++d) drop[d] = (bits >> d) & 1u;
  return drop;
}

// aten's squeeze is an as_strided view (also when no dim goes)
Tensor squeeze(const Tensor& input) {
  SmallVec<bool, 8> drop = squeeze_all(input);
  return via_as_strided(input, [&] { return squeeze_mask(input, drop); });
}
Tensor squeeze(const Tensor& input, int64_t dim) {
  SmallVec<bool, 8> drop = squeeze_dim(input, dim);
  return via_as_strided(input, [&] { return squeeze_mask(input, drop); });
}
Tensor squeeze(const Tensor& input, IntArrayRef dims) {
  SmallVec<bool, 8> drop = squeeze_dims(input, dims);
  return via_as_strided(input, [&] { return squeeze_mask(input, drop); });
}
Tensor squeeze_(const Tensor& self) { return restride_op_(self, squeeze_mask(self, squeeze_all(self))); }
Tensor squeeze_(const Tensor& self, int64_t dim) {
  return restride_op_(self, squeeze_mask(self, squeeze_dim(self, dim)));
}
Tensor squeeze_(const Tensor& self, IntArrayRef dims) {
  return restride_op_(self, squeeze_mask(self, squeeze_dims(self, dims)));
}

static Tensor unsqueeze_view(const Tensor& input, int64_t dim) {
  int64_t nd = input.dim();
  EMBER_CHECK_INDEX(dim >= -nd - 1 && dim <= nd, "Dimension out of range (expected to be in range of [", -nd - 1, ", ",
                    nd, "], but got ", dim, ")");
  int64_t d = dim < 0 ? dim + nd + 1 : dim;
  DimVector sizes = to_vec(input.sizes()), strides = to_vec(input.strides());
  int64_t st = d < nd ? input.strides()[d] * input.sizes()[d] : 1;
  sizes.insert(static_cast<size_t>(d), 1);
  strides.insert(static_cast<size_t>(d), st);
  return restride(input, sizes, strides);
}
Tensor unsqueeze(const Tensor& input, int64_t dim) {
  return via_as_strided(input, [&] { return unsqueeze_view(input, dim); });  // aten's is an as_strided view
}
Tensor unsqueeze_(const Tensor& self, int64_t dim) { return restride_op_(self, unsqueeze_view(self, dim)); }

Tensor flatten(const Tensor& input, int64_t start_dim, int64_t end_dim) {
  // aten wraps both dims first (a 0-d tensor takes 0 and -1), then reshapes a 0-d tensor to [1].
  int64_t s = wrap_dim(start_dim, input.dim()), e = wrap_dim(end_dim, input.dim());
  EMBER_CHECK(s <= e, "flatten() has invalid args: start_dim cannot come after end_dim");
  // (aten's flatten reshapes natively: the view / clone events nest in flatten's, except for 0-d)
  if (input.dim() == 0)
    return profiler::nested_op("aten::reshape", {&input, nullptr}, [&] { return reshape(input, {1}); });
  if (s == e) return input;
  DimVector shape;
  for (int64_t d = 0; d < s; ++d) shape.push_back(input.sizes()[d]);
  int64_t m = 1;
  for (int64_t d = s; d <= e; ++d) m *= input.sizes()[d];
  shape.push_back(m);
  for (int64_t d = e + 1; d < input.dim(); ++d) shape.push_back(input.sizes()[d]);
  return reshape(input, shape);
}

Tensor ravel(const Tensor& input) {
  // aten: contiguous(), then view(-1): the copy (when one is needed) and the view nest in ravel's
  if (input.is_contiguous())
    return profiler::nested_op("aten::view", {&input, nullptr}, [&] { return view(input, {-1}); });
  Tensor c = profiler::nested_op("aten::contiguous", {&input, nullptr}, [&] {
    return profiler::nested_op("aten::clone", {&input, nullptr},
                               [&] { return clone(input, MemoryFormat::Contiguous); });
  });
  return profiler::nested_op("aten::view", {&c, nullptr}, [&] { return view(c, {-1}); });
}

Tensor detach(const Tensor& input) {
  // the new tensor object is made in aten's autograd-level detach, its own event ("detach")
  return profiler::nested_op("detach", {&input}, [&] {
    Tensor r = restride(input, input.sizes(), input.strides());
    drop_view(r.impl());  // not a differentiable view: in-place on it is allowed
    return r;
  });
}
// detach_ edits the autograd meta: it lives in autograd/view_grad.cpp.
Tensor alias(const Tensor& input) { return restride(input, input.sizes(), input.strides()); }

}  // namespace ember
