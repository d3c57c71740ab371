#include "elementwise_iter.h"

#include <algorithm>

#include "iter/resize_out.h"

namespace ember {

// Note [Result type categories]
// PyTorch promotes in three tiers: dimensioned tensors, 0-d tensors, wrapped
// Python numbers. A lower tier only matters when it brings a higher category
// (bool < int < float), and then a Python float brings the default dtype.
namespace {
ScalarType combine(ScalarType higher, ScalarType lower) {
  if (higher == ScalarType::Undefined) return lower;
  if (lower == ScalarType::Undefined) return higher;
  if (is_complex(higher)) return higher;
  if (is_complex(lower)) {
    // a float tensor keeps its precision (PyTorch's toComplexType: float16 -> complex32; bfloat16,
    // which has no complex type of its own, -> complex64)
    if (is_floating(higher))
      return higher == ScalarType::Float64   ? ScalarType::ComplexDouble
             : higher == ScalarType::Float16 ? ScalarType::ComplexHalf
                                             : ScalarType::ComplexFloat;
    return lower;
  }
  if (is_floating(higher)) return higher;
  if (higher == ScalarType::Bool || is_floating(lower)) return promote_types(higher, lower);
  return higher;
}
}  // namespace

namespace {
// Every operand a Python number (no tensor among them), one of them an int in [2^63, 2^64): PyTorch
// promotes the numbers' own types in order, that one as UInt64, which promotes with a float or complex
// number only ("add(2**63, 3)" raises; ember has no uint64 dtype: numbers of UInt64 alone stay Int64 bits).
ScalarType numbers_result_type(const Tensor* const* ts, int n) {
  ScalarType acc = ScalarType::Undefined;
  bool acc_u64 = false;
  for (int i = 0; i < n; ++i) {
    if (!ts[i]->defined()) continue;
    const bool u = ts[i]->impl()->uint64_number;
    ScalarType dt = ts[i]->dtype();
    if (is_floating(dt)) dt = default_dtype();
    else if (is_complex(dt))
      dt = default_dtype() == ScalarType::Float64 ? ScalarType::ComplexDouble : ScalarType::ComplexFloat;
    if (acc == ScalarType::Undefined) {
      acc = dt;
      acc_u64 = u;
    } else if (acc_u64 != u) {
      const ScalarType other = u ? acc : dt;
      EMBER_CHECK(is_floating(other) || is_complex(other),
                  "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote ",
                  acc_u64 ? "UInt64" : legacy_name(acc), " and ", u ? "UInt64" : legacy_name(dt));
      acc = other;
      acc_u64 = false;
    } else if (!u) {
      acc = promote_types(acc, dt);
    }
  }
  return acc;
}
}  // namespace

ScalarType result_type(const Tensor* const* ts, int n) {
  ScalarType dim = ScalarType::Undefined, zero = ScalarType::Undefined, wrapped = ScalarType::Undefined;
  bool uint64 = false;
  for (int i = 0; i < n; ++i) {
    const Tensor& t = *ts[i];
    if (!t.defined()) continue;
    ScalarType dt = t.dtype();
    if (t.impl()->uint64_number) {
      uint64 = true;  // PyTorch's UInt64 number: integral, so it never raises an int result's dtype
    } else if (t.impl()->wrapped_number) {
      if (is_floating(dt)) dt = default_dtype();
      else if (is_complex(dt))
        dt = default_dtype() == ScalarType::Float64 ? ScalarType::ComplexDouble : ScalarType::ComplexFloat;
      wrapped = promote_types(wrapped, dt);
    } else if (t.dim() == 0) {
      zero = promote_types(zero, dt);
    } else {
      dim = promote_types(dim, dt);
    }
  }
  if (uint64 && dim == ScalarType::Undefined && zero == ScalarType::Undefined) return numbers_result_type(ts, n);
  const ScalarType r = combine(dim, combine(zero, wrapped));
  if (uint64) {
    EMBER_CHECK(r != ScalarType::Bool,
                "Promotion for uint16, uint32, uint64 types is not supported, attempted to "
                "promote Bool and UInt64");
    if (r == ScalarType::Undefined) return ScalarType::Int64;
  }
  return r;
}

ScalarType result_type(std::initializer_list<const Tensor*> ts) {
  return result_type(ts.begin(), static_cast<int>(ts.size()));
}

DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b) {
  size_t n = std::max(a.size(), b.size());
  DimVector out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    EMBER_CHECK(da == db || da == 1 || db == 1, "The size of tensor a (", da, ") must match the size of tensor b (", db,
                ") at non-singleton dimension ", n - 1 - i);
    out[n - 1 - i] = da == 1 ? db : da;
  }
  return out;
}

