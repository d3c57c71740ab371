// Index ops along one dim: index_select, gather, scatter(_add), index_add /
// index_copy / index_fill, take: their checks and allocations, then the backend's index
// kernels (kernels/cpu/index/). Indices are bound-checked before anything is written, so a
// bad index never leaves a half-updated tensor or touches memory outside the buffer.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "iter/elementwise_iter.h"
#include "kernels/backend.h"
#include "kernels/device_transfer.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"
#include "ops/index/index_common.h"

namespace ember {

using namespace index_detail;

namespace index_detail {

Tensor as_long_contiguous(const Tensor& index) {
  Tensor l = index.dtype() == ScalarType::Int64 ? index : to_recorded(index, ScalarType::Int64);
  return l.is_contiguous() ? l : contiguous(l, MemoryFormat::Contiguous);
}

}  // namespace index_detail

namespace {

// ---- gather / scatter ------------------------------------------------------

void check_gather_scatter_shapes(const char* name, const Tensor& self, int64_t dim, const Tensor& index,
                                 const Tensor* src, bool is_gather);

// PyTorch's checks, then (scatter: self is written in place) no internal overlap, empty index too.
void check_gather_scatter(const char* name, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src,
                          bool is_gather) {
  check_gather_scatter_shapes(name, self, dim, index, src, is_gather);
  if (!is_gather) check_no_internal_overlap(self);
}

void check_gather_scatter_shapes(const char* name, const Tensor& self, int64_t dim, const Tensor& index,
                                 const Tensor* src, bool is_gather) {
  // An empty index skips the dtype check (PyTorch's scatter_gather_dtype_check).
  EMBER_CHECK(index.numel() == 0 || index.dtype() == ScalarType::Int64 || index.dtype() == ScalarType::Int32, name,
              "(): Expected dtype int32/int64 for index");
  if (src) EMBER_CHECK(src->dtype() == self.dtype(), name, "(): Expected self.dtype to be equal to src.dtype");
  int64_t sd = std::max<int64_t>(self.dim(), 1), id = std::max<int64_t>(index.dim(), 1);
  if (index.numel() == 0) return;
  EMBER_CHECK(sd == id, "Index tensor must have the same number of dimensions as ", is_gather ? "input" : "self",
              " tensor");
  DimVector ss = sizes1(self), is = sizes1(index);
  // PyTorch's order: every dim against self first (gather fails at the first), then against
  // src, whose size(d) raises IndexError where src has fewer dims than index.
  bool wrong = false;
  for (int64_t d = 0; d < id && !wrong; ++d) {
    if (d == dim || is[d] <= ss[d]) continue;
    if (is_gather)
      fail(ErrorKind::Runtime, "Size does not match at dimension ", d, " expected index ", shape_str(is),
           " to be no larger than self ", shape_str(ss), " apart from dimension ", dim);
    wrong = true;
  }
  if (src && !wrong) {
    for (int64_t d = 0; d < id && !wrong; ++d) {
      if (src->dim() > 0) wrap_dim(d, src->dim());  // the IndexError of src.size(d)
      wrong = is[d] > (src->dim() == 0 ? 1 : src->size(d));
    }
  }
  if (src)
    EMBER_CHECK(std::max<int64_t>(src->dim(), 1) == id,
                "Index tensor must have the same number of dimensions as src "
                "tensor");
  if (!wrong) return;
  if (src)
    fail(ErrorKind::Runtime, "Expected index ", shape_str(is), " to be no larger than self ", shape_str(ss),
         " apart from dimension ", dim, " and to be no larger size than src ", shape_str(sizes1(*src)));
  fail(ErrorKind::Runtime, "Expected index ", shape_str(is), " to be no larger than self ", shape_str(ss),
       " apart from dimension ", dim);
}

// Every index value in [0, size): gather/scatter do not wrap negatives. The first bad value
// in index order is the one reported.
void check_range(const Tensor& idx, int64_t size, int64_t dim) {
  const FirstBad b = first_outside(idx, size, false);
  if (b.pos < idx.numel())
    fail(ErrorKind::Runtime, "index ", b.value, " is out of bounds for dimension ", dim, " with size ", size);
}

using indexing::Reduce;

// self[..., idx, ...] (op)= src (or value) along `dim`, in place with self's strides.
void scatter_into(const char* name, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src,
                  const Tensor* value, Reduce red) {
  if (index.numel() == 0) return;
  no_shell_unsigned(src ? "scatter_gather_tensor_cpu" : "scatter_gather_scalar_cpu", self.dtype());
  Tensor idx = to_device_of(as_long_contiguous(index), self);
  int64_t size = sizes1(self)[dim];
  if (idx.device().is_cpu()) check_range(idx, size, dim);        // a GPU's kernel records a bad one for the next wait
  Tensor moved_src = src ? to_device_of(*src, self) : Tensor();  // (a CPU 0-d src beside a CUDA self)
  backend(self).index.scatter(name, self, dim, idx, src ? &moved_src : nullptr, value, red);
  self.bump_version();
}

Tensor dense_clone(const Tensor& t) { return clone(t, MemoryFormat::Contiguous); }

// ---- one-dim index ops (index_select / index_add / index_copy / index_fill) -----

void check_index_vector(const char* name, const Tensor& index) {
  EMBER_CHECK_INDEX(index.dim() <= 1, name, "(): Index is supposed to be a vector");
  EMBER_CHECK(index.dtype() == ScalarType::Int64 || index.dtype() == ScalarType::Int32, name,
              "(): Expected dtype int32 or int64 for index");
}

// index values checked in [-size, size) and wrapped (index_add/copy/fill accept
// negatives); `prefix` and `kind` reproduce each op's own out-of-range error. An index on a GPU
// is left as it is: the kernel checks and wraps it (IndexCheck) without waiting for the device.
Tensor wrapped_dim_index(const char* prefix, ErrorKind kind, const Tensor& index, int64_t dim, int64_t size, Device on,
                         bool negative_ok = true) {
  Tensor idx = as_long_contiguous(index);
  if (idx.device() != on) idx = to_device(idx, on);
  if (!idx.device().is_cpu()) return idx;
  bool needs_wrap = false;
  const int64_t* p = idx.data<int64_t>();
  for (int64_t i = 0, n = idx.numel(); i < n; ++i) {
    if (p[i] < (negative_ok ? -size : 0) || p[i] >= size)
      fail(kind, prefix, "index ", p[i], " is out of bounds for dimension ", dim, " with size ", size);
    needs_wrap |= p[i] < 0;
  }
  if (!needs_wrap) return idx;
  Tensor w = clone(idx, std::nullopt);
  int64_t* q = w.data<int64_t>();
  for (int64_t i = 0, n = w.numel(); i < n; ++i)
    if (q[i] < 0) q[i] += size;
  return w;
}

// Runs `body` on a contiguous tensor holding self's values, then writes back.
template <class F>
const Tensor& inplace_dense(const Tensor& self, const F& body) {
  if (self.is_contiguous()) {
    body(self);
  } else {
    Tensor tmp = dense_clone(self);
    body(tmp);
    copy_into(self, tmp);
  }
  self.bump_version();
  return self;
}

// aten's index_copy / index_fill view the written tensor with the index's length along dim
// (stride 0 there) before reading any index. That view must fit the tensor's storage (an
// empty self's does not: setStorage's error), and when it is empty no index is read at all.
// Returns whether the kernel runs.
bool restrided_view_runs(const Tensor& self, int64_t d, int64_t n_index) {
  DimVector vs = self.dim() == 0 ? DimVector{1} : to_vec(self.sizes());
  DimVector vst = self.dim() == 0 ? DimVector{1} : to_vec(self.strides());
  vs[d] = n_index;
  vst[d] = 0;
  if (std::find(vs.begin(), vs.end(), int64_t(0)) != vs.end()) return false;
  int64_t last = self.impl()->offset;
  for (size_t i = 0; i < vs.size(); ++i) last += (vs[i] - 1) * vst[i];
  const size_t need = static_cast<size_t>(last + 1) * self.itemsize();
  if (need > self.impl()->storage->nbytes)
    fail(ErrorKind::Runtime, "setStorage: sizes ", shape_str(vs), ", strides ", shape_str(vst), ", storage offset ",
         self.impl()->offset, ", and itemsize ", self.itemsize(), " requiring a storage size of ", need,
         " are out of bounds for storage of size ", self.impl()->storage->nbytes);
  return true;
}

// index_add's checks in PyTorch's order and words (index_func_meta_impl).
void check_index_add_source(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  EMBER_CHECK_INDEX(index.dim() <= 1, "index_add_(): Index is supposed to be a vector, but got dim: ", index.dim(),
                    " with type: ", legacy_name(index.dtype()), " and size: ", shape_str(index.sizes()));
  EMBER_CHECK(index.dtype() == ScalarType::Int64 || index.dtype() == ScalarType::Int32,
              "index_add_(): Expected dtype int32/int64 for index but got: ", legacy_name(index.dtype()));
  EMBER_CHECK(source.dtype() == self.dtype(), "index_add_(): self (", legacy_name(self.dtype()), ") and source (",
              legacy_name(source.dtype()), ") must have the same scalar type");
  EMBER_CHECK(dim == 0 || dim < source.dim(), "index_add_(): Indexing dim ", dim,
              " is out of bounds of the source tensor with dim ", source.dim());
  if (index.numel() != (source.dim() == 0 ? 1 : source.size(dim))) {
    // PyTorch builds this message with source.size(dim), which fails first for a 0-d source.
    EMBER_CHECK_INDEX(source.dim() > 0, "Dimension specified as ", dim, " but tensor has no dimensions");
    fail(ErrorKind::Runtime, "index_add_(): Number of indices (", index.numel(),
         ") should be equal to source.size(dim): (", source.size(dim), "), for dim: ", dim);
  }
  DimVector ss = to_vec(self.sizes()), rs = to_vec(source.sizes());
  if (source.dim() != 0 && self.dim() != 0) {
    ss.erase(static_cast<size_t>(dim));
    rs.erase(static_cast<size_t>(dim));
  }
  EMBER_CHECK(ss == rs,
              "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = ",
              shape_str(self.sizes()), " source.shape = ", shape_str(source.sizes()));
}

// "3 5": how PyTorch prints the slice shapes in index_copy_'s message.
std::string spaced(const DimVector& v) {
  std::string r;
  for (size_t i = 0; i < v.size(); ++i) r += (i ? " " : "") + std::to_string(v[i]);
  return r;
}

// index_copy's checks in PyTorch's order and words (index_copy meta).
void check_index_copy_source(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  EMBER_CHECK_INDEX(index.dim() < 2, "index_copy_(): Index should have dimension 1 or 0 (got ", index.dim(), ")");
  const int64_t n = index.numel();
  EMBER_CHECK_INDEX(source.dim() != 0 || n == 1,
                    "index_copy_(): When source is scalar, index should have one element (got ", n, ")");
  EMBER_CHECK_INDEX(source.dim() == self.dim() || source.dim() == 0 || self.dim() == 0,
                    "index_copy_(): When source and destination are not scalars, their dimensionality must match. "
                    "Source dimensionality (",
                    source.dim(), "), destination dimensionality (", self.dim(), ")");
  EMBER_CHECK(index.dtype() == ScalarType::Int64, "index_copy_(): Expected a long tensor for index, but got ",
              legacy_name(index.dtype()));
  EMBER_CHECK(self.dtype() == source.dtype(),
              "index_copy_(): self and source expected to have the same dtype, "
              "but got (self) ",
              legacy_name(self.dtype()), " and (source) ", legacy_name(source.dtype()));
  DimVector ss = to_vec(self.sizes()), rs = to_vec(source.sizes());
  if (!ss.empty()) ss.erase(static_cast<size_t>(dim));
  if (!rs.empty()) rs.erase(static_cast<size_t>(dim));
  EMBER_CHECK(ss == rs,
              "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: ",
              spaced(ss), " at dimension ", dim, " and source slice shape: ", spaced(rs), " at dimension 0.");
  EMBER_CHECK_INDEX(source.dim() == 0 || n == source.size(dim), "index_copy_(): Number of indices (", n,
                    ") should be equal to source.size(dim) (", source.dim() == 0 ? 1 : source.size(dim), ")");
}

}  // namespace

// ---- index_select ----------------------------------------------------------

Tensor index_select_out(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& out) {
  // PyTorch's order: dim, index rank, 0-d self, index dtype, out dtype.
  int64_t d = wrap_dim(dim, std::max<int64_t>(input.dim(), 1));
  EMBER_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  int64_t m = index.numel();
  EMBER_CHECK(input.dim() > 0 || m == 1, "index_select(): Index to scalar can have only 1 value, got ", m, " value(s)");
  check_index_vector("index_select", index);
  EMBER_CHECK(out.dtype() == input.dtype(), "index_select(): self and result must have the same scalar type");
  check_no_internal_overlap(out);
  check_no_overlap(out, input);
  check_no_overlap(out, index);
  if (input.dim() <= 1) no_shell_unsigned("index_select", input.dtype());  // aten's 1-d path has no case for them
  Tensor idx = to_device_of(as_long_contiguous(index), input);
  DimVector s = sizes1(input);
  int64_t size = s[d];
  DimVector os(input.sizes().begin(), input.sizes().end());
  if (input.dim() > 0) os[d] = m;
  // PyTorch's errors depend on its kernel: an empty >1-d self and the dim-1 kernel (contiguous
  // result) raise RuntimeError naming the first bad index; every other path IndexError.
  auto first_bad = [&] { return first_outside(idx, size, false).value; };
  if (input.dim() > 1 && m > 0 && input.numel() == 0) {
    EMBER_CHECK(size > 0, "index_select(): self indexing axis dim should be positive");
    const FirstBad b = first_outside(idx, size, false);
    EMBER_CHECK(b.pos == m, "INDICES element is out of DATA bounds, id=", b.value, " axis_dim=", size);
  }
  resize_out(out, os);
  const bool dim1_kernel = input.dim() > 1 && d == 1 && out.is_contiguous();
  // A strided out= gets the rows through a dense buffer (the copy below writes rows in order).
  Tensor dst = out.is_contiguous() ? out : empty(os, out.dtype(), out.device());
  Tensor x = input.is_contiguous() ? input : contiguous(input, MemoryFormat::Contiguous);
  // Bounds are checked inside the copy (a bad row is skipped, never read); the error follows (a
  // GPU's at the next wait for the device).
  const indexing::IndexCheck check{dim1_kernel ? kIndicesOutOfDataBounds : kIndexOutOfRange, d, false};
  const bool bad = !backend(x).index.select_rows(x, d, idx, dst, check);
  if (bad) {
    if (dim1_kernel)
      fail(ErrorKind::Runtime, "INDICES element is out of DATA bounds, id=", first_bad(), " axis_dim=", size);
    fail(ErrorKind::Index, "index out of range in self");
  }
  if (!dst.same(out)) copy_into(out, dst);
  out.bump_version();
  return out;
}

Tensor index_select(const Tensor& input, int64_t dim, const Tensor& index) {
  Tensor out = empty({0}, input.dtype(), input.device());
  return index_select_out(input, dim, index, out);
}

// ---- gather / scatter ------------------------------------------------------

Tensor gather_out(const Tensor& input, int64_t dim, const Tensor& index, bool sparse_grad, const Tensor& out) {
  (void)sparse_grad;
  int64_t d = wrap_dim(dim, std::max<int64_t>(input.dim(), 1));
  check_gather_scatter("gather", input, d, index, nullptr, true);
  EMBER_CHECK(out.dtype() == input.dtype(), "gather(): Expected out tensor to have dtype ", dtype_name(input.dtype()),
              ", but got ", dtype_name(out.dtype()), " instead");
  // an out= of another shape is resized first (fresh memory where it grows), then checked for overlap
  if (!out.sizes().equals(index.sizes())) resize_out(out, index.sizes());
  check_no_internal_overlap(out);
  check_no_overlap(out, input);
  check_no_partial_overlap(out, index);
  // an overlap aten cannot rule out (a strided view of the input): gathered through a buffer, so
  // the input is read before out is written
  if (overlap_status(out, input) == Overlap::TooHard) {
    resize_out(out, index.sizes());
    copy_into(out, gather(input, dim, index, sparse_grad));
    out.bump_version();
    return out;
  }
  resize_out(out, index.sizes());
  if (index.numel() == 0) return out;
  no_shell_unsigned("scatter_gather_tensor_cpu", input.dtype());
  Tensor idx = to_device_of(as_long_contiguous(index), input);
  int64_t size = sizes1(input)[d];
  // Bounds are checked inside the copy loop (never reading outside); a bad index raises
  // afterwards, with the serial scan naming the first offender (a GPU records one for the next wait).
  const bool bad = !backend(input).index.gather(input, d, idx, out);
  if (bad) check_range(idx, size, d);
  return out;
}

Tensor gather(const Tensor& input, int64_t dim, const Tensor& index, bool sparse_grad) {
  Tensor out = empty({0}, input.dtype(), input.device());
  return gather_out(input, dim, index, sparse_grad, out);
}

Tensor scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_inplace(self, "scatter_");
  int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  check_gather_scatter("scatter", self, d, index, &src, false);
  scatter_into("scatter", self, d, index, &src, nullptr, Reduce::None);
  return self;
}
Tensor scatter(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_(dense_clone(input), dim, index, src);
}
namespace {
// aten's scatter kernel converts value (checked: an overflow is a RuntimeError) as it meets its
// first index element, right after that element's bounds check: never for an empty index.
void check_scatter_value(const Tensor& self, int64_t d, const Tensor& index, const Scalar& value) {
  if (index.numel() == 0 || index.device().is_meta()) return;  // meta: no value to check
  int64_t first = 0;
  const bool i32 = index.dtype() == ScalarType::Int32;
  if (index.device().is_cpu()) {
    first = i32 ? *reinterpret_cast<const int32_t*>(index.raw()) : *reinterpret_cast<const int64_t*>(index.raw());
  } else {  // its one element, copied over
    int32_t f32 = 0;
    device_to_host(i32 ? static_cast<void*>(&f32) : static_cast<void*>(&first), index.raw(), index.device().index,
                   i32 ? sizeof(int32_t) : sizeof(int64_t));
    if (i32) first = f32;
  }
  const int64_t size = self.dim() == 0 ? 1 : self.sizes()[d];
  if (first < 0 || first >= size) return;  // the bounds check raises first
  EMBER_DISPATCH_ALL_AND_COMPLEX(self.dtype(), "scatter", [&] { (void)value.checked<scalar_t>(); });
}
}  // namespace

