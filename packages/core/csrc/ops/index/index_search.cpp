// Binning ops: searchsorted / bucketize (binary search per value), bincount and
// histc (counting): checks and allocation; the searches and counts are the backend's index
// kernels (kernels/cpu/index/search_kernels.cpp). Values compare in double.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>

#include "iter/elementwise_iter.h"
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"
#include "ops/index/index_common.h"

namespace ember {

using namespace index_detail;

namespace {

Tensor dense(const Tensor& t) { return t.is_contiguous() ? t : contiguous(t, MemoryFormat::Contiguous); }

// Values of t as a contiguous double buffer (copied once; these ops are not hot paths for huge inputs).
std::vector<double> as_doubles(const Tensor& t) {
  Tensor c = dense(t);
  std::vector<double> r(c.numel());
  backend(c).index.to_doubles(c, r.data());
  return r;
}

// searchsorted on a GPU: the values as doubles there (each through the common dtype, as
// as_doubles does), the sorter checked there; nothing is read on the host.
Tensor search_on_device(const Tensor& seq, const Tensor& input, ScalarType ct, bool right, const Tensor& sorter,
                        const Tensor& result) {
  const Tensor b = dense(to_dtype(to_dtype(to_device_of(seq, result), ct), ScalarType::Float64));
  const Tensor v = dense(to_dtype(to_dtype(to_device_of(input, result), ct), ScalarType::Float64));
  const int64_t len = seq.sizes()[seq.dim() - 1];
  Tensor order;
  if (sorter.defined()) {
    order = dense(to_device_of(sorter, result));
    EMBER_CHECK(first_outside(order, len, false).pos == order.numel(),
                "torch.searchsorted(): sorter index out of range");
  }
  const int64_t rows_in =
      seq.dim() > 1 ? std::max<int64_t>(1, compute_numel(seq.sizes()) / std::max<int64_t>(len, 1)) : 1;
  const indexing::SearchArgs args{b.data<double>(),
                                  v.data<double>(),
                                  v.numel(),
                                  len,
                                  rows_in,
                                  order.defined() ? order.data<int64_t>() : nullptr,
                                  right};
  backend(result).index.searchsorted(args, result);
  result.bump_version();
  return result;
}

Tensor search_impl(const Tensor& seq, const Tensor& input, bool out_int32, bool right,
                   std::optional<std::string_view> side, const Tensor& sorter, const Tensor* out, bool scalar_input) {
  if (side) {
    EMBER_CHECK(*side == "left" || *side == "right",
                "torch.searchsorted(): side can only be 'left' or 'right' but got ", *side);
    EMBER_CHECK(!(*side == "left" && right),
                "torch.searchsorted(): side and right can't be set to opposites, got side "
                "of left while right was True");
    right = *side == "right";
  }
  EMBER_CHECK(seq.dim() >= 1,
              "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
              "dimensions of boundaries tensor and input value tensor must match, but we got boundaries tensor ",
              shape_str(seq.sizes()), " and input value tensor ", shape_str(input.sizes()));
  if (seq.dim() > 1) {
    bool ok = !scalar_input && input.dim() == seq.dim();
    for (int64_t d = 0; ok && d + 1 < seq.dim(); ++d) ok = seq.sizes()[d] == input.sizes()[d];
    EMBER_CHECK(ok,
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                "boundaries tensor and input value tensor must match, but we got boundaries tensor ",
                shape_str(seq.sizes()), " and input value tensor ", shape_str(input.sizes()));
  }
  if (sorter.defined()) {
    EMBER_CHECK(same_shape(sorter.sizes(), seq.sizes()),
                "torch.searchsorted(): boundary and sorter must have the same "
                "size, but got boundary tensor ",
                shape_str(seq.sizes()), "and got sorter tensor ", shape_str(sorter.sizes()));
    EMBER_CHECK(sorter.dtype() == ScalarType::Int64,
                "torch.searchsorted(): sorter must be a tensor of long dtype but "
                "got dtype ",
                dtype_name(sorter.dtype()));
  }
  ScalarType odt = out_int32 ? ScalarType::Int32 : ScalarType::Int64;
  if (out)
    EMBER_CHECK(out->dtype() == odt,
                "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) "
                "or Long(int64) depending on whether out_int32 flag is True, but we got output tensor's dtype ",
                dtype_name(out->dtype()), " and out_int32 flag is ", out_int32 ? "True" : "False");
  // The kernel (run only for a non-empty input) dispatches on the common dtype: bool only when both are.
  const ScalarType common = promote_types(seq.dtype(), input.dtype());
  if (input.numel() > 0 && (common == ScalarType::Bool || is_complex(common)))
    dtype_not_implemented("searchsorted_out_cpu", common);
  // a number searched in boundaries on a device gives its result there
  Tensor result = out ? *out : empty(input.sizes(), odt, scalar_input ? seq.device() : input.device());
  if (out) resize_out(*out, input.sizes());
  if (is_complex(common)) return result;  // nothing to search (and no order on complex values)
  // aten compares in the two's common dtype, where a Python number is a wrapped number: -1
  // searched in uint8 boundaries is 255, and int64 boundaries meet a float32 input as float32.
  const Tensor* both[] = {&seq, &input};
  const ScalarType ct = result_type(both, 2);
  if (!result.device().is_cpu()) return search_on_device(seq, input, ct, right, sorter, result);
  std::vector<double> b = as_doubles(to_dtype(seq, ct)), v = as_doubles(to_dtype(input, ct));
  int64_t len = seq.sizes()[seq.dim() - 1];
  std::vector<int64_t> order;
  if (sorter.defined()) {
    Tensor s = dense(sorter);
    order.assign(s.data<int64_t>(), s.data<int64_t>() + s.numel());
    for (int64_t o : order) EMBER_CHECK(o >= 0 && o < len, "torch.searchsorted(): sorter index out of range");
  }
  int64_t rows_in = seq.dim() > 1 ? std::max<int64_t>(1, compute_numel(seq.sizes()) / std::max<int64_t>(len, 1)) : 1;
  const indexing::SearchArgs args{
      b.data(), v.data(), static_cast<int64_t>(v.size()), len, rows_in, order.empty() ? nullptr : order.data(), right};
  backend(result).index.searchsorted(args, result);
  result.bump_version();
  return result;
}

}  // namespace

Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& input, bool out_int32, bool right,
                    std::optional<std::string_view> side, const Tensor& sorter) {
  return search_impl(sorted_sequence, input, out_int32, right, side, sorter, nullptr, false);
}
Tensor searchsorted_out(const Tensor& sorted_sequence, const Tensor& input, bool out_int32, bool right,
                        std::optional<std::string_view> side, const Tensor& sorter, const Tensor& out) {
  return search_impl(sorted_sequence, input, out_int32, right, side, sorter, &out, false);
}
Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& input, bool out_int32, bool right,
                    std::optional<std::string_view> side, const Tensor& sorter) {
  EMBER_CHECK(sorted_sequence.dim() == 1,
              "torch.searchsorted(): input value can be a scalar only when boundaries "
              "tensor dimension is 1, but we got boundaries tensor dim(",
              sorted_sequence.dim(),
              ") and input value's "
              "dimension 0");
  return search_impl(sorted_sequence, wrap_number(input, sorted_sequence), out_int32, right, side, sorter, nullptr,
                     true);
}