bool has_internal_overlap(const Tensor& t) {
  if (t.numel() == 0) return false;  // nothing is written (PyTorch: an empty tensor counts as contiguous)
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.strides()[d] == 0 && t.sizes()[d] > 1) return true;
  return false;
}

void check_no_internal_overlap(const Tensor& t) {
  EMBER_CHECK(!has_internal_overlap(t),
              "unsupported operation: more than one element of the written-to tensor refers to a single "
              "memory location. Please clone() the tensor before performing the operation.");
}

bool is_non_overlapping_and_dense(const Tensor& t) {
  // the dims by increasing stride must tile memory exactly (size-1 dims do not count)
  const int64_t nd = t.dim();
  DimVector order(static_cast<size_t>(nd));
  for (int64_t d = 0; d < nd; ++d) order[d] = d;
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return t.strides()[a] < t.strides()[b]; });
  int64_t expected = 1;
  for (int64_t d : order) {
    if (t.sizes()[d] == 1) continue;
    if (t.strides()[d] != expected) return false;
    expected *= t.sizes()[d];
  }
  return true;
}

Overlap overlap_status(const Tensor& a, const Tensor& b) {
  if (a.impl() == b.impl()) return Overlap::Full;
  if (a.numel() == 0 || b.numel() == 0 || a.impl()->storage.get() != b.impl()->storage.get()) return Overlap::No;
  // only dense layouts are compared by their memory ranges (aten gives up on the rest too)
  if (!is_non_overlapping_and_dense(a) || !is_non_overlapping_and_dense(b)) return Overlap::TooHard;
  const char *a0 = a.raw(), *b0 = b.raw();
  const char *a1 = a0 + a.numel() * a.itemsize(), *b1 = b0 + b.numel() * b.itemsize();
  if (a0 == b0 && a1 == b1) return a.strides().equals(b.strides()) ? Overlap::Full : Overlap::Partial;
  return a0 < b1 && b0 < a1 ? Overlap::Partial : Overlap::No;
}

static constexpr const char* kInputOverlap =
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory "
    "location. Please clone() the tensor before performing the operation.";

void check_no_overlap(const Tensor& out, const Tensor& in) {
  const Overlap o = overlap_status(out, in);
  EMBER_CHECK(o != Overlap::Partial && o != Overlap::Full, kInputOverlap);
}

void check_no_partial_overlap(const Tensor& out, const Tensor& in) {
  EMBER_CHECK(overlap_status(out, in) != Overlap::Partial, kInputOverlap);
}

void check_cast(ScalarType result, ScalarType out) {
  EMBER_CHECK(can_cast(result, out), "result type ", legacy_name(result), " can't be cast to the desired output type ",
              legacy_name(out));
}

void check_out_dtype(const Tensor& out, ScalarType want) {
  EMBER_CHECK(out.dtype() == want, "Expected out tensor to have dtype ", c_type_name(want), ", but got ",
              c_type_name(out.dtype()), " instead");
}

void check_out_exact(ScalarType out, ScalarType result) {
  EMBER_CHECK(out == result, "Found dtype ", legacy_name(out), " but expected ", legacy_name(result));
}

ElementwiseIter::ElementwiseIter(const IterSpec& spec, std::initializer_list<Tensor> inputs)
    : ElementwiseIter(spec, inputs.begin(), static_cast<int>(inputs.size())) {}