Tensor scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  check_inplace(self, "scatter_");
  int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  check_gather_scatter("scatter", self, d, index, nullptr, false);
  check_scatter_value(self, d, index, value);
  Tensor v = scalar_tensor(value, self.dtype());
  scatter_into("scatter", self, d, index, nullptr, &v, Reduce::None);
  return self;
}
Tensor scatter(const Tensor& input, int64_t dim, const Tensor& index, const Scalar& value) {
  return scatter_(dense_clone(input), dim, index, value);
}
Tensor scatter_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  check_inplace(self, "scatter_add_");
  int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  check_gather_scatter("scatter", self, d, index, &src, false);  // PyTorch names scatter here
  scatter_into("scatter_add", self, d, index, &src, nullptr, Reduce::Add);
  return self;
}
Tensor scatter_add(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_add_(dense_clone(input), dim, index, src);
}

// ---- scatter with reduction -------------------------------------------------

namespace {

Reduce parse_scatter_reduce(std::string_view r) {
  if (r == "sum") return Reduce::Add;
  if (r == "prod") return Reduce::Mul;
  if (r == "mean") return Reduce::Mean;
  if (r == "amax" || r == "max") return Reduce::Max;  // max/min: accepted spellings, as in PyTorch
  if (r == "amin" || r == "min") return Reduce::Min;
  fail(ErrorKind::Runtime, "reduce argument must be either sum, prod, mean, amax or amin, got ", r);
}

// The reduction's identity (a 0-d tensor), written over scattered positions when include_self=False.
Tensor reduce_identity(Reduce red, ScalarType dt) {
  Tensor t = empty({}, dt);
  bool fl = is_floating(dt);
  EMBER_DISPATCH_ALL_AND_COMPLEX(dt, "scatter_reduce", [&] {
    scalar_t v = static_cast<scalar_t>(0);
    if (red == Reduce::Mul) v = static_cast<scalar_t>(1);
    if constexpr (is_complex_v<scalar_t>) {
      *t.data<scalar_t>() = v;  // sum / prod / mean only (amax / amin are refused before)
      return;
    }
    if (red == Reduce::Max) v = fl ? static_cast<scalar_t>(-INFINITY) : std::numeric_limits<scalar_t>::lowest();
    if (red == Reduce::Min) v = fl ? static_cast<scalar_t>(INFINITY) : std::numeric_limits<scalar_t>::max();
    *t.data<scalar_t>() = v;
  });
  return t;
}

}  // namespace

