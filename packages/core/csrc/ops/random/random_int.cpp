// Integer samplers: random_ in its three forms (PyTorch's per-dtype ranges,
// bounds checks and warnings) and randperm. Streams follow Note [RNG streams].
#include <algorithm>
#include <limits>
#include <memory>

#include "kernels/backend.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"
#include "ops/random/random.h"
#include "ops/random/random_internal.h"

namespace ember {

using namespace rng;

namespace {

// static_cast<int64_t>(static_cast<T>(v)) as PyTorch's (x86) build computes it.
template <class T>
int64_t round_trip(int64_t v) {
  if constexpr (std::is_same_v<T, double>) return to_int64_x86(static_cast<double>(v));
  else if constexpr (std::is_same_v<T, float>) return to_int64_x86(static_cast<float>(v));
  else return to_int64_x86(static_cast<float>(T(static_cast<float>(v))));
}

inline int bit_length_minus_1(uint64_t v) {
  int n = 0;
  while (v >>= 1) ++n;
  return n;
}
inline uint64_t uabs(int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); }
inline int64_t pow2(int e) { return e >= 0 && e < 63 ? int64_t(1) << e : 0; }

// PyTorch's update_from / update_to: a bound that T cannot hold is moved
// inside the range T represents exactly.
template <class T>
int64_t update_from(int64_t from) {
  const int64_t from_plus_1 = round_trip<T>(from + 1);
  if (from_plus_1 < from) {
    int n = bit_length_minus_1(uabs(from + 1));
    from = from_plus_1 + pow2(n - mantissa_digits<T>() + 1);
  }
  return from;
}
template <class T>
int64_t update_to(int64_t to) {
  const int64_t to_minus_1 = round_trip<T>(to - 1);
  if (to_minus_1 >= to) {
    int n = bit_length_minus_1(uabs(to - 1));
    to = to_minus_1 - pow2(n - mantissa_digits<T>() + 1);
  }
  return to;
}

void check_from_to_in_range(int64_t from, int64_t to_inc, ScalarType dt) {
  EMBER_CHECK(!is_complex(dt), "check_random_bounds handles only integral, floating-point and boolean types");
  const char* name = c_type_name(dt);
  if (is_floating(dt)) {
    EMBER_DISPATCH_FLOAT(dt, "check_random_fp_bounds", [&] {
      const double hi = float_max<scalar_t>(), lo = -hi;
      EMBER_CHECK(double(from) >= lo && double(from) <= hi, "from is out of bounds for ", name);
      EMBER_CHECK(double(to_inc) >= lo && double(to_inc) <= hi, "to - 1 is out of bounds for ", name);
      constexpr int digits = mantissa_digits<scalar_t>();
      constexpr int64_t lim = int64_t(1) << digits;
      auto warn_if = [&](int64_t v, const char* what) {
        if (v < -lim || v > lim)
          warn(str(what, " is out of bounds [-(2^", digits, "), 2^", digits,
                   "]. Due to precision "
                   "limitations ",
                   name,
                   " can support discrete uniform distribution only within this "
                   "range. This warning will become an error in version 1.7 release, please fix the "
                   "code in advance"));
      };
      warn_if(from, "from");
      warn_if(to_inc, "to - 1");
    });
    return;
  }
  int64_t lo = 0, hi = 1;
  if (dt != ScalarType::Bool) {
    EMBER_DISPATCH_INT_BOOL_AND_UINT(dt, "check_random_integral_bounds", [&] {
      lo = static_cast<int64_t>(std::numeric_limits<scalar_t>::lowest());
      hi = static_cast<int64_t>(std::min<uint64_t>(std::numeric_limits<scalar_t>::max(), INT64_MAX));
    });
  }
  EMBER_CHECK(from >= lo && from <= hi, "from is out of bounds for ", name);
  EMBER_CHECK(to_inc >= lo && to_inc <= hi, "to - 1 is out of bounds for ", name);
}

}  // namespace

Tensor random_(const Tensor& self, Generator* gen) {
  check_inplace(self, "random_");
  if (self.numel() == 0) return self;
  check_no_internal_overlap(self);
  EMBER_DISPATCH_ALL(self.dtype(), "random_kernel_cpu", [] {});
  fill_in_order(self, [&](char* p, int64_t n) { backend(self).random.random_bits(self.dtype(), p, n, gen); });
  self.bump_version();
  return self;
}