ElementwiseIter::ElementwiseIter(const IterSpec& spec, const Tensor* inputs, int n) {
  EMBER_CHECK(n + 1 <= kMaxOperands, spec.name, ": too many operands");
  const Tensor* ptrs[kMaxOperands];
  for (int i = 0; i < n; ++i) ptrs[i] = &inputs[i];
  build(spec, ptrs, n, /*keep_inputs=*/true);
}
ElementwiseIter::ElementwiseIter(const IterSpec& spec, std::initializer_list<const Tensor*> inputs) {
  build(spec, inputs.begin(), static_cast<int>(inputs.size()), /*keep_inputs=*/false);
}

void ElementwiseIter::compute_dtypes(const IterSpec& spec, const Tensor* const* inputs, int n) {
  // A forced compute dtype skips the promotion (where's bool condition beside uint16 operands
  // would not promote)
  ScalarType common = spec.rule == DtypeRule::FirstInput || spec.force_compute != ScalarType::Undefined
                          ? inputs[0]->dtype()
                          : result_type(inputs, n);
  ScalarType compute = common;
  if (spec.rule == DtypeRule::IntToFloat && !is_floating_or_complex(common)) compute = default_dtype();
  if (spec.force_compute != ScalarType::Undefined) compute = spec.force_compute;
  compute_ = compute;
  dtypes_[0] = spec.rule == DtypeRule::PromoteBoolOut ? ScalarType::Bool : compute;
}

void ElementwiseIter::allocate_or_check_output(const IterSpec& spec, IntArrayRef shape, const Tensor* const* inputs,
                                               int n) {
  ScalarType want = dtypes_[0];
  if (spec.out.defined()) {
    const Tensor& out = spec.out;
    if (spec.out_rule == OutRule::Exact && !spec.inplace) check_out_exact(out.dtype(), want);
    check_cast(want, out.dtype());
    if (spec.inplace) {
      EMBER_CHECK(out.sizes().equals(shape), "output with shape ", shape_str(out.sizes()),
                  " doesn't match the broadcast shape ", shape_str(shape));
    } else {
      resize_out(out, shape);
    }
    result_ = out;
    // A strided out= that may share elements with an input (an overlap aten cannot rule out, see
    // overlap_status) is written through a buffer, so every input is read before any write.
    bool buffered = out.dtype() != want;
    for (int i = 0; i < n && !buffered && !spec.inplace; ++i)
      buffered = inputs[i]->impl()->storage.get() == out.impl()->storage.get() &&
                 overlap_status(out, *inputs[i]) == Overlap::TooHard;
    if (buffered) {
      out_temp_ = out.dtype() != want ? empty_strided(out.sizes(), out.strides(), want, device_)
                                      : empty(out.sizes(), want, device_);
      copy_back_ = true;
    }
    return;
  }
  // Follow the inputs' memory layout, so that transposed inputs give a
  // transposed (dense) output and the loop stays contiguous.
  bool dense = true;
  for (int i = 0; i < n; ++i)
    if (inputs[i]->dim() != 0 && !inputs[i]->is_contiguous()) dense = false;
  if (dense || shape.size() < 2) {
    result_ = empty(shape, want, device_);
  } else {
    int nd = static_cast<int>(shape.size());
    int perm[kMaxIterDims];
    for (int d = 0; d < nd; ++d) perm[d] = nd - 1 - d;
    auto stride_of = [&](int i, int d) -> int64_t {
      const Tensor& t = *inputs[i];
      int64_t off = nd - t.dim();
      if (d < off || t.sizes()[d - off] == 1) return 0;
      return t.strides()[d - off];
    };
    auto should_swap = [&](int inner, int outer) {
      for (int i = 0; i < n; ++i) {
        int64_t a = stride_of(i, inner), b = stride_of(i, outer);
        if (a == 0 || b == 0) continue;
        if (a != b) return a > b;
      }
      return false;
    };
    for (int i = 1; i < nd; ++i)
      for (int j = i; j > 0 && should_swap(perm[j - 1], perm[j]); --j) std::swap(perm[j - 1], perm[j]);
    DimVector st(nd);
    int64_t s = 1;
    for (int k = 0; k < nd; ++k) {
      st[perm[k]] = s;
      s *= std::max<int64_t>(shape[perm[k]], 1);
    }
    result_ = empty_strided(shape, st, want, device_);
  }
}