Tensor scatter_reduce_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                       bool include_self) {
  check_inplace(self, "scatter_reduce_");
  int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  Reduce red = parse_scatter_reduce(reduce);
  check_gather_scatter("scatter", self, d, index, &src, false);  // PyTorch names scatter here
  if (is_complex(self.dtype()) && (red == Reduce::Max || red == Reduce::Min))
    dtype_not_implemented(
        red == Reduce::Max ? "scatter_gather_tensor_cpu_reduce_amax" : "scatter_gather_tensor_cpu_reduce_amin",
        self.dtype());
  if (index.numel() == 0) return self;
  if (!include_self) {
    Tensor id = reduce_identity(red, self.dtype());
    scatter_into("scatter_reduce", self, d, index, nullptr, &id, Reduce::None);
  }
  if (red != Reduce::Mean) {
    scatter_into("scatter_reduce", self, d, index, &src, nullptr, red);
    return self;
  }
  // mean: a sum, then a division by how many values met at each position (itself included).
  // (a complex self counts in its real type)
  const ScalarType ct = is_complex(self.dtype()) ? to_real_type(self.dtype()) : self.dtype();
  Tensor count = full(self.sizes(), Scalar(int64_t(include_self ? 1 : 0)), ct, self.device());
  Tensor one = scalar_tensor(Scalar(int64_t(1)), ct);
  scatter_into("scatter_reduce", count, d, index, nullptr, &one, Reduce::Add);
  scatter_into("scatter_reduce", self, d, index, &src, nullptr, Reduce::Add);
  clamp_min_(count, Scalar(int64_t(1)));
  if (is_floating_or_complex(self.dtype())) div_(self, count, std::nullopt);
  else div_(self, count, std::string_view("floor"));
  return self;
}
Tensor scatter_reduce(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                      bool include_self) {
  return scatter_reduce_(dense_clone(input), dim, index, src, reduce, include_self);
}

