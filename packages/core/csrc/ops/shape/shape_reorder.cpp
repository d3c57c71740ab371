// Copies that reorder or replicate elements: flip, fliplr/flipud, roll, rot90, repeat, tile,
// repeat_interleave, tril/triu, diag, diag_embed. flip's and tril/triu's element copies are
// the backend's shape kernels (kernels/cpu/shape/); the others are views and copies of ops.
#include <algorithm>

#include "core/size_math.h"
#include "iter/elementwise_iter.h"
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"
#include "ops/shape/shape_internal.h"

namespace ember {

namespace {

DimVector wrap_dims(IntArrayRef dims, int64_t nd, const char* op) {
  DimVector r;
  std::vector<bool> seen(std::max<int64_t>(nd, 1), false);
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, std::max<int64_t>(nd, 1));
    EMBER_CHECK(!seen[w], "dims has duplicates, original flip dims size=", dims.size(),
                ", but unique flip dims size=", dims.size() - 1);
    (void)op;
    seen[w] = true;
    r.push_back(w);
  }
  return r;
}

}  // namespace

Tensor flip(const Tensor& input, IntArrayRef dims) {
  DimVector ds = wrap_dims(dims, input.dim(), "flip");
  Tensor out = empty(input.sizes(), input.dtype(), input.device());
  int64_t isz = static_cast<int64_t>(input.itemsize());
  DimVector bst;
  const char* src = input.raw();
  for (int64_t k = 0; k < input.dim(); ++k) bst.push_back(input.stride(k) * isz);
  if (input.numel() == 0) return out;
  // aten flips outer dims with a strided copy (any dtype) but the last one in flip_cpu (not uint16/32/64)
  if (std::find(ds.begin(), ds.end(), input.dim() - 1) != ds.end()) no_shell_unsigned("flip_cpu", input.dtype());
  for (int64_t d : ds) {
    if (input.dim() == 0) break;
    src += (input.size(d) - 1) * bst[d];
    bst[d] = -bst[d];
  }
  backend(out).shape.strided_gather(out, src, input.sizes(), bst);
  return out;
}

Tensor fliplr(const Tensor& input) {
  EMBER_CHECK(input.dim() >= 2, "Input must be >= 2-d.");
  return flip(input, {1});
}
Tensor flipud(const Tensor& input) {
  EMBER_CHECK(input.dim() >= 1, "Input must be >= 1-d.");
  return flip(input, {0});
}

static Tensor roll_one(const Tensor& t, int64_t shift, int64_t d) {
  int64_t n = t.size(d);
  if (n == 0) return clone(t, MemoryFormat::Contiguous);
  int64_t s = ((shift % n) + n) % n;
  if (s == 0) return clone(t, MemoryFormat::Contiguous);
  return cat({slice_view(t, d, n - s, s), slice_view(t, d, 0, n - s)}, d);
}

Tensor roll(const Tensor& input, IntArrayRef shifts, IntArrayRef dims) {
  EMBER_CHECK(!shifts.empty(), "`shifts` required");
  if (dims.empty() && shifts.size() == 1) {
    Tensor flat = reshape(input, {-1});
    return view(roll_one(flat, shifts[0], 0), input.sizes());
  }
  EMBER_CHECK(shifts.size() == dims.size(), "shifts and dimensions must align. shifts: ", shifts.size(),
              ", dims:", dims.size());
  if (input.numel() == 0) return clone(input, MemoryFormat::Contiguous);  // PyTorch reads no dim then
  Tensor r = input;
  for (size_t i = 0; i < dims.size(); ++i) r = roll_one(r, shifts[i], wrap_dim(dims[i], input.dim()));
  if (r.same(input)) r = clone(input, MemoryFormat::Contiguous);
  return r;
}

Tensor rot90(const Tensor& input, int64_t k, IntArrayRef dims) {
  EMBER_CHECK(dims.size() == 2, "expected total rotation dims == 2, but got dims = ", dims.size());
  EMBER_CHECK(input.dim() >= 2, "expected total dims >= 2, but got total dims = ", input.dim());
  int64_t a = wrap_dim(dims[0], input.dim()), b = wrap_dim(dims[1], input.dim());
  EMBER_CHECK(a != b, "expected rotation dims to be different, but got dim0 = ", a, " and dim1 = ", b);
  int64_t kk = ((k % 4) + 4) % 4;
  switch (kk) {
    case 1:
      return transpose(flip(input, {b}), a, b);
    case 2:
      return flip(input, {a, b});
    case 3:
      return transpose(flip(input, {a}), a, b);
    default:
      return clone(input, MemoryFormat::Contiguous);
  }
}

