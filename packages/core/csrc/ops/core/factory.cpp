// Factories: tensors made from sizes and values rather than from other tensors.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/deterministic.h"
#include "core/profiler_op.h"
#include "core/size_math.h"
#include "iter/elementwise_iter.h"
#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/internal.h"

namespace ember {

namespace {
ScalarType or_default(std::optional<ScalarType> d) { return d ? *d : default_dtype(); }
Device or_cpu(std::optional<Device> d) { return d ? *d : cpu_device(); }

// Write into out= (resized to `sizes`), or allocate.
Tensor alloc(IntArrayRef sizes, ScalarType dtype, Device device) {
  check_device_available(device);
  return empty(sizes, dtype, device);
}
ScalarType infer_scalar_dtype(const Scalar& v) {
  if (v.is_complex())
    return default_dtype() == ScalarType::Float64 ? ScalarType::ComplexDouble : ScalarType::ComplexFloat;
  return v.is_bool() ? ScalarType::Bool : v.is_int() ? ScalarType::Int64 : default_dtype();
}
}  // namespace

const Tensor& fill_uninitialized(const Tensor& t) {
  if (!g_fill_uninitialized.load(std::memory_order_relaxed) || t.numel() == 0) return t;
  static constexpr int64_t kIntMax[] = {1, 255, 127, 32767, 2147483647, INT64_MAX};  // Bool..Int64
  ScalarType dt = t.dtype();
  if (t.is_floating() || is_complex(dt)) {
    fill_(t, Scalar(std::nan("")));
  } else if (dt == ScalarType::Bool) {
    fill_(t, Scalar(true));
  } else if (is_shell_unsigned(dt)) {
    fill_(t, Scalar(int64_t{-1}));  // all ones: the type's max
  } else {
    fill_(t, Scalar(kIntMax[static_cast<int>(dt)]));
  }
  return t;
}

Tensor empty(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device,
             std::optional<MemoryFormat> memory_format) {
  if (memory_format == MemoryFormat::ChannelsLast || memory_format == MemoryFormat::ChannelsLast3d) {
    check_memory_format_rank(static_cast<int64_t>(size.size()), *memory_format);
    (void)checked_numel(size);  // the sizes' errors before a stride product could overflow
    check_device_available(or_cpu(device));
    return fill_uninitialized(
        empty_strided(size, memory_format_strides(size, *memory_format), or_default(dtype), or_cpu(device)));
  }
  EMBER_CHECK(memory_format != MemoryFormat::Preserve, "unsupported memory format Preserve");
  return fill_uninitialized(alloc(size, or_default(dtype), or_cpu(device)));
}
Tensor empty_out(IntArrayRef size, std::optional<ScalarType>, std::optional<Device>, std::optional<MemoryFormat>,
                 const Tensor& out) {
  return resize_out(out, size, false);
}
Tensor empty_strided(IntArrayRef size, IntArrayRef stride, std::optional<ScalarType> dtype,
                     std::optional<Device> device) {
  check_device_available(or_cpu(device));
  return fill_uninitialized(empty_strided(size, stride, or_default(dtype), or_cpu(device)));
}

Tensor full(IntArrayRef size, const Scalar& fill_value, std::optional<ScalarType> dtype, std::optional<Device> device) {
  Tensor t = alloc(size, dtype ? *dtype : infer_scalar_dtype(fill_value), or_cpu(device));
  return fill_(t, fill_value);
}
Tensor full_out(IntArrayRef size, const Scalar& fill_value, std::optional<ScalarType>, std::optional<Device>,
                const Tensor& out) {
  return fill_(resize_out(out, size, false), fill_value);
}
Tensor zeros(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return fill_(alloc(size, or_default(dtype), or_cpu(device)), Scalar(int64_t(0)));
}
Tensor zeros_out(IntArrayRef size, std::optional<ScalarType>, std::optional<Device>, const Tensor& out) {
  return fill_(resize_out(out, size, false), Scalar(int64_t(0)));
}
Tensor ones(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return fill_(alloc(size, or_default(dtype), or_cpu(device)), Scalar(int64_t(1)));
}
Tensor ones_out(IntArrayRef size, std::optional<ScalarType>, std::optional<Device>, const Tensor& out) {
  return fill_(resize_out(out, size, false), Scalar(int64_t(1)));
}

// aten's *_like factories: empty_like, then fill_ (zero_ for zeros) -- nested op events, as in
// PyTorch's trace. empty_like keeps the input's layout through empty_strided; a memory format
// asked for allocates through empty.
Tensor empty_like(const Tensor& input, std::optional<ScalarType> dtype, std::optional<Device> device,
                  std::optional<MemoryFormat> memory_format) {
  ScalarType dt = dtype ? *dtype : input.dtype();
  const Device d = device ? *device : input.device();
  check_device_available(d);
  const bool preserve = !memory_format || *memory_format == MemoryFormat::Preserve;
  return profiler::nested_op(preserve ? "aten::empty_strided" : "aten::empty", {nullptr, nullptr},
                             [&] { return fill_uninitialized(empty_with_layout_of(input, dt, memory_format, d)); });
}
namespace {
Tensor like(const Tensor& input, std::optional<ScalarType> dtype, std::optional<Device> device,
            std::optional<MemoryFormat> mf) {
  return profiler::nested_op("aten::empty_like", {&input}, [&] { return empty_like(input, dtype, device, mf); });
}
Tensor filled(const Tensor& r, const Scalar& value) {
  return profiler::nested_op("aten::fill_", {&r, nullptr}, [&] { return fill_(r, value); });
}
}  // namespace
Tensor zeros_like(const Tensor& input, std::optional<ScalarType> dtype, std::optional<Device> device,
                  std::optional<MemoryFormat> mf) {
  Tensor r = like(input, dtype, device, mf);
  return profiler::nested_op("aten::zero_", {&r}, [&] { return zero_(r); });
}
Tensor ones_like(const Tensor& input, std::optional<ScalarType> dtype, std::optional<Device> device,
                 std::optional<MemoryFormat> mf) {
  return filled(like(input, dtype, device, mf), Scalar(int64_t(1)));
}
Tensor full_like(const Tensor& input, const Scalar& fill_value, std::optional<ScalarType> dtype,
                 std::optional<Device> device, std::optional<MemoryFormat> mf) {
  return filled(like(input, dtype, device, mf), fill_value);
}

// ---- ranges ----

namespace {

// arange's length as PyTorch computes it: from the int64-truncated arguments for int64 (so
// arange(2.5, dtype=int64) has 2 elements, int32 3), in double for every other dtype.
int64_t arange_length(const Scalar& start, const Scalar& end, const Scalar& step, ScalarType dt) {
  double s = start.to_double(), e = end.to_double(), st = step.to_double();
  EMBER_CHECK(std::isfinite(s) && std::isfinite(e), "unsupported range: ", s, " -> ", e);
  EMBER_CHECK(st != 0, "step must be nonzero");
  EMBER_CHECK((st > 0 && e >= s) || (st < 0 && e <= s), "upper bound and lower bound inconsistent with step sign");
  if (dt == ScalarType::Int64) {
    // c10's checked conversion compares with int64's max as a double: 2.0**63 passes (as
    // INT64_MIN), so arange(0, 5, 2.0**63, dtype=int32) is [0].
    int64_t a = start.checked<int64_t>(), b = end.checked<int64_t>(), c = step.checked<int64_t>();
    EMBER_CHECK_VALUE(c != 0, "step must be nonzero");  // a fractional step truncated to 0: PyTorch's ValueError
    // 128-bit: the span of two int64s overflows int64 (PyTorch's own length then wraps).
    __int128 n = (static_cast<__int128>(b) - a + c - (c > 0 ? 1 : -1)) / c;
    return n < 0 ? 0 : static_cast<int64_t>(n);  // truncation can reverse a short range: arange(0.5, 0.9)
  }
  return size_from_double(std::ceil((e - s) / st), "arange");
}

// b - a in an integer dtype's C arithmetic (int8/int16/uint8 promote to int; int32 and int64
// wrap), as aten's logspace kernel takes it.
template <class T>
double wrapped_difference(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using P = decltype(a - b);
    using U = std::make_unsigned_t<P>;
    return static_cast<double>(static_cast<P>(static_cast<U>(P(b)) - static_cast<U>(P(a))));
  } else {
    return 0.0;  // float dtypes step from the doubles
  }
}
}  // namespace