// scatter(..., reduce='add'|'multiply'): the older spelling with two reductions.
namespace {
Reduce parse_scatter_legacy(std::string_view r) {
  if (r == "add") return Reduce::Add;
  if (r == "multiply") return Reduce::Mul;
  fail(ErrorKind::Runtime, "reduce argument must be either add or multiply.");
}
}  // namespace

Tensor scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) {
  check_inplace(self, "scatter_");
  int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  Reduce red = parse_scatter_legacy(reduce);
  check_gather_scatter("scatter", self, d, index, &src, false);
  warn(
      "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a future "
      "PyTorch release. Use torch.scatter_reduce instead for more reduction options.");
  scatter_into("scatter", self, d, index, &src, nullptr, red);
  return self;
}
Tensor scatter(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) {
  return scatter_(dense_clone(input), dim, index, src, reduce);
}
Tensor scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce) {
  check_inplace(self, "scatter_");
  int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  Reduce red = parse_scatter_legacy(reduce);
  check_gather_scatter("scatter", self, d, index, nullptr, false);
  check_scatter_value(self, d, index, value);
  Tensor v = scalar_tensor(value, self.dtype());
  scatter_into("scatter", self, d, index, nullptr, &v, red);
  return self;
}
Tensor scatter(const Tensor& input, int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce) {
  return scatter_(dense_clone(input), dim, index, value, reduce);
}