Tensor repeat(const Tensor& self, IntArrayRef repeats) {
  int64_t nr = static_cast<int64_t>(repeats.size());
  EMBER_CHECK(nr >= self.dim(),
              "Number of dimensions of repeat dims can not be smaller than number of dimensions of "
              "tensor");
  // aten checks the target sizes (repeat * size, wrapping like its int64 multiply), not the
  // repeats: a negative repeat of an empty dim is an empty dim, and only a negative product is
  // empty()'s error. A zero repeat returns the empty result; otherwise aten unfolds the result
  // by the sizes, which refuses a target that wrapped below its size.
  DimVector padded(nr - self.dim(), 1);
  for (int64_t s : self.sizes()) padded.push_back(s);
  DimVector out;
  bool zero = false;
  for (int64_t i = 0; i < nr; ++i) {
    out.push_back(static_cast<int64_t>(static_cast<uint64_t>(repeats[i]) * static_cast<uint64_t>(padded[i])));
    zero |= repeats[i] == 0;
  }
  Tensor r = empty(out, self.dtype(), self.device());
  if (zero) return r;
  for (int64_t i = 0; i < nr; ++i)
    EMBER_CHECK(out[i] >= padded[i], "maximum size for tensor at dimension ", i, " is ", out[i], " but size is ",
                padded[i]);
  if (r.numel() == 0) return r;
  // Every repeat is positive here. View as (1, s0, 1, s1, ...), expand the 1s to the
  // repeats, then copy out.
  DimVector v, e;
  for (int64_t i = 0; i < nr; ++i) {
    v.push_back(1);
    v.push_back(padded[i]);
    e.push_back(repeats[i]);
    e.push_back(padded[i]);
  }
  Tensor ex = expand(reshape(self, v), e, false);
  copy_(view(r, ex.sizes()), ex, false);
  return r;
}

Tensor tile(const Tensor& input, IntArrayRef dims) {
  DimVector reps(std::max<int64_t>(input.dim() - static_cast<int64_t>(dims.size()), 0), 1);
  for (int64_t d : dims) reps.push_back(d);
  return repeat(input, reps);
}

Tensor repeat_interleave_index(const Tensor& repeats, int64_t total) {
  return searchsorted(cumsum(repeats, 0, ScalarType::Int64), arange(Scalar(total), ScalarType::Int64, repeats.device()),
                      false, true, std::nullopt, Tensor());
}

// On a device, aten's form: one index_select of the slice each output position repeats (a copy per
// slice would launch once per slice). A repeats tensor is checked and summed in one read back.
static Tensor repeat_interleave_on_device(const Tensor& x, int64_t d, Tensor reps, std::optional<int64_t> output_size) {
  const int64_t n = x.size(d);
  if (reps.numel() == 1) reps = expand(reshape(reps, {1}), {n}, false);
  int64_t total = 0;
  if (n > 0) {
    const Tensor stats = to_device(stack({amin(reps), sum(reps, std::nullopt)}, 0), cpu_device());
    EMBER_CHECK(stats.data<int64_t>()[0] >= 0, "repeats can not be negative");
    total = stats.data<int64_t>()[1];
  }
  if (output_size && n > 0) EMBER_CHECK(*output_size == total, "allocated size does not match required size");
  return index_select(x, d, repeat_interleave_index(reps, total));
}

static Tensor repeat_interleave_impl(const Tensor& input, const std::vector<int64_t>& reps, std::optional<int64_t> dim,
                                     std::optional<int64_t> output_size, bool int_repeats) {
  Tensor x = dim ? input : reshape(input, {-1});
  // aten reads input.size(dim): a dim of a 0-d input is an IndexError.
  int64_t n = x.size(dim ? *dim : 0);
  int64_t d = wrap_dim(dim ? *dim : 0, x.dim());
  EMBER_CHECK(reps.size() == 1 || static_cast<int64_t>(reps.size()) == n,
              "repeats must have the same size as input along dim, but got repeats.size(0) = ", reps.size(),
              " and input.size(", d, ") = ", n);
  int64_t total = 0;
  if (reps.size() == 1) total = mul_or_fail(reps[0], n, "repeat_interleave");
  else
    for (int64_t i = 0; i < n; ++i) total = add_or_fail(total, reps[i], "repeat_interleave");
  // an int repeat is checked against output_size first; aten's kernel checks a repeats tensor's total
  // only when the repeats (expanded to input.size(dim)) are not empty
  if (output_size && int_repeats)
    EMBER_CHECK(*output_size == total, "repeat_interleave: Invalid output_size, expected ", total, " but got ",
                *output_size);
  if (output_size && n > 0) EMBER_CHECK(*output_size == total, "allocated size does not match required size");
  if (!input.device().is_cpu()) {  // int repeats r: position / r
    const Tensor pos = arange(Scalar(total), ScalarType::Int64, input.device());
    return index_select(x, d, floor_divide(pos, wrap_scalar(Scalar(std::max<int64_t>(reps[0], 1)))));
  }
  DimVector shape = to_vec(x.sizes());
  shape[d] = total;
  Tensor out = empty(shape, input.dtype(), input.device());
  int64_t at = 0;
  for (int64_t i = 0; i < n; ++i) {
    int64_t r = reps.size() == 1 ? reps[0] : reps[i];
    if (r == 0) continue;
    Tensor src = slice_view(x, d, i, 1);
    DimVector es = to_vec(src.sizes());
    es[d] = r;
    copy_(slice_view(out, d, at, r), expand(src, es, false), false);
    at += r;
  }
  return out;
}