// Where a range is written: out= itself when contiguous, else a temporary copied back after
// (an out= of the right size keeps its strides, as in PyTorch).
static Tensor contiguous_target(const Tensor& t) {
  return t.is_contiguous() ? t : empty(t.sizes(), t.dtype(), t.device());
}

// aten resizes a range's out= tensor only when its element count differs (a 0-d out of one
// element stays 0-d).
static Tensor range_out(const Tensor& out, int64_t n) { return out.numel() == n ? out : resize_out(out, {n}, false); }

static Tensor arange_impl(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<ScalarType> dtype,
                          const Tensor* out, Device device = cpu_device()) {
  bool any_float = start.is_float() || end.is_float() || step.is_float();
  ScalarType dt = dtype ? *dtype : (out ? out->dtype() : (any_float ? default_dtype() : ScalarType::Int64));
  // aten's checks run inside its dtype dispatch: Bool fails before them.
  EMBER_CHECK_NOTIMPL(dt != ScalarType::Bool, "\"arange_cpu\" not implemented for 'Bool'");
  if (dt == ScalarType::Float16 || dt == ScalarType::BFloat16)  // aten reads them in float, checked
    for (const Scalar* v : {&start, &end, &step}) (void)v->checked<float>();
  int64_t n = arange_length(start, end, step, dt);
  // An integer dtype truncates start and step before stepping (the length still comes from the
  // exact values): arange(0, 2.5, 0.5, dtype=int32) is five zeros. aten reads them checked after
  // the length, empty or not: arange(0, 2.5, inf, dtype=uint8) is the overflow error.
  int64_t ia = 0, ic = 0;
  if (is_integral(dt, false)) {
    ia = start.checked<int64_t>();
    ic = step.checked<int64_t>();
  }
  double s = start.to_double(), st = step.to_double();
  if (out && out->numel() != n)
    warn("The number of elements in the out tensor of shape " + shape_str(out->sizes()) + " is " +
         std::to_string(out->numel()) + " which does not match the computed number of elements " + std::to_string(n) +
         ". Note that this may occur as a result of rounding error. The out tensor will be resized to a tensor of "
         "shape (" +
         std::to_string(n) + ",).");
  Tensor t = out ? range_out(*out, n) : empty({n}, dt, device);
  if (n == 0) return t;
  Tensor w = contiguous_target(t);
  backend(w).fill.arange(dt, w.raw(), n, s, st, ia, ic);
  if (!w.same(t)) copy_into(t, w);
  return t;
}