// ---- index_add / index_copy / index_fill -----------------------------------

Tensor index_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  check_inplace(self, "index_add_");
  int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  check_index_add_source(self, d, index, source);
  // aten's kernel for a self of two or more dims returns before reading an index when there is
  // nothing to add or nowhere to add it.
  if (self.dim() > 1 && (self.numel() == 0 || index.numel() == 0)) return self;
  // index_add takes no negative indices (unlike index_copy / index_fill). aten's kernels word a
  // bad one two ways: its accumulating index_put path (two or more dims, an int64 index, alpha
  // 1 and not True) names it, the others do not.
  Tensor idx = to_device_of(as_long_contiguous(index), self);
  const bool put_path = self.dim() > 1 && index.dtype() == ScalarType::Int64 && !alpha.is_bool() && alpha.equal(1.0);
  // uint16/32/64: each of aten's paths raises in its own dispatch, before the indices are read
  no_shell_unsigned(self.dim() <= 1 ? "index_add_" : put_path ? "scatter_gather_tensor_cpu" : "add_stub", self.dtype());
  if (idx.device().is_cpu()) {  // a GPU's kernel checks them (IndexCheck), reporting at the next wait
    const int64_t* ip = idx.data<int64_t>();
    const int64_t size = sizes1(self)[d];
    for (int64_t i = 0, n = idx.numel(); i < n && !put_path; ++i)
      EMBER_CHECK_INDEX(ip[i] >= 0 && ip[i] < size, "index out of range in self");
    check_range(idx, size, d);
  }
  const indexing::IndexCheck check{put_path ? kScatterGatherOutOfBounds : kIndexOutOfRange, d, false};
  Tensor src = to_device_of(source.is_contiguous() ? source : dense_clone(source), self);
  return inplace_dense(self, [&](const Tensor& dst) { backend(dst).index.add_rows(dst, d, idx, src, alpha, check); });
}
Tensor index_add(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  return index_add_(dense_clone(input), dim, index, source, alpha);
}