Tensor repeat_interleave_int(const Tensor& input, int64_t repeats, std::optional<int64_t> dim,
                             std::optional<int64_t> output_size) {
  // aten wraps the dim before it looks at the repeats.
  if (dim) (void)wrap_dim(*dim, input.dim());
  EMBER_CHECK(repeats >= 0, "Repeats must be non-negative");
  return repeat_interleave_impl(input, {repeats}, dim, output_size, true);
}

Tensor repeat_interleave(const Tensor& input, const Tensor& repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  // aten matches repeats against input.size(dim) before its kernel checks the dtype.
  EMBER_CHECK(repeats.dim() <= 1, "repeats must be 0-dim or 1-dim tensor");
  const Tensor x = dim ? input : reshape(input, {-1});
  const int64_t n = x.size(dim ? *dim : 0);
  if (repeats.dim() == 1 && repeats.size(0) != 1)
    EMBER_CHECK(repeats.size(0) == n,
                "repeats must have the same size as input along dim, but got repeats.size(0) = ", repeats.size(0),
                " and input.size(", dim ? *dim : 0, ") = ", n);
  EMBER_CHECK_NOTIMPL(repeats.dtype() == ScalarType::Int64 || repeats.dtype() == ScalarType::Int32,
                      "\"repeat_interleave_cpu\" not implemented for '", legacy_name(repeats.dtype()), "'");
  // aten gathers the repeated rows with index_select, whose 1-d path has no uint16/32/64
  const bool gathers_1d = x.dim() <= 1 && repeats.dim() == 1;
  // the repeats follow the input's device (read on the host only for a CPU input)
  if (!input.device().is_cpu()) {
    if (gathers_1d) no_shell_unsigned("index_select", input.dtype());
    return repeat_interleave_on_device(x, wrap_dim(dim ? *dim : 0, x.dim()),
                                       to_dtype(to_device(repeats, input.device()), ScalarType::Int64), output_size);
  }
  Tensor r64 =
      contiguous(to_recorded(repeats.device().is_cpu() ? repeats : to_device(repeats, cpu_device()), ScalarType::Int64),
                 MemoryFormat::Contiguous);
  std::vector<int64_t> reps(r64.data<int64_t>(), r64.data<int64_t>() + r64.numel());
  // aten expands one repeat to input.size(dim) before checking: nothing to check when that is 0.
  if (!(reps.size() == 1 && n == 0))
    for (int64_t v : reps) EMBER_CHECK(v >= 0, "repeats can not be negative");
  if (gathers_1d) no_shell_unsigned("index_select", input.dtype());
  return repeat_interleave_impl(input, reps, dim, output_size, false);
}

// torch.repeat_interleave(repeats): each index i repeats[i] times, in the repeats' dtype.
Tensor repeat_interleave_indices(const Tensor& repeats, std::optional<int64_t> output_size) {
  EMBER_CHECK_NOTIMPL(repeats.dtype() == ScalarType::Int64 || repeats.dtype() == ScalarType::Int32,
                      "\"repeat_interleave_cpu\" not implemented for '", legacy_name(repeats.dtype()), "'");
  EMBER_CHECK(repeats.dim() == 1, "repeat_interleave only accept 1D vector as repeat");
  const Tensor idx = arange(Scalar(repeats.size(0)), repeats.dtype(), repeats.device());
  return repeat_interleave(idx, repeats, 0, output_size);
}

// ---- tril / triu ----

