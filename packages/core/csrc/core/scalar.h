// A Python number crossing into C++: bool, int, float or complex, kept exact until an
// op decides the dtype it computes in. A Python int in [2**63, 2**64) is an Int
// flagged unsigned (PyTorch's uint64 Scalar): exact as a float, and refused by
// the checked conversions to an integer type (fill_, alpha, clamp, full, ...).
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "scalar_type.h"

namespace ember {

class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Float, Complex };
  Scalar() : kind_(Kind::Int), i_(0) {}
  static Scalar from_uint64(uint64_t v) {
    Scalar s(static_cast<int64_t>(v));
    s.unsigned_ = v > static_cast<uint64_t>(INT64_MAX);
    return s;
  }
  Scalar(bool v) : kind_(Kind::Bool), i_(v) {}
  Scalar(int v) : kind_(Kind::Int), i_(v) {}
  Scalar(int64_t v) : kind_(Kind::Int), i_(v) {}
  Scalar(double v) : kind_(Kind::Float), d_(v) {}
  template <class T>
  Scalar(std::complex<T> v)
      : kind_(Kind::Complex), d_(static_cast<double>(v.real())), im_(static_cast<double>(v.imag())) {}
  Scalar(ComplexHalf v) : Scalar(std::complex<float>(v)) {}
  Kind kind() const { return kind_; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_int() const { return kind_ == Kind::Int; }
  bool is_uint64() const { return unsigned_; }  // an int above INT64_MAX
  bool is_float() const { return kind_ == Kind::Float; }
  bool is_complex() const { return kind_ == Kind::Complex; }
  double imag() const { return im_; }
  bool is_integral(bool include_bool) const { return kind_ == Kind::Int || (include_bool && kind_ == Kind::Bool); }
  // The dtype a Python number of this kind gets when it is wrapped as a tensor. ember has
  // no uint64: a uint64 number wraps as float64, exact for the float tensors it meets.
  ScalarType type() const {
    return kind_ == Kind::Bool                ? ScalarType::Bool
           : kind_ == Kind::Int && !unsigned_ ? ScalarType::Int64
           : kind_ == Kind::Complex           ? ScalarType::ComplexDouble
                                              : ScalarType::Float64;
  }
  // A complex value's real part (the imaginary part is dropped, as a C++ cast does).
  double to_double() const {
    if (kind_ == Kind::Float || kind_ == Kind::Complex) return d_;
    return unsigned_ ? static_cast<double>(static_cast<uint64_t>(i_)) : static_cast<double>(i_);
  }
  int64_t to_int() const {
    if (unsigned_) overflow("int64_t");
    return kind_ == Kind::Float || kind_ == Kind::Complex ? static_cast<int64_t>(d_) : i_;
  }
  int64_t int_bits() const { return i_; }  // an Int's value modulo 2^64, uint64 ones included
  bool to_bool() const {
    return kind_ == Kind::Complex ? d_ != 0 || im_ != 0 : kind_ == Kind::Float ? d_ != 0 : i_ != 0;
  }
  template <class T>
  T to() const {
    if constexpr (is_complex_v<T>) {
      using R = typename T::value_type;
      return T(static_cast<R>(to_double()), static_cast<R>(im_));
    } else if constexpr (std::is_same_v<T, bool>) {
      return to_bool();
    } else if constexpr (std::is_integral_v<T>) {
      if (unsigned_ && !std::is_same_v<T, uint64_t>)  // a value past INT64_MAX fits uint64 only
        overflow(sizeof(T) == 8        ? "int64_t"
                 : sizeof(T) == 4      ? "int"
                 : sizeof(T) == 2      ? "int16_t"
                 : std::is_signed_v<T> ? "int8_t"
                                       : "uint8_t");
      // Wrap like a C cast from int64, which is how PyTorch writes 300 into uint8.
      return kind_ == Kind::Float || kind_ == Kind::Complex ? static_cast<T>(static_cast<int64_t>(d_))
                                                            : static_cast<T>(i_);
    } else {
      return static_cast<T>(static_cast<opmath_t<T>>(to_double()));
    }
  }
  // PyTorch's checked conversion (c10::checked_convert, how its kernels read a Scalar argument):
  // the value must lie in T's range -- a float type also takes inf and NaN, an unsigned one
  // negative ints down to -max (they wrap) -- or it is the overflow RuntimeError.
  template <class T>
  T checked() const;
  template <class T>
  T checked_real() const;
  bool equal(double v) const { return to_double() == v; }

 private:
  [[noreturn]] static void overflow(const char* type) {
    fail(ErrorKind::Runtime, "value cannot be converted to type ", type, " without overflow");
  }
  Kind kind_;
  bool unsigned_ = false;
  union {
    int64_t i_;
    double d_;  // a Complex's real part
  };
  double im_ = 0;  // a Complex's imaginary part
};

