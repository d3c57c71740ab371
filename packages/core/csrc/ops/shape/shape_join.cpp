// Joins (cat, stack, hstack/vstack/dstack) and splits (split, chunk, tensor_split, unbind,
// atleast_*d); meshgrid and broadcast_tensors are in autograd/composite_shape.cpp).
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "core/grad_mode.h"
#include "iter/elementwise_iter.h"
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/internal.h"
#include "ops/shape/shape_internal.h"

namespace ember {

namespace {

// PyTorch still skips 1-d empty tensors in cat (their shape may not match).
bool legacy_skip(const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

// Copy `src` (any layout, any dtype) into slab [offset, offset+len) along dim of `dst`.
// Contiguous same-dtype blocks are the backend's cat_block (memcpy, rows in parallel).
void copy_block(const Tensor& dst, const Tensor& src, int64_t dim, int64_t offset) {
  int64_t len = src.size(dim);
  if (src.numel() == 0) return;
  if (dst.is_contiguous() && src.is_contiguous() && src.dtype() == dst.dtype()) {
    backend(dst).shape.cat_block(dst, src, dim, offset);
    return;
  }
  copy_(slice_view(dst, dim, offset, len), src, false);
}

std::string sizes_at(const TensorList& ts, size_t i) { return shape_str(ts[i].sizes()); }

}  // namespace

static ScalarType cat_dtype(const TensorList& tensors);

// aten's cat meta order: the list, 0-d entries, the dim, an out= dtype the result can't be cast
// to (TypeError), then the sizes.
static DimVector cat_shape(const TensorList& tensors, int64_t dim, int64_t* wdim, const char* name,
                           const Tensor* out_arg = nullptr) {
  EMBER_CHECK_VALUE(!tensors.empty(), "torch.", name, "(): expected a non-empty list of Tensors");
  const Tensor* ref = nullptr;
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].dim() > 0, "zero-dimensional tensor (at position ", i, ") cannot be concatenated");
    if (!ref && !legacy_skip(tensors[i])) ref = &tensors[i];
  }
  const int64_t d = ref ? wrap_dim(dim, ref->dim()) : 0;  // legacy_cat_wrap_dim: no dim to wrap when all are skipped
  *wdim = d;
  if (out_arg)
    EMBER_CHECK_TYPE(can_cast(cat_dtype(tensors), out_arg->dtype()), "torch.", name,
                     "(): input types can't be cast to the desired output type ", legacy_name(out_arg->dtype()));
  if (!ref) return DimVector{0};
  DimVector out = to_vec(ref->sizes());
  out[d] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (legacy_skip(t)) continue;
    EMBER_CHECK(t.dim() == ref->dim(), "Tensors must have same number of dimensions: got ", ref->dim(), " and ",
                t.dim());
    for (int64_t k = 0; k < t.dim(); ++k) {
      if (k == d) continue;
      EMBER_CHECK(t.size(k) == ref->size(k), "Sizes of tensors must match except in dimension ", d, ". Expected size ",
                  ref->size(k), " but got size ", t.size(k), " for tensor number ", i, " in the list.");
    }
    out[d] += t.size(d);
  }
  return out;
}

static ScalarType cat_dtype(const TensorList& tensors) {
  ScalarType dt = tensors[0].dtype();
  for (size_t i = 1; i < tensors.size(); ++i) dt = promote_types(dt, tensors[i].dtype());
  return dt;
}

static void cat_fill(const Tensor& out, const TensorList& tensors, int64_t d) {
  int64_t off = 0;
  for (const Tensor& t : tensors) {
    if (legacy_skip(t)) continue;
    copy_block(out, t, d, off);
    off += t.size(d);
  }
}

// aten's compute_output_memory_format: the inputs' suggested layout when they all share it
static MemoryFormat cat_memory_format(const TensorList& tensors) {
  std::optional<MemoryFormat> mf;
  for (const Tensor& t : tensors) {
    if (legacy_skip(t)) continue;
    const MemoryFormat m = suggest_memory_format(t);
    if (mf && *mf != m) return MemoryFormat::Contiguous;
    mf = m;
  }
  return mf.value_or(MemoryFormat::Contiguous);
}

Tensor cat(const TensorList& tensors, int64_t dim) {
  int64_t d = 0;
  DimVector shape = cat_shape(tensors, dim, &d, "cat");
  const MemoryFormat mf = cat_memory_format(tensors);
  Tensor out = empty_in_format(shape, mf, cat_dtype(tensors), tensors[0].device());
  cat_fill(out, tensors, d);
  return out;
}

