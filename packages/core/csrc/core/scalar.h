// A Python number crossing into C++: bool, int or float, kept exact until an
// op decides the dtype it computes in.
#pragma once
#include <cstdint>
#include <type_traits>

#include "scalar_type.h"

namespace ember {

class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Float };
  Scalar() : kind_(Kind::Int), i_(0) {}
  Scalar(bool v) : kind_(Kind::Bool), i_(v) {}
  Scalar(int v) : kind_(Kind::Int), i_(v) {}
  Scalar(int64_t v) : kind_(Kind::Int), i_(v) {}
  Scalar(double v) : kind_(Kind::Float), d_(v) {}
  Kind kind() const { return kind_; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_int() const { return kind_ == Kind::Int; }
  bool is_float() const { return kind_ == Kind::Float; }
  bool is_integral(bool include_bool) const {
    return kind_ == Kind::Int || (include_bool && kind_ == Kind::Bool);
  }
  // The dtype a Python number of this kind gets when it is wrapped as a tensor.
  ScalarType type() const {
    return kind_ == Kind::Bool ? ScalarType::Bool
           : kind_ == Kind::Int ? ScalarType::Int64
                                : ScalarType::Float64;
  }
  double to_double() const { return kind_ == Kind::Float ? d_ : static_cast<double>(i_); }
  int64_t to_int() const { return kind_ == Kind::Float ? static_cast<int64_t>(d_) : i_; }
  bool to_bool() const { return kind_ == Kind::Float ? d_ != 0 : i_ != 0; }
  template <class T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>) {
      return to_bool();
    } else if constexpr (std::is_integral_v<T>) {
      // Wrap like a C cast from int64, which is how PyTorch writes 300 into uint8.
      return kind_ == Kind::Float ? static_cast<T>(static_cast<int64_t>(d_)) : static_cast<T>(i_);
    } else {
      return static_cast<T>(static_cast<opmath_t<T>>(to_double()));
    }
  }
  bool equal(double v) const { return to_double() == v; }

 private:
  Kind kind_;
  union {
    int64_t i_;
    double d_;
  };
};

}  // namespace ember