Tensor index_copy_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  check_inplace(self, "index_copy_");
  // aten's meta wraps dim first, then checks overlap before it looks at the other arguments
  int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  check_no_internal_overlap(self);
  check_index_copy_source(self, d, index, source);
  if (!restrided_view_runs(self, d, index.numel())) return self;
  no_shell_unsigned("index_copy_cpu", self.dtype());
  // Unlike index_fill, index_copy takes no negative indices.
  Tensor idx = wrapped_dim_index("index_copy_(): ", ErrorKind::Index, index, d, sizes1(self)[d], self.device(), false);
  Tensor src = to_device_of(source.is_contiguous() ? source : dense_clone(source), self);
  const indexing::IndexCheck check{kIndexCopyOutOfBounds, d, false};
  return inplace_dense(self, [&](const Tensor& dst) { backend(dst).index.copy_rows(dst, d, idx, src, check); });
}
Tensor index_copy(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& source) {
  return index_copy_(dense_clone(input), dim, index, source);
}
// aten's structured out=: dim wrapped, out='s dtype, the meta checks; then out= resized to the input's shape
// (its storage kept where large enough), the input copied in and index_copy_ run on it -- so an empty input's
// restrided view is checked against out='s storage (seed 5101: a 3-element out= lets the bound check speak)
Tensor index_copy_out(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& source, const Tensor& out) {
  const int64_t d = wrap_dim(dim, std::max<int64_t>(input.dim(), 1));
  check_out_dtype(out, input.dtype());
  check_index_copy_source(input, d, index, source);
  if (!out.same(input)) {
    resize_out(out, input.sizes());
    copy_into(out, input);
  }
  index_copy_(out, dim, index, source);
  return out;
}