void ElementwiseIter::build(const IterSpec& spec, const Tensor* const* inputs, int n, bool keep_inputs) {
  EMBER_CHECK(n + 1 <= kMaxOperands, spec.name, ": too many operands");
  ntensors_ = n + 1;
  // TensorIterator checks the written-to tensor for internal overlap first: before the shapes
  // broadcast, the dtypes are checked and an out= tensor is resized (which would hide it).
  if (spec.out.defined() && spec.check_overlap) {
    check_no_internal_overlap(spec.out);
    // an input may be the written-to tensor itself (in place), not part of it
    for (int i = 0; i < n; ++i) check_no_partial_overlap(spec.out, *inputs[i]);
  }
  compute_dtypes(spec, inputs, n);
  compute_device(spec, inputs, n);
  // In-place ops broadcast into the target, so its shape joins the broadcast.
  bool into_out = spec.inplace && spec.out.defined();
  DimVector shape = to_vec(into_out ? spec.out.sizes() : inputs[0]->sizes());
  for (int i = into_out ? 0 : 1; i < n; ++i)
    if (!inputs[i]->sizes().equals(shape)) shape = broadcast_shapes(shape, inputs[i]->sizes());
  EMBER_CHECK(static_cast<int>(shape.size()) <= kMaxIterDims, spec.name, ": tensors with more than ", kMaxIterDims,
              " dimensions are not supported");
  allocate_or_check_output(spec, shape, inputs, n);
  // The operands as the strides read them: the output (or its temporary), then each input as
  // given, or converted (or a copy the iterator keeps, for callers whose inputs are temporaries).
  const Tensor* ops[kMaxOperands];
  ops[0] = copy_back_ ? &out_temp_ : &result_;
  for (int i = 0; i < n; ++i) {
    const Tensor& t = *inputs[i];
    ops[i + 1] = &t;
    ScalarType want = spec.cast_inputs ? compute_ : t.dtype();
    dtypes_[i + 1] = want;
    // (A CPU 0-d operand of a device iteration goes there too: a device kernel cannot read host
    // memory. A device 0-d operand of another dtype is converted on its device instead.) On the
    // CPU a one-element operand of any rank is such a scalar too, as TensorIterator's is_scalar:
    // mul / div read its value in op-math, not rounded to half first.
    const bool one_value = t.dim() == 0 || (t.numel() == 1 && device_.is_cpu());
    if (one_value && t.device().is_cpu() && (t.dtype() != want || !device_.is_cpu())) {
      // A 0-d operand (usually a Python number) converts on the stack, not in a new tensor.
      // PyTorch's uint64 number (an int in [2^63, 2^64), held as its int64 bits): a float
      // computation reads its value, an integer one its bits (the uint64 -> int64 cast wraps).
      Scalar v = is_floating(want) ? number_value(t) : t.item();
      EMBER_DISPATCH_EVERY_TYPE(want, spec.name,
                                [&] { *reinterpret_cast<scalar_t*>(scalar_buf_[i + 1]) = v.to<scalar_t>(); });
      *reinterpret_cast<double*>(scalar_buf_[i + 1] + kScalarSlot) = v.to_double();
      data_[i + 1] = scalar_buf_[i + 1];
      for (size_t d = 0; d < shape.size(); ++d) strides_[i + 1][d] = 0;
      continue;
    }
    if (t.dtype() != want) {
      kept_[i + 1] = to_dtype(t, want);
      ops[i + 1] = &kept_[i + 1];
    } else if (keep_inputs) {
      kept_[i + 1] = t;
      ops[i + 1] = &kept_[i + 1];
    }
    data_[i + 1] = nullptr;
  }
  setup_strides(ops, shape);
  reorder_and_coalesce();
}

