// dtypes: the enum, its names, sizes, categories and the promotion lattice,
// plus the dispatch macro that turns a runtime dtype into a C++ type.
#pragma once
#include <complex>
#include <cstdint>
#include <string>

#include "complex_half.h"
#include "error.h"
#include "half.h"

namespace ember {

enum class ScalarType : int8_t {
  Bool = 0,
  UInt8,
  Int8,
  Int16,
  Int32,
  Int64,
  Float16,
  BFloat16,
  Float32,
  Float64,
  ComplexFloat,   // std::complex<float>, torch.complex64
  ComplexDouble,  // std::complex<double>, torch.complex128
  // PyTorch's "shell" unsigned dtypes: a few kernels only (copy/cast, fill, mul, bitwise,
  // eq/ne, cat, indexing, sort); every other dispatch raises "<kernel>" not implemented
  UInt16,
  UInt32,
  UInt64,
  // complex32 (c10's ComplexHalf): creation, casts, views, printing and the few kernels PyTorch
  // has for it on the CPU (add, sub, mul, neg, eq, ne, where, ...); every other dispatch raises
  ComplexHalf,
  Undefined,
};
constexpr int kNumScalarTypes = static_cast<int>(ScalarType::Undefined);

size_t element_size(ScalarType t);
const char* dtype_name(ScalarType t);   // "float32"
const char* legacy_name(ScalarType t);  // "Float" (used in PyTorch's messages)
const char* c_type_name(ScalarType t);  // "float" ("long int" etc. for matmul messages)

inline bool is_floating(ScalarType t) {
  return t == ScalarType::Float16 || t == ScalarType::BFloat16 || t == ScalarType::Float32 || t == ScalarType::Float64;
}
inline bool is_complex(ScalarType t) {
  return t == ScalarType::ComplexFloat || t == ScalarType::ComplexDouble || t == ScalarType::ComplexHalf;
}
// float or complex: the dtypes PyTorch calls "floating or complex" (a float result stays)
inline bool is_floating_or_complex(ScalarType t) { return is_floating(t) || is_complex(t); }
// complex32 <-> float16, complex64 <-> float32, complex128 <-> float64 (torch.dtype.to_real / to_complex)
ScalarType to_real_type(ScalarType t);
ScalarType to_complex_type(ScalarType t);
// uint16 / uint32 / uint64 (c10's isBarebonesUnsignedType): they promote with nothing but floats
inline bool is_shell_unsigned(ScalarType t) { return t >= ScalarType::UInt16 && t <= ScalarType::UInt64; }
inline bool is_integral(ScalarType t, bool include_bool) {
  return (include_bool && t == ScalarType::Bool) || (t >= ScalarType::UInt8 && t <= ScalarType::Int64) ||
         is_shell_unsigned(t);
}
inline bool is_signed(ScalarType t) { return t != ScalarType::Bool && t != ScalarType::UInt8 && !is_shell_unsigned(t); }

ScalarType promote_types(ScalarType a, ScalarType b);
// Can a value of `from` be written into storage of `to` by an in-place op?
bool can_cast(ScalarType from, ScalarType to);

// The process-wide default float dtype (get/set_default_dtype).
ScalarType default_dtype();
void set_default_dtype(ScalarType t);

template <class T>
inline constexpr bool is_complex_v = false;
template <class T>
inline constexpr bool is_complex_v<std::complex<T>> = true;
template <>
inline constexpr bool is_complex_v<ComplexHalf> = true;

template <class T>
struct OpMath {
  using type = T;
};
template <>
struct OpMath<Half> {
  using type = float;
};
template <>
struct OpMath<BFloat16> {
  using type = float;
};
template <>
struct OpMath<ComplexHalf> {
  using type = std::complex<float>;
};
template <class T>
struct OpMath<std::complex<T>> {
  using type = std::complex<T>;
};
template <class T>
using opmath_t = typename OpMath<T>::type;

template <class T>
struct TypeOf;
#define EMBER_TYPE_OF(T, E)                            \
  template <>                                          \
  struct TypeOf<T> {                                   \
    static constexpr ScalarType value = ScalarType::E; \
  };
EMBER_TYPE_OF(bool, Bool)
EMBER_TYPE_OF(uint8_t, UInt8)
EMBER_TYPE_OF(int8_t, Int8)
EMBER_TYPE_OF(int16_t, Int16)
EMBER_TYPE_OF(int32_t, Int32)
EMBER_TYPE_OF(int64_t, Int64)
EMBER_TYPE_OF(Half, Float16)
EMBER_TYPE_OF(BFloat16, BFloat16)
EMBER_TYPE_OF(float, Float32)
EMBER_TYPE_OF(double, Float64)
EMBER_TYPE_OF(std::complex<float>, ComplexFloat)
EMBER_TYPE_OF(std::complex<double>, ComplexDouble)
EMBER_TYPE_OF(uint16_t, UInt16)
EMBER_TYPE_OF(uint32_t, UInt32)
EMBER_TYPE_OF(uint64_t, UInt64)
EMBER_TYPE_OF(ComplexHalf, ComplexHalf)
#undef EMBER_TYPE_OF

[[noreturn]] void dtype_not_implemented(const char* kernel, ScalarType t);

}  // namespace ember