Tensor index_fill_(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  check_inplace(self, "index_fill_");
  EMBER_CHECK_INDEX(index.dtype() == ScalarType::Int64, "index_fill_(): Expected dtype int64 for index.");
  int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  EMBER_CHECK(index.dim() <= 1, "Index has to be a vector/scalar");
  const bool runs = restrided_view_runs(self, d, index.numel());
  // aten's kernel reads the value with the checked conversion before any index.
  EMBER_DISPATCH_ALL_AND_COMPLEX(self.dtype(), "index_fill", [&] { (void)value.checked<scalar_t>(); });
  if (!runs) return self;
  Tensor v = scalar_tensor(value, self.dtype());
  bool aliased = false;  // an expanded self: PyTorch fills through the aliases (with a deprecation warning)
  for (int64_t i = 0; i < self.dim(); ++i) aliased |= self.strides()[i] == 0 && self.sizes()[i] > 1;
  if (aliased) {  // the indices read here (checked and wrapped on the host)
    const Tensor host = wrapped_dim_index("", ErrorKind::Index, index, d, sizes1(self)[d], cpu_device());
    const int64_t* ip = host.data<int64_t>();
    for (int64_t i = 0, m = host.numel(); i < m; ++i) fill_(select(self, d, ip[i]), value);
    return self;
  }
  Tensor idx = wrapped_dim_index("", ErrorKind::Index, index, d, sizes1(self)[d], self.device());
  const indexing::IndexCheck check{kIndexOutOfBounds, d, true};
  return inplace_dense(self, [&](const Tensor& dst) { backend(dst).index.fill_rows(dst, d, idx, v, check); });
}
Tensor index_fill(const Tensor& input, int64_t dim, const Tensor& index, const Scalar& value) {
  return index_fill_(dense_clone(input), dim, index, value);
}
Tensor index_fill_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  return index_fill_(self, dim, index, value.item());
}
Tensor index_fill(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& value) {
  return index_fill_(dense_clone(input), dim, index, value);
}