Tensor cat_out(const TensorList& tensors, int64_t dim, const Tensor& out) {
  int64_t d = 0;
  DimVector shape = cat_shape(tensors, dim, &d, "cat", &out);
  check_no_internal_overlap(out);
  for (const Tensor& t : tensors) check_no_overlap(out, t);  // (resizing out would free an input's memory)
  resize_out(out, shape);
  cat_fill(out, tensors, d);
  out.bump_version();
  return out;
}

static TensorList stack_inputs(const TensorList& tensors, int64_t dim, int64_t* wdim) {
  EMBER_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
  int64_t d = wrap_dim(dim, tensors[0].dim() + 1);  // aten wraps before comparing the sizes
  for (size_t i = 1; i < tensors.size(); ++i)
    EMBER_CHECK(tensors[i].sizes().equals(tensors[0].sizes()), "stack expects each tensor to be equal size, but got ",
                sizes_at(tensors, 0), " at entry 0 and ", sizes_at(tensors, i), " at entry ", i);
  *wdim = d;
  TensorList us;
  for (const Tensor& t : tensors) us.push_back(unsqueeze(t, d));
  return us;
}

Tensor stack(const TensorList& tensors, int64_t dim) {
  int64_t d = 0;
  TensorList us = stack_inputs(tensors, dim, &d);
  return cat(us, d);
}

Tensor stack_out(const TensorList& tensors, int64_t dim, const Tensor& out) {
  int64_t d = 0;
  TensorList us = stack_inputs(tensors, dim, &d);
  return cat_out(us, d, out);
}

// ---- hstack / vstack / dstack ----

static TensorList atleast_all(const TensorList& tensors, int nd, const char* name) {
  EMBER_CHECK(!tensors.empty(), name, " expects a non-empty TensorList");
  TensorList r;
  for (const Tensor& t : tensors) r.push_back(nd == 1 ? atleast_1d(t) : nd == 2 ? atleast_2d(t) : atleast_3d(t));
  return r;
}

Tensor hstack(const TensorList& tensors) {
  TensorList r = atleast_all(tensors, 1, "hstack");
  return cat(r, r[0].dim() == 1 ? 0 : 1);
}
Tensor hstack_out(const TensorList& tensors, const Tensor& out) {
  TensorList r = atleast_all(tensors, 1, "hstack");
  return cat_out(r, r[0].dim() == 1 ? 0 : 1, out);
}
Tensor vstack(const TensorList& tensors) { return cat(atleast_all(tensors, 2, "vstack"), 0); }
Tensor vstack_out(const TensorList& tensors, const Tensor& out) {
  return cat_out(atleast_all(tensors, 2, "vstack"), 0, out);
}
Tensor dstack(const TensorList& tensors) { return cat(atleast_all(tensors, 3, "dstack"), 2); }
Tensor dstack_out(const TensorList& tensors, const Tensor& out) {
  return cat_out(atleast_all(tensors, 3, "dstack"), 2, out);
}

// ---- atleast_*d ----

// aten's atleast_*d call reshape / unsqueeze: their events nest in the caller's
static Tensor reshape_op(const Tensor& input, IntArrayRef shape) {
  return profiler::nested_op("aten::reshape", {&input, nullptr}, [&] { return reshape(input, shape); });
}
static Tensor unsqueeze_op(const Tensor& input, int64_t dim) {
  return profiler::nested_op("aten::unsqueeze", {&input, nullptr}, [&] { return unsqueeze(input, dim); });
}
Tensor atleast_1d(const Tensor& input) { return input.dim() == 0 ? reshape_op(input, {1}) : input; }
Tensor atleast_2d(const Tensor& input) {
  if (input.dim() == 0) return reshape_op(input, {1, 1});
  if (input.dim() == 1) return unsqueeze_op(input, 0);
  return input;
}
Tensor atleast_3d(const Tensor& input) {
  if (input.dim() == 0) return reshape_op(input, {1, 1, 1});
  if (input.dim() == 1) return unsqueeze_op(unsqueeze_op(input, 0), -1);
  if (input.dim() == 2) return unsqueeze_op(input, -1);
  return input;
}
TensorList atleast_1d_list(const TensorList& tensors) {
  TensorList r;
  for (const Tensor& t : tensors) r.push_back(atleast_1d(t));
  return r;
}
TensorList atleast_2d_list(const TensorList& tensors) {
  TensorList r;
  for (const Tensor& t : tensors) r.push_back(atleast_2d(t));
  return r;
}
TensorList atleast_3d_list(const TensorList& tensors) {
  TensorList r;
  for (const Tensor& t : tensors) r.push_back(atleast_3d(t));
  return r;
}