namespace scalar_detail {
template <class T>
constexpr const char* c10_name() {
  if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_same_v<T, uint8_t>) return "uint8_t";
  else if constexpr (std::is_same_v<T, int8_t>) return "int8_t";
  else if constexpr (std::is_same_v<T, int16_t>) return "int16_t";
  else if constexpr (std::is_same_v<T, int32_t>) return "int";
  else if constexpr (std::is_same_v<T, int64_t>) return "int64_t";
  else if constexpr (std::is_same_v<T, uint16_t>) return "uint16_t";
  else if constexpr (std::is_same_v<T, uint32_t>) return "uint32_t";
  else if constexpr (std::is_same_v<T, uint64_t>) return "uint64_t";
  else if constexpr (std::is_same_v<T, Half>) return "c10::Half";
  else if constexpr (std::is_same_v<T, BFloat16>) return "c10::BFloat16";
  else if constexpr (std::is_same_v<T, float>) return "float";
  else return "double";
}
// The largest finite value of a float type (Half and BFloat16 have no std::numeric_limits).
template <class T>
constexpr double float_max() {
  if constexpr (std::is_same_v<T, Half>) return 65504.0;
  else if constexpr (std::is_same_v<T, BFloat16>) return 3.3895313892515355e38;
  else return static_cast<double>(std::numeric_limits<T>::max());
}
}  // namespace scalar_detail

template <class T>
T Scalar::checked() const {
  if (kind_ == Kind::Bool) return to<T>();
  if constexpr (is_complex_v<T>) {
    return to<T>();
  } else {
    // c10's checked_convert: a complex value goes into a real type only without its imaginary part
    if (kind_ == Kind::Complex && im_ != 0) overflow(scalar_detail::c10_name<T>());
    return checked_real<T>();
  }
}

template <class T>
T Scalar::checked_real() const {
  if constexpr (std::is_same_v<T, bool>) {
    return to_bool();  // c10's toBool() is a truth test (add(bool, bool, alpha=2) is fine)
  } else if constexpr (std::is_integral_v<T>) {
    constexpr bool is_unsigned = !std::is_signed_v<T>;
    constexpr double lo = static_cast<double>(std::numeric_limits<T>::lowest());
    constexpr double hi = static_cast<double>(std::numeric_limits<T>::max());
    if (kind_ == Kind::Float || kind_ == Kind::Complex) {
      // c10 compares against max() as a double: 2^63 passes for int64, and the x86 conversion
      // of that value (the "integer indefinite") is INT64_MIN, which is what PyTorch stores.
      if (!(d_ >= lo && d_ <= hi)) overflow(scalar_detail::c10_name<T>());
      if constexpr (std::is_same_v<T, int64_t>)
        if (d_ >= 0x1p63) return std::numeric_limits<int64_t>::min();
      if constexpr (std::is_same_v<T, uint64_t>)
        if (d_ >= 0x1p64) return 0;  // 2^64 passes the same compare; x86's two-step conversion gives 0
      return static_cast<T>(d_);
    }
    if (unsigned_) {
      if constexpr (std::is_same_v<T, uint64_t>) return static_cast<T>(i_);  // the bits of a value >= 2^63
      overflow(scalar_detail::c10_name<T>());
    }
    const bool fits = is_unsigned ? (i_ >= 0 ? static_cast<double>(i_) <= hi
                                             : -static_cast<uint64_t>(i_) <= static_cast<uint64_t>(hi))
                                  : static_cast<double>(i_) >= lo && static_cast<double>(i_) <= hi;
    if (!fits) overflow(scalar_detail::c10_name<T>());
    return static_cast<T>(i_);
  } else {
    const double d = to_double();
    constexpr double mx = scalar_detail::float_max<T>();
    if (!std::isinf(d) && !std::isnan(d) && (d < -mx || d > mx)) overflow(scalar_detail::c10_name<T>());
    return static_cast<T>(static_cast<opmath_t<T>>(d));
  }
}

}  // namespace ember