// ---- take ------------------------------------------------------------------

static void check_take_index(const Tensor& index) {
  EMBER_CHECK(index.dtype() == ScalarType::Int64, "take(): Expected a long tensor for index, but got ",
              legacy_name(index.dtype()));
}

Tensor take(const Tensor& input, const Tensor& index) {
  check_take_index(index);
  EMBER_CHECK_INDEX(!(input.numel() == 0 && index.numel() != 0), "take(): tried to take from an empty tensor");
  no_shell_unsigned("take_cpu", input.dtype());
  Tensor x = input.is_contiguous() ? input : dense_clone(input);
  Tensor idx = to_device_of(as_long_contiguous(index), x);
  check_take_range(idx, x.numel());
  Tensor out = empty(index.sizes(), input.dtype(), input.device());
  backend(x).index.take(x, idx, out, take_check());
  return out;
}

Tensor take_out(const Tensor& input, const Tensor& index, const Tensor& out) {
  // aten's take_out: the dtypes, the empty source, then the written tensor's overlaps before its resize
  check_take_index(index);
  EMBER_CHECK(out.dtype() == input.dtype(),
              "take(): self and out expected to have the same dtype, but got self.dtype = ", legacy_name(input.dtype()),
              " and out.dtype = ", legacy_name(out.dtype()));
  EMBER_CHECK_INDEX(!(input.numel() == 0 && index.numel() != 0), "take(): tried to take from an empty tensor");
  check_no_internal_overlap(out);
  check_no_overlap(out, index);
  check_no_overlap(out, input);
  Tensor r = take(input, index);
  resize_out(out, r.sizes());
  copy_into(out, r);
  return out;
}

}  // namespace ember