// ---- splits ----

std::vector<int64_t> split_pieces(int64_t dim_size, int64_t split_size) {
  EMBER_CHECK(split_size >= 0, "split expects split_size be non-negative, but got split_size=", split_size);
  EMBER_CHECK(split_size != 0 || dim_size == 0,
              "split_size can only be 0 if dimension size is 0, but got dimension "
              "size of ",
              dim_size);
  std::vector<int64_t> r;
  if (split_size == 0) return {0};
  int64_t n = std::max<int64_t>((dim_size + split_size - 1) / split_size, 1);
  for (int64_t i = 0; i < n; ++i) r.push_back(std::min(split_size, dim_size - i * split_size));
  return r;
}

namespace {

// A split into n pieces returns n tensors, each a view (and a Python object) of a few hundred
// bytes: past the memory this process may have (the machine's, or its address-space limit) aten's
// vector of n tensors fails to allocate, or pages for minutes first. The error comes at once,
// before any piece is made.
void check_piece_count(int64_t n, const char* name) {
  constexpr double kBytesPerPiece = 256;
  double memory = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  struct rlimit lim;
  if (getrlimit(RLIMIT_AS, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY)
    memory = std::min(memory, static_cast<double>(lim.rlim_cur));
  if (static_cast<double>(n) * kBytesPerPiece > memory)
    fail(ErrorKind::OutOfMemory, name, ": ", n, " pieces need more memory than this process can have (",
         static_cast<int64_t>(memory), " bytes)");
}

}  // namespace

std::vector<int64_t> chunk_pieces(int64_t dim_size, int64_t chunks) {
  EMBER_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  int64_t split_size = (dim_size + chunks - 1) / chunks;
  // An empty dim still gives `chunks` empty pieces.
  if (split_size == 0 && dim_size == 0) {
    check_piece_count(chunks, "chunk");
    return std::vector<int64_t>(static_cast<size_t>(chunks), 0);
  }
  return split_pieces(dim_size, split_size);
}

std::vector<int64_t> tensor_split_pieces(int64_t dim_size, std::optional<int64_t> sections, IntArrayRef indices) {
  std::vector<int64_t> bounds{0};
  if (sections) {
    int64_t n = *sections;
    EMBER_CHECK(n > 0, "number of sections must be larger than 0, got ", n);
    check_piece_count(n, "tensor_split");
    int64_t base = dim_size / n, extra = dim_size % n, at = 0;
    for (int64_t i = 0; i < n; ++i) {
      at += base + (i < extra ? 1 : 0);
      bounds.push_back(at);
    }
    bounds.back() = dim_size;
  } else {
    for (int64_t idx : indices) {
      int64_t v = idx < 0 ? std::max<int64_t>(idx + dim_size, 0) : std::min(idx, dim_size);
      bounds.push_back(v);
    }
    bounds.push_back(dim_size);
  }
  // Piece i spans [bounds[i], max(bounds[i], bounds[i+1])): stored as (start, length) pairs.
  std::vector<int64_t> r;
  for (size_t i = 0; i + 1 < bounds.size(); ++i) {
    int64_t s = std::min(bounds[i], dim_size);
    r.push_back(s);
    r.push_back(std::max<int64_t>(bounds[i + 1] - s, 0));
  }
  return r;
}

TensorList split_views(const Tensor& t, int64_t dim, const std::vector<int64_t>& starts,
                       const std::vector<int64_t>& lengths) {
  TensorList r;
  for (size_t i = 0; i < lengths.size(); ++i) r.push_back(slice_view(t, dim, starts[i], lengths[i]));
  return r;
}

namespace {
// How aten makes each piece (each its own event nested in the split's): split narrows,
// split_with_sizes restrides (as_strided), tensor_split slices.
enum class PieceOp { Narrow, AsStrided, Slice };

TensorList pieces_by(const Tensor& input, int64_t dim, const std::vector<int64_t>& starts,
                     const std::vector<int64_t>& lengths, PieceOp how) {
  TensorList r;
  for (size_t i = 0; i < lengths.size(); ++i) {
    int64_t s = starts[i], n = lengths[i];
    if (how == PieceOp::Slice) {
      r.push_back(slice_op(input, dim, s, n));
    } else if (how == PieceOp::Narrow) {
      r.push_back(profiler::nested_op("aten::narrow", {&input, nullptr, nullptr, nullptr},
                                      [&] { return slice_op(input, dim, s, n); }));
    } else {
      r.push_back(via_as_strided(input, [&] { return slice_view(input, dim, s, n); }));
    }
  }
  return r;
}

// Outputs of an op that returns several views (split, chunk, unbind): autograd refuses in-place
// ops on them (checks.cpp), as PyTorch does, since one node stands for all of them.
TensorList multi_output(TensorList views) {
  if (GradMode::is_enabled())
    for (Tensor& v : views) v.impl()->creation_meta = kViewMultiOutput;
  return views;
}

TensorList split_by(const Tensor& input, int64_t dim, const std::vector<int64_t>& pieces, PieceOp how) {
  std::vector<int64_t> starts;
  int64_t at = 0;
  for (int64_t p : pieces) {
    starts.push_back(at);
    at += p;
  }
  return multi_output(pieces_by(input, dim, starts, pieces, how));
}
}  // namespace

static int64_t split_dim(const Tensor& input, int64_t dim, const char* name) {
  EMBER_CHECK(input.dim() != 0, name, " expects at least a 1-dimensional tensor");
  return wrap_dim(dim, input.dim());
}

TensorList split(const Tensor& input, int64_t split_size, int64_t dim) {
  // aten: the rank, then split_size, then the dim (wrapped by self.size(dim)).
  EMBER_CHECK(input.dim() != 0, "split expects at least a 1-dimensional tensor");
  EMBER_CHECK(split_size >= 0, "split expects split_size be non-negative, but got split_size=", split_size);
  int64_t d = split_dim(input, dim, "split");
  return split_by(input, d, split_pieces(input.size(d), split_size), PieceOp::Narrow);
}

TensorList split_with_sizes(const Tensor& input, IntArrayRef split_sizes, int64_t dim) {
  int64_t d = split_dim(input, dim, "split_with_sizes");
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    EMBER_CHECK(s >= 0, "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=",
                shape_str(split_sizes));
    total += s;
  }
  EMBER_CHECK(total == input.size(d), "split_with_sizes expects split_sizes to sum exactly to ", input.size(d),
              " (input tensor's size at dimension ", d, "), but got split_sizes=", shape_str(split_sizes));
  return split_by(input, d, std::vector<int64_t>(split_sizes.begin(), split_sizes.end()), PieceOp::AsStrided);
}

