// A Python number crossing into C++: bool, int or float, kept exact until an
// op decides the dtype it computes in. A Python int in [2**63, 2**64) is an Int
// flagged unsigned (PyTorch's uint64 Scalar): exact as a float, and refused by
// the checked conversions to an integer type (fill_, alpha, clamp, full, ...).
#pragma once
#include <cstdint>
#include <type_traits>

#include "scalar_type.h"

namespace ember {

class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Float };
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
  Kind kind() const { return kind_; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_int() const { return kind_ == Kind::Int; }
  bool is_uint64() const { return unsigned_; }  // an int above INT64_MAX
  bool is_float() const { return kind_ == Kind::Float; }
  bool is_integral(bool include_bool) const {
    return kind_ == Kind::Int || (include_bool && kind_ == Kind::Bool);
  }
  // The dtype a Python number of this kind gets when it is wrapped as a tensor. ember has
  // no uint64: a uint64 number wraps as float64, exact for the float tensors it meets.
  ScalarType type() const {
    return kind_ == Kind::Bool ? ScalarType::Bool
           : kind_ == Kind::Int && !unsigned_ ? ScalarType::Int64
                                              : ScalarType::Float64;
  }
  double to_double() const {
    if (kind_ == Kind::Float) return d_;
    return unsigned_ ? static_cast<double>(static_cast<uint64_t>(i_)) : static_cast<double>(i_);
  }
  int64_t to_int() const {
    if (unsigned_) overflow("int64_t");
    return kind_ == Kind::Float ? static_cast<int64_t>(d_) : i_;
  }
  int64_t int_bits() const { return i_; }  // an Int's value modulo 2^64, uint64 ones included
  bool to_bool() const { return kind_ == Kind::Float ? d_ != 0 : i_ != 0; }
  template <class T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>) {
      return to_bool();
    } else if constexpr (std::is_integral_v<T>) {
      if (unsigned_) overflow(sizeof(T) == 8 ? "int64_t" : sizeof(T) == 4 ? "int" : sizeof(T) == 2 ? "int16_t"
                              : std::is_signed_v<T> ? "int8_t" : "uint8_t");
      // Wrap like a C cast from int64, which is how PyTorch writes 300 into uint8.
      return kind_ == Kind::Float ? static_cast<T>(static_cast<int64_t>(d_)) : static_cast<T>(i_);
    } else {
      return static_cast<T>(static_cast<opmath_t<T>>(to_double()));
    }
  }
  bool equal(double v) const { return to_double() == v; }

 private:
  [[noreturn]] static void overflow(const char* type) {
    fail(ErrorKind::Runtime, "value cannot be converted to type ", type, " without overflow");
  }
  Kind kind_;
  bool unsigned_ = false;
  union {
    int64_t i_;
    double d_;
  };
};

}  // namespace ember