#define EMBER_CASE(E, T, ...)    \
  case ::ember::ScalarType::E: { \
    using scalar_t = T;          \
    return __VA_ARGS__();        \
  }
#define EMBER_CASES_INT(...)              \
  EMBER_CASE(UInt8, uint8_t, __VA_ARGS__) \
  EMBER_CASE(Int8, int8_t, __VA_ARGS__)   \
  EMBER_CASE(Int16, int16_t, __VA_ARGS__) \
  EMBER_CASE(Int32, int32_t, __VA_ARGS__) \
  EMBER_CASE(Int64, int64_t, __VA_ARGS__)
#define EMBER_CASES_FLOAT(...)                         \
  EMBER_CASE(Float16, ::ember::Half, __VA_ARGS__)      \
  EMBER_CASE(BFloat16, ::ember::BFloat16, __VA_ARGS__) \
  EMBER_CASE(Float32, float, __VA_ARGS__)              \
  EMBER_CASE(Float64, double, __VA_ARGS__)
// The shell unsigned dtypes: only the kernels PyTorch has for them list these.
#define EMBER_CASES_UINT(...)               \
  EMBER_CASE(UInt16, uint16_t, __VA_ARGS__) \
  EMBER_CASE(UInt32, uint32_t, __VA_ARGS__) \
  EMBER_CASE(UInt64, uint64_t, __VA_ARGS__)
#define EMBER_CASES_COMPLEX(...)                             \
  EMBER_CASE(ComplexFloat, std::complex<float>, __VA_ARGS__) \
  EMBER_CASE(ComplexDouble, std::complex<double>, __VA_ARGS__)

// Dispatch a lambda over a dtype set; `scalar_t` names the C++ type inside it.
#define EMBER_DISPATCH_ALL(TYPE, NAME, ...)         \
  [&] {                                             \
    switch (TYPE) {                                 \
      EMBER_CASE(Bool, bool, __VA_ARGS__)           \
      EMBER_CASES_INT(__VA_ARGS__)                  \
      EMBER_CASES_FLOAT(__VA_ARGS__)                \
      default:                                      \
        ::ember::dtype_not_implemented(NAME, TYPE); \
    }                                               \
  }()
#define EMBER_DISPATCH_NO_BOOL(TYPE, NAME, ...)     \
  [&] {                                             \
    switch (TYPE) {                                 \
      EMBER_CASES_INT(__VA_ARGS__)                  \
      EMBER_CASES_FLOAT(__VA_ARGS__)                \
      default:                                      \
        ::ember::dtype_not_implemented(NAME, TYPE); \
    }                                               \
  }()
#define EMBER_DISPATCH_FLOAT(TYPE, NAME, ...)       \
  [&] {                                             \
    switch (TYPE) {                                 \
      EMBER_CASES_FLOAT(__VA_ARGS__)                \
      default:                                      \
        ::ember::dtype_not_implemented(NAME, TYPE); \
    }                                               \
  }()
#define EMBER_DISPATCH_INT_BOOL(TYPE, NAME, ...)    \
  [&] {                                             \
    switch (TYPE) {                                 \
      EMBER_CASE(Bool, bool, __VA_ARGS__)           \
      EMBER_CASES_INT(__VA_ARGS__)                  \
      default:                                      \
        ::ember::dtype_not_implemented(NAME, TYPE); \
    }                                               \
  }()
#define EMBER_DISPATCH_INT(TYPE, NAME, ...)         \
  [&] {                                             \
    switch (TYPE) {                                 \
      EMBER_CASES_INT(__VA_ARGS__)                  \
      default:                                      \
        ::ember::dtype_not_implemented(NAME, TYPE); \
    }                                               \
  }()