Tensor bucketize(const Tensor& input, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CHECK(boundaries.dim() == 1, "boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(), ")");
  return search_impl(boundaries, input, out_int32, right, std::nullopt, Tensor(), nullptr, false);
}
Tensor bucketize(const Scalar& self, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CHECK(boundaries.dim() == 1, "boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(), ")");
  return search_impl(boundaries, wrap_number(self, boundaries), out_int32, right, std::nullopt, Tensor(), nullptr,
                     true);
}
Tensor bucketize_out(const Tensor& input, const Tensor& boundaries, bool out_int32, bool right, const Tensor& out) {
  EMBER_CHECK(boundaries.dim() == 1, "boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(), ")");
  return search_impl(boundaries, input, out_int32, right, std::nullopt, Tensor(), &out, false);
}

// ---- bincount / histc ----------------------------------------------------------

Tensor bincount(const Tensor& input, const Tensor& weights, int64_t minlength) {
  // PyTorch's order: the integer-dtype dispatch (bool excluded), minlength, then an empty 1-d
  // input returns int64 zeros whatever the weights are.
  if (!is_integral(input.dtype(), false) || is_shell_unsigned(input.dtype()))
    dtype_not_implemented("bincount_cpu", input.dtype());
  EMBER_CHECK(minlength >= 0, "minlength should be >= 0");
  if (input.dim() == 1 && input.numel() == 0) return zeros({minlength}, ScalarType::Int64, input.device());
  EMBER_CHECK(input.dim() == 1, "bincount only supports 1-d non-negative integral inputs.");
  Tensor idx = as_long_contiguous(input);
  int64_t n = idx.numel(), mx = -1;
  if (!idx.device().is_cpu()) {  // the least and the largest, reduced on the device
    if (n > 0) {
      EMBER_CHECK(min(idx).item().to<int64_t>() >= 0, "bincount only supports 1-d non-negative integral inputs.");
      mx = max(idx).item().to<int64_t>();
    }
  } else {
    const int64_t* ip = idx.data<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      EMBER_CHECK(ip[i] >= 0, "bincount only supports 1-d non-negative integral inputs.");
      mx = std::max(mx, ip[i]);
    }
  }
  // mx + 1 bins: the largest value must leave room for one more (the count would wrap, and the kernel
  // write out of bounds)
  EMBER_CHECK(mx < INT64_MAX, "maximum value of input overflowed, it should be < ", INT64_MAX, " but got ", mx);
  if (weights.defined())  // (after the values, as aten)
    EMBER_CHECK(weights.dim() == 1 && weights.numel() == input.numel(),
                "weights should be 1-d and have the same length as input");
  int64_t bins = std::max(mx + 1, minlength);
  if (!weights.defined()) {
    Tensor out = zeros({bins}, ScalarType::Int64, input.device());
    backend(out).index.bincount(idx, Tensor(), out);
    return out;
  }
  // float32 weights keep their dtype; everything else counts in float64 (PyTorch's rule).
  ScalarType odt = weights.dtype() == ScalarType::Float32 ? ScalarType::Float32 : ScalarType::Float64;
  Tensor w = to_device_of(dense(to_recorded(weights, odt)), idx);
  Tensor out = zeros({bins}, odt, input.device());
  backend(out).index.bincount(idx, w, out);
  return out;
}