Tensor random_(const Tensor& self, int64_t from, std::optional<int64_t> to_opt, Generator* gen) {
  check_inplace(self, "random_");
  const ScalarType dt = self.dtype();
  uint64_t range = 0;
  bool full = false;
  if (to_opt) {
    int64_t to = *to_opt;
    EMBER_CHECK(from < to, "random_ expects 'from' to be less than 'to', but got from=", from, " >= to=", to);
    if (is_floating(dt)) {
      EMBER_DISPATCH_FLOAT(dt, "random_update_from_to", [&] {
        from = update_from<scalar_t>(from);
        to = update_to<scalar_t>(to);
      });
      EMBER_CHECK(from < to,
                  "random_ expects 'from' casted to dtype to be less than 'to' casted to "
                  "dtype, but got from=",
                  from, " >= to=", to);
    }
    check_from_to_in_range(from, to - 1, dt);
    range = static_cast<uint64_t>(to) - static_cast<uint64_t>(from);
  } else if (from != std::numeric_limits<int64_t>::lowest()) {
    int64_t to_inc = 1;
    if (is_floating(dt)) {
      EMBER_DISPATCH_FLOAT(dt, "random_from_to_range_calc", [&] {
        to_inc = int64_t(1) << mantissa_digits<scalar_t>();
        from = update_from<scalar_t>(from);
      });
      EMBER_CHECK(from < to_inc,
                  "random_ expects 'from' casted to dtype to be less than or equal to "
                  "'to_inc' casted to dtype, but got from=",
                  from, " > to_inc=", to_inc);
    } else if (dt != ScalarType::Bool) {
      EMBER_DISPATCH_INT_BOOL_AND_UINT(dt, "random_from_to_range_calc", [&] {
        to_inc = static_cast<int64_t>(std::min<uint64_t>(std::numeric_limits<scalar_t>::max(), INT64_MAX));
      });
    }
    check_from_to_in_range(from, to_inc, dt);
    range = static_cast<uint64_t>(to_inc) - static_cast<uint64_t>(from) + 1;
  } else {
    full = true;
  }
  if (self.numel() == 0) return self;
  check_no_internal_overlap(self);
  if (full) {
    // Every int64: only dtypes that can hold (most of) them, as in PyTorch.
    EMBER_CHECK_NOTIMPL(dt != ScalarType::Bool && dt != ScalarType::Float16,
                        "\"random_full_64_bits_range_kernel_cpu\" not implemented for '", legacy_name(dt), "'");
    EMBER_CHECK(
        dt == ScalarType::Int64 || dt == ScalarType::Float64 || dt == ScalarType::Float32 || dt == ScalarType::BFloat16,
        "random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16");
  }
  EMBER_DISPATCH_ALL_AND_UINT(dt, "random_from_to_kernel_cpu", [] {});
  const RandomKernels& rk = backend(self).random;
  fill_in_order(self, [&](char* p, int64_t n) {
    if (full) rk.random_full64(dt, p, n, gen);
    else rk.random_range(dt, p, n, range, from, gen);
  });
  self.bump_version();
  return self;
}

// ---- randperm ----------------------------------------------------------------

namespace {

// PyTorch's checks that every value 0..n-1 is exactly representable.
void check_randperm_n(int64_t n, ScalarType dt) {
  const int64_t top = n > 0 ? n - 1 : n;
  const char* cname = nullptr;
  int64_t hi = std::numeric_limits<int64_t>::max();
  switch (dt) {
    case ScalarType::UInt8:
      cname = "uint8_t";
      hi = 255;
      break;
    case ScalarType::Int8:
      cname = "int8_t";
      hi = 127;
      break;
    case ScalarType::Int16:
      cname = "int16_t";
      hi = 32767;
      break;
    case ScalarType::Int32:
      cname = "int";
      hi = 2147483647;
      break;
    default:
      break;
  }
  EMBER_CHECK(top <= hi, "value cannot be converted to type ", cname, " without overflow");
  if (dt == ScalarType::Float16)
    EMBER_CHECK(n <= (int64_t(1) << 11) + 1, "n cannot be greater than 2049 for Half type.");
  if (dt == ScalarType::Float32)
    EMBER_CHECK(n <= (int64_t(1) << 24) + 1, "n cannot be greater than 2^24+1 for Float type.");
  if (dt == ScalarType::Float64)
    EMBER_CHECK(n <= (int64_t(1) << 53) + 1, "n cannot be greater than 2^53+1 for Double type.");
}

}  // namespace

Tensor randperm(int64_t n, ScalarType dtype, Device device, Generator* gen, const Tensor* out) {
  Tensor result;
  if (out) {
    EMBER_CHECK(n >= 0, "n must be non-negative, got", n);
    result = *out;
  } else {
    result = empty({n}, dtype, device);  // a negative n fails here, with empty's message
  }
  const ScalarType dt = result.dtype();
  check_randperm_n(n, dt);
  resize_out(result, {n}, false);
  EMBER_DISPATCH_NO_BOOL(dt, "randperm", [] {});
  fill_in_order(result, [&](char* p, int64_t cnt) { backend(result).random.randperm(dt, p, cnt, gen); });
  if (out) result.bump_version();
  return result;
}

}  // namespace ember