// The same sets with the complex dtypes too (the sets above leave them out, so a kernel
// that never met complex raises PyTorch's "\"op\" not implemented for 'ComplexFloat'").
#define EMBER_DISPATCH_ALL_AND_COMPLEX(TYPE, NAME, ...) \
  [&] {                                                 \
    switch (TYPE) {                                     \
      EMBER_CASE(Bool, bool, __VA_ARGS__)               \
      EMBER_CASES_INT(__VA_ARGS__)                      \
      EMBER_CASES_FLOAT(__VA_ARGS__)                    \
      EMBER_CASES_COMPLEX(__VA_ARGS__)                  \
      default:                                          \
        ::ember::dtype_not_implemented(NAME, TYPE);     \
    }                                                   \
  }()
#define EMBER_DISPATCH_COMPLEX(TYPE, NAME, ...)     \
  [&] {                                             \
    switch (TYPE) {                                 \
      EMBER_CASES_COMPLEX(__VA_ARGS__)              \
      default:                                      \
        ::ember::dtype_not_implemented(NAME, TYPE); \
    }                                               \
  }()
// The sets above plus uint16 / uint32 / uint64, for the few kernels PyTorch runs on them.
#define EMBER_DISPATCH_ALL_AND_UINT(TYPE, NAME, ...) \
  [&] {                                              \
    switch (TYPE) {                                  \
      EMBER_CASE(Bool, bool, __VA_ARGS__)            \
      EMBER_CASES_INT(__VA_ARGS__)                   \
      EMBER_CASES_UINT(__VA_ARGS__)                  \
      EMBER_CASES_FLOAT(__VA_ARGS__)                 \
      default:                                       \
        ::ember::dtype_not_implemented(NAME, TYPE);  \
    }                                                \
  }()
#define EMBER_DISPATCH_NO_BOOL_AND_UINT(TYPE, NAME, ...) \
  [&] {                                                  \
    switch (TYPE) {                                      \
      EMBER_CASES_INT(__VA_ARGS__)                       \
      EMBER_CASES_UINT(__VA_ARGS__)                      \
      EMBER_CASES_FLOAT(__VA_ARGS__)                     \
      default:                                           \
        ::ember::dtype_not_implemented(NAME, TYPE);      \
    }                                                    \
  }()
#define EMBER_DISPATCH_INT_BOOL_AND_UINT(TYPE, NAME, ...) \
  [&] {                                                   \
    switch (TYPE) {                                       \
      EMBER_CASE(Bool, bool, __VA_ARGS__)                 \
      EMBER_CASES_INT(__VA_ARGS__)                        \
      EMBER_CASES_UINT(__VA_ARGS__)                       \
      default:                                            \
        ::ember::dtype_not_implemented(NAME, TYPE);       \
    }                                                     \
  }()
#define EMBER_DISPATCH_ALL_COMPLEX_AND_UINT(TYPE, NAME, ...) \
  [&] {                                                      \
    switch (TYPE) {                                          \
      EMBER_CASE(Bool, bool, __VA_ARGS__)                    \
      EMBER_CASES_INT(__VA_ARGS__)                           \
      EMBER_CASES_UINT(__VA_ARGS__)                          \
      EMBER_CASES_FLOAT(__VA_ARGS__)                         \
      EMBER_CASES_COMPLEX(__VA_ARGS__)                       \
      default:                                               \
        ::ember::dtype_not_implemented(NAME, TYPE);          \
    }                                                        \
  }()
// Every dtype ember has, complex32 included: the kernels PyTorch runs on complex32 too (copy and
// cast, fill, where, a number's conversion); the sets above leave complex32 out.
#define EMBER_DISPATCH_EVERY_TYPE(TYPE, NAME, ...)               \
  [&] {                                                          \
    switch (TYPE) {                                              \
      EMBER_CASE(Bool, bool, __VA_ARGS__)                        \
      EMBER_CASES_INT(__VA_ARGS__)                               \
      EMBER_CASES_UINT(__VA_ARGS__)                              \
      EMBER_CASES_FLOAT(__VA_ARGS__)                             \
      EMBER_CASES_COMPLEX(__VA_ARGS__)                           \
      EMBER_CASE(ComplexHalf, ::ember::ComplexHalf, __VA_ARGS__) \
      default:                                                   \
        ::ember::dtype_not_implemented(NAME, TYPE);              \
    }                                                            \
  }()