Tensor histc_out(const Tensor& input, int64_t bins, const Scalar& min, const Scalar& max, const Tensor& out) {
  ScalarType dt = input.dtype();
  // PyTorch checks the out dtype before its dtype dispatch.
  EMBER_CHECK(out.dtype() == dt,
              "torch.histogram: input tensor and hist tensor should have the same dtype, but got "
              "input ",
              c_type_name(dt), " and hist ", c_type_name(out.dtype()));
  EMBER_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
  double lo = min.to_double(), hi = max.to_double();
  EMBER_CHECK(!(lo > hi), "torch.histc: max must be larger than min");
  const bool on_device = !input.device().is_cpu();
  // On a GPU the values become doubles there, their range reduced there (NaN then propagates).
  std::vector<double> v = on_device ? std::vector<double>() : as_doubles(input);
  const Tensor dv = on_device ? dense(to_dtype(input, ScalarType::Float64)) : Tensor();
  const int64_t nv = on_device ? dv.numel() : static_cast<int64_t>(v.size());
  if (lo == hi && nv > 0 && on_device) {
    lo = ember::min(dv).item().to_double();
    hi = ember::max(dv).item().to_double();
  } else if (lo == hi && nv > 0) {
    lo = *std::min_element(v.begin(), v.end());
    hi = *std::max_element(v.begin(), v.end());
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  EMBER_CHECK(std::isfinite(lo) && std::isfinite(hi), "torch.histc: range of [", lo, ", ", hi, "] is not finite");
  // The edges are doubles: around 2**63, x - 1 and x + 1 round back to x.
  EMBER_CHECK(lo < hi, "torch.histc: max must be larger than min");
  // aten writes the bin edges with linspace into a tensor of the input's dtype (its checked
  // conversion of both ends), then dispatches on the dtype.
  if (dt != ScalarType::Bool)
    EMBER_DISPATCH_ALL(dt, "histc", [&] {
      (void)Scalar(lo).checked<scalar_t>();
      (void)Scalar(hi).checked<scalar_t>();
    });
  resize_out(out, {bins});  // aten sizes its output before the dtype dispatch (a huge bins: OOM first)
  if (!is_floating(dt)) dtype_not_implemented("histogram_cpu", dt);
  backend(out).index.histc(on_device ? dv.data<double>() : v.data(), nv, lo, hi, out);
  out.bump_version();
  return out;
}

Tensor histc(const Tensor& input, int64_t bins, const Scalar& min, const Scalar& max) {
  Tensor out = empty({0}, input.dtype(), input.device());
  return histc_out(input, bins, min, max, out);
}

}  // namespace ember