namespace {

Tensor tri(const Tensor& input, int64_t k, bool lower);

// aten's checkTrilTriuBatchContiguous(allow_zero_stride=true): self is masked in place when it
// has at most 3 dims or its batch dims are packed (each stride the product of the sizes after it,
// the matrix counted as size(-2) * size(-1); dim 0 may be broadcast), else a contiguous result is
// copied back, and copy_ refuses an overlapping self.
static bool tri_batches_packed(const Tensor& self) {
  if (self.dim() <= 3) return true;
  int64_t expected = self.size(-1) * self.size(-2);
  for (int64_t i = self.dim() - 3; i >= 0; --i) {
    if (i == 0 && (self.stride(0) == 0 || self.size(0) == 1)) continue;
    if (self.stride(i) != expected) return false;
    expected *= self.size(i);
  }
  return true;
}

Tensor tri_(const Tensor& self, int64_t k, bool lower) {
  if (self.dim() >= 2 && has_internal_overlap(self) && tri_batches_packed(self)) {
    check_inplace(self, lower ? "tril_" : "triu_");
    no_shell_unsigned(lower ? "tril" : "triu", self.dtype());
    // Rows sharing memory are masked in place, row after row in order, as PyTorch does: the
    // memory ends as the last write left it (copy_ would refuse the overlap).
    backend(self).shape.triangle_strided(self, k, lower);
    self.bump_version();
    return self;
  }
  copy_(self, tri(self, k, lower), false);
  return self;
}

Tensor tri(const Tensor& input, int64_t k, bool lower) {
  EMBER_CHECK(input.dim() >= 2, lower ? "tril" : "triu", ": input tensor must have at least 2 dimensions");
  no_shell_unsigned(lower ? "tril" : "triu", input.dtype());
  Tensor r = clone(input, MemoryFormat::Contiguous);
  backend(r).shape.triangle(r, k, lower);
  return r;
}

}  // namespace

Tensor tril(const Tensor& input, int64_t diagonal) { return tri(input, diagonal, true); }
Tensor triu(const Tensor& input, int64_t diagonal) { return tri(input, diagonal, false); }
Tensor tril_(const Tensor& self, int64_t diagonal) { return tri_(self, diagonal, true); }
Tensor triu_(const Tensor& self, int64_t diagonal) { return tri_(self, diagonal, false); }
Tensor tril_out(const Tensor& input, int64_t diagonal, const Tensor& out) {
  Tensor r = tril(input, diagonal);
  EMBER_CHECK(out.dtype() == input.dtype(), "Expected out tensor to have dtype ", dtype_name(input.dtype()),
              ", but got ", dtype_name(out.dtype()), " instead");
  resize_out(out, r.sizes());
  copy_(out, r, false);
  return out;
}
Tensor triu_out(const Tensor& input, int64_t diagonal, const Tensor& out) {
  Tensor r = triu(input, diagonal);
  EMBER_CHECK(out.dtype() == input.dtype(), "Expected out tensor to have dtype ", dtype_name(input.dtype()),
              ", but got ", dtype_name(out.dtype()), " instead");
  resize_out(out, r.sizes());
  copy_(out, r, false);
  return out;
}

// ---- diag / diag_embed ----

Tensor diag_embed(const Tensor& input, int64_t offset, int64_t dim1, int64_t dim2) {
  int64_t nd = input.dim() + 1;
  int64_t a = wrap_dim(dim1, nd), b = wrap_dim(dim2, nd);  // a 0-d input fails here (IndexError)
  EMBER_CHECK(a != b, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  // |offset| in unsigned arithmetic: -INT64_MIN does not fit an int64
  const uint64_t abs_off = offset < 0 ? 0 - static_cast<uint64_t>(offset) : static_cast<uint64_t>(offset);
  EMBER_CHECK(abs_off <= static_cast<uint64_t>(INT64_MAX - input.size(-1)),
              "diag_embed: integer addition overflow: size ", input.size(-1), " and offset ", offset);
  int64_t m = input.size(-1) + static_cast<int64_t>(abs_off);
  DimVector shape;
  int64_t src = 0;
  for (int64_t i = 0; i < nd; ++i) {
    if (i == a || i == b) shape.push_back(m);
    else shape.push_back(input.size(src++));
  }
  Tensor out = zeros(shape, input.dtype(), input.device());
  Tensor dv = diagonal(out, offset, a, b);
  if (dv.numel() > 0) copy_(dv, input, false);
  return out;
}

Tensor diag(const Tensor& input, int64_t diagonal_) {
  EMBER_CHECK(input.dim() == 1 || input.dim() == 2, "diag(): Supports 1D or 2D tensors. Got ", input.dim(), "D");
  if (input.dim() == 1) return diag_embed(input, diagonal_, 0, 1);
  return clone(diagonal(input, diagonal_, 0, 1), MemoryFormat::Contiguous);
}
Tensor diag_out(const Tensor& input, int64_t diagonal_, const Tensor& out) {
  Tensor r = diag(input, diagonal_);
  EMBER_CHECK(out.dtype() == input.dtype(), "Expected out tensor to have dtype ", dtype_name(input.dtype()),
              ", but got ", dtype_name(out.dtype()), " instead");
  resize_out(out, r.sizes());
  copy_(out, r, false);
  return out;
}

}  // namespace ember