// PyTorch's TensorIterator: the common device is the first one that is not the CPU (the output's
// first), and every operand must be on it, except input 0-d CPU tensors (numbers, in effect).
void ElementwiseIter::compute_device(const IterSpec& spec, const Tensor* const* inputs, int n) {
  Device common = spec.out.defined() ? spec.out.device() : cpu_device();
  for (int i = 0; i < n && common.is_cpu(); ++i) common = inputs[i]->device();
  device_ = common;
  if (common.is_cpu()) return;  // all on the CPU: nothing more to check
  auto mismatch = [&](Device d) {
    fail_two_devices(common, d, spec.out.defined() ? spec.out.device() : inputs[0]->device());
  };
  if (spec.out.defined() && spec.out.device() != common) mismatch(spec.out.device());
  for (int i = 0; i < n; ++i) {
    const Tensor& t = *inputs[i];
    if (t.device() != common && !(t.dim() == 0 && t.device().is_cpu())) mismatch(t.device());
  }
}

void ElementwiseIter::setup_strides(const Tensor* const* ops, IntArrayRef shape) {
  int nd = static_cast<int>(shape.size());
  ndim_ = nd;
  numel_ = compute_numel(shape);
  // Store dims innermost-first: iteration dim d is shape dim nd-1-d.
  for (int d = 0; d < nd; ++d) shape_[d] = shape[nd - 1 - d];
  for (int o = 0; o < ntensors_; ++o) {
    if (o > 0 && data_[o] == scalar_buf_[o]) continue;
    const Tensor& t = *ops[o];
    data_[o] = t.raw();
    int64_t item = static_cast<int64_t>(t.itemsize());
    int64_t off = nd - t.dim();
    for (int d = 0; d < nd; ++d) {
      int sd = nd - 1 - d;
      strides_[o][d] = (sd < off || t.sizes()[sd - off] == 1) ? 0 : t.strides()[sd - off] * item;
    }
  }
}

// Note [Iteration order]
// Dims are sorted so the one with the smallest output stride is innermost
// (ties broken by the inputs), then neighbours that are contiguous for every
// operand merge. Two contiguous 4096x4096 operands become one run of 16M.
void ElementwiseIter::reorder_and_coalesce() {
  if (ndim_ == 0) {
    ndim_ = 1;
    shape_[0] = 1;
    for (int o = 0; o < ntensors_; ++o) strides_[o][0] = 0;
    return;
  }
  int nd = ndim_;
  if (nd > 1) {
    int perm[kMaxIterDims];
    for (int d = 0; d < nd; ++d) perm[d] = d;
    auto should_swap = [&](int inner, int outer) {
      for (int o = 0; o < ntensors_; ++o) {
        int64_t a = strides_[o][inner], b = strides_[o][outer];
        if (a == 0 || b == 0) continue;
        if (a != b) return a > b;
      }
      return false;
    };
    bool changed = false;
    for (int i = 1; i < nd; ++i)
      for (int j = i; j > 0 && should_swap(perm[j - 1], perm[j]); --j) {
        std::swap(perm[j - 1], perm[j]);
        changed = true;
      }
    if (changed) {
      int64_t tmp[kMaxIterDims];
      for (int d = 0; d < nd; ++d) tmp[d] = shape_[perm[d]];
      std::copy(tmp, tmp + nd, shape_);
      for (int o = 0; o < ntensors_; ++o) {
        for (int d = 0; d < nd; ++d) tmp[d] = strides_[o][perm[d]];
        std::copy(tmp, tmp + nd, strides_[o]);
      }
    }
  }
  int out = 0;
  for (int d = 1; d < nd; ++d) {
    bool can = true;
    if (shape_[out] != 1 && shape_[d] != 1)
      for (int o = 0; o < ntensors_ && can; ++o) can = strides_[o][out] * shape_[out] == strides_[o][d];
    if (can) {
      if (shape_[out] == 1)
        for (int o = 0; o < ntensors_; ++o) strides_[o][out] = strides_[o][d];
      shape_[out] *= shape_[d];
    } else {
      ++out;
      shape_[out] = shape_[d];
      for (int o = 0; o < ntensors_; ++o) strides_[o][out] = strides_[o][d];
    }
  }
  ndim_ = out + 1;
}

void ElementwiseIter::finish() {
  if (copy_back_) {
    copy_into(result_, out_temp_);
    copy_back_ = false;
  }
}

}  // namespace ember