TensorList split_sizes(const Tensor& input, IntArrayRef split_size, int64_t dim) {
  return split_with_sizes(input, split_size, dim);
}

TensorList chunk(const Tensor& input, int64_t chunks, int64_t dim) {
  EMBER_CHECK(input.dim() > 0, "chunk expects at least a 1-dimensional tensor");
  EMBER_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: ", chunks);  // before the dim
  int64_t d = wrap_dim(dim, input.dim());
  // aten's chunk is a split by ceil(size / chunks) (split_with_sizes of an empty dim)
  std::vector<int64_t> pieces = chunk_pieces(input.size(d), chunks);
  bool empty = input.size(d) == 0;
  return profiler::nested_op(empty ? "aten::split_with_sizes" : "aten::split", {&input, nullptr, nullptr},
                             [&] { return split_by(input, d, pieces, empty ? PieceOp::AsStrided : PieceOp::Narrow); });
}

static TensorList tensor_split_impl(const Tensor& input, std::optional<int64_t> sections, IntArrayRef indices,
                                    int64_t dim) {
  EMBER_CHECK(input.dim() > 0, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with ",
              input.dim(), " dims");
  int64_t d = wrap_dim(dim, input.dim());
  std::vector<int64_t> pairs = tensor_split_pieces(input.size(d), sections, indices);
  std::vector<int64_t> starts, lengths;
  for (size_t i = 0; i < pairs.size(); i += 2) {
    starts.push_back(pairs[i]);
    lengths.push_back(pairs[i + 1]);
  }
  return pieces_by(input, d, starts, lengths, PieceOp::Slice);
}

TensorList tensor_split(const Tensor& input, int64_t sections, int64_t dim) {
  return tensor_split_impl(input, sections, IntArrayRef(), dim);
}
TensorList tensor_split(const Tensor& input, IntArrayRef indices, int64_t dim) {
  return tensor_split_impl(input, std::nullopt, indices, dim);
}

TensorList unbind(const Tensor& input, int64_t dim) {
  EMBER_CHECK_INDEX(input.dim() > 0, "Dimension specified as 0 but tensor has no dimensions");
  int64_t d = wrap_dim(dim, input.dim());
  TensorList r;
  for (int64_t i = 0; i < input.size(d); ++i)  // aten selects each part
    r.push_back(profiler::nested_op("aten::select", {&input, nullptr, nullptr}, [&] { return select(input, d, i); }));
  return multi_output(std::move(r));
}

}  // namespace ember