Tensor arange(const Scalar& end, std::optional<ScalarType> dtype, std::optional<Device> device) {
  check_device_available(or_cpu(device));
  return arange_impl(Scalar(int64_t(0)), end, Scalar(int64_t(1)), dtype, nullptr, or_cpu(device));
}
Tensor arange_out(const Scalar& end, std::optional<ScalarType> dtype, std::optional<Device>, const Tensor& out) {
  return arange_impl(Scalar(int64_t(0)), end, Scalar(int64_t(1)), dtype, &out);
}
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<ScalarType> dtype,
              std::optional<Device> device) {
  check_device_available(or_cpu(device));
  return arange_impl(start, end, step, dtype, nullptr, or_cpu(device));
}
Tensor arange_out(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<ScalarType> dtype,
                  std::optional<Device>, const Tensor& out) {
  return arange_impl(start, end, step, dtype, &out);
}

// linspace / logspace's dtype: the default float dtype, its complex twin for a complex end.
static ScalarType range_dtype(const Scalar& start, const Scalar& end, std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  return start.is_complex() || end.is_complex() ? to_complex_type(default_dtype()) : default_dtype();
}

static Tensor linspace_impl(const Scalar& start, const Scalar& end, int64_t steps, ScalarType dt, const Tensor* out,
                            double base, bool log, Device device = cpu_device()) {
  EMBER_CHECK(steps >= 0, "number of steps must be non-negative");
  Tensor t = out ? range_out(*out, steps) : empty({steps}, dt, device);
  dt = t.dtype();
  if (steps == 0) return t;
  if (dt == ScalarType::ComplexHalf) dtype_not_implemented(log ? "logspace_cpu" : "linspace_cpu", dt);
  if (is_complex(dt)) {
    // The real and imaginary parts are independent real linspaces (aten's complex step); logspace
    // raises base to each as exp(z log(base)).
    const ScalarType rt = to_real_type(dt);
    Tensor z = complex(
        linspace_impl(Scalar(start.to_double()), Scalar(end.to_double()), steps, rt, nullptr, 0, false, t.device()),
        linspace_impl(Scalar(start.imag()), Scalar(end.imag()), steps, rt, nullptr, 0, false, t.device()));
    // (a negative base has the principal log: log|b| + i pi)
    if (log) z = exp(mul(z, wrap_scalar(Scalar(std::log(std::complex<double>(base))))));
    copy_into(t, z);
    return t;
  }
  // One step is aten's fill_ of the start (raised to `base` for logspace).
  if (steps == 1) return fill_(t, log ? Scalar(std::pow(base, start.to_double())) : start);
  double s = start.to_double(), e = end.to_double();
  // aten's kernel reads both ends with its checked conversion to the dtype; integer dtypes
  // then compute from the converted ends (so -3 is 253 for uint8). Bool: the dispatch below raises.
  // logspace's integer kernel takes the difference in the dtype's own (C-promoted) arithmetic,
  // which wraps past int32/int64: logspace(-2**63, 3, 4, dtype=int64) steps downwards.
  double diff = 0;
  if (dt != ScalarType::Bool) {
    EMBER_DISPATCH_ALL(dt, "linspace_cpu", [&] {
      const scalar_t a = start.checked<scalar_t>(), b = end.checked<scalar_t>();
      if constexpr (std::is_integral_v<scalar_t>) {
        s = static_cast<double>(a);
        e = static_cast<double>(b);
        diff = log ? wrapped_difference(a, b) : e - s;
      }
    });
  }
  if (!is_integral(dt, false)) diff = e - s;
  Tensor w = contiguous_target(t);
  if (dt == ScalarType::Bool) dtype_not_implemented(log ? "logspace_cpu" : "linspace_cpu", dt);
  backend(w).fill.linspace(dt, w.raw(), steps, s, e, diff, base, log);
  if (!w.same(t)) copy_into(t, w);
  return t;
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, std::optional<ScalarType> dtype,
                std::optional<Device> device) {
  check_device_available(or_cpu(device));
  return linspace_impl(start, end, steps, range_dtype(start, end, dtype), nullptr, 0, false, or_cpu(device));
}
Tensor linspace_out(const Scalar& start, const Scalar& end, int64_t steps, std::optional<ScalarType>,
                    std::optional<Device>, const Tensor& out) {
  return linspace_impl(start, end, steps, out.dtype(), &out, 0, false);
}
Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base, std::optional<ScalarType> dtype,
                std::optional<Device> device) {
  check_device_available(or_cpu(device));
  return linspace_impl(start, end, steps, range_dtype(start, end, dtype), nullptr, base, true, or_cpu(device));
}
Tensor logspace_out(const Scalar& start, const Scalar& end, int64_t steps, double base, std::optional<ScalarType>,
                    std::optional<Device>, const Tensor& out) {
  return linspace_impl(start, end, steps, out.dtype(), &out, base, true);
}

static Tensor eye_fill(const Tensor& t, int64_t n, int64_t m) {
  zero_(t);
  backend(t).fill.eye(t.dtype(), t.raw(), n, m);
  return t;
}
Tensor eye(int64_t n, int64_t m, std::optional<ScalarType> dtype, std::optional<Device> device) {
  EMBER_CHECK(n >= 0, "n must be greater or equal to 0, got ", n);
  EMBER_CHECK(m >= 0, "m must be greater or equal to 0, got ", m);
  return eye_fill(alloc({n, m}, or_default(dtype), or_cpu(device)), n, m);
}
Tensor eye(int64_t n, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return eye(n, n, dtype, device);
}
Tensor eye_out(int64_t n, int64_t m, std::optional<ScalarType>, std::optional<Device>, const Tensor& out) {
  EMBER_CHECK(n >= 0, "n must be greater or equal to 0, got ", n);
  EMBER_CHECK(m >= 0, "m must be greater or equal to 0, got ", m);
  return eye_fill(resize_out(out, {n, m}, false), n, m);
}
Tensor eye_out(int64_t n, std::optional<ScalarType> dtype, std::optional<Device> device, const Tensor& out) {
  return eye_out(n, n, dtype, device, out);
}

}  // namespace ember
