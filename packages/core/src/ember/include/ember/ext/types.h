// ember's public C++ API, part 1: the value types a Tensor is described with (dtype, device,
// options, int lists, scalars, errors). Header-only and free of the core's internal headers:
// everything the core does goes through the function table in abi.h.
#pragma once
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "abi.h"

// Hidden like pybind11's namespace: two extensions built against different minor versions of
// these headers never share (interpose) each other's inline symbols.
#define EMBER_EXT_NS ext __attribute__((visibility("hidden")))

namespace ember {
namespace EMBER_EXT_NS {

// ---- errors: TORCH_CHECK and friends; pybind11 turns them into Python exceptions ----
class Error : public std::runtime_error {  // c10::Error -> RuntimeError
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
  const char* what_without_backtrace() const noexcept { return what(); }
};
// IndexError / ValueError / TypeError: pybind11 maps these std types to them.
class IndexError : public std::out_of_range {
 public:
  explicit IndexError(const std::string& m) : std::out_of_range(m) {}
};
class ValueError : public std::invalid_argument {
 public:
  explicit ValueError(const std::string& m) : std::invalid_argument(m) {}
};
// TypeError is in tensor.h (it derives from pybind11::type_error).

namespace detail {
inline void cat_into(std::ostringstream&) {}
template <class T, class... R>
void cat_into(std::ostringstream& os, const T& v, const R&... r) {
  os << v;
  cat_into(os, r...);
}
template <class... A>
std::string str(const A&... a) {
  std::ostringstream os;
  cat_into(os, a...);
  return os.str();
}
// TORCH_CHECK(cond) with no message gets PyTorch's default text.
inline std::string check_msg(const char* cond) {
  return str("Expected ", cond, " to be true, but got false.  (Could this error message be improved?  "
             "If so, please report an enhancement request to ember.)");
}
template <class... A>
std::string check_msg(const char*, const A&... a) {
  return str(a...);
}
}  // namespace detail

// ---- dtypes: PyTorch's c10::ScalarType numbering ----
enum class ScalarType : int8_t {
  Byte = EMBER_EXT_UINT8,
  Char = EMBER_EXT_INT8,
  Short = EMBER_EXT_INT16,
  Int = EMBER_EXT_INT32,
  Long = EMBER_EXT_INT64,
  Half = EMBER_EXT_FLOAT16,
  Float = EMBER_EXT_FLOAT32,
  Double = EMBER_EXT_FLOAT64,
  Bool = EMBER_EXT_BOOL,
  BFloat16 = EMBER_EXT_BFLOAT16,
  Undefined = EMBER_EXT_UNDEFINED,
};
constexpr ScalarType kByte = ScalarType::Byte, kUInt8 = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char, kInt8 = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short, kInt16 = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int, kInt32 = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long, kInt64 = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half, kFloat16 = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float, kFloat32 = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double, kFloat64 = ScalarType::Double;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;

inline const char* toString(ScalarType t) {
  switch (t) {
    case kByte: return "Byte";
    case kChar: return "Char";
    case kShort: return "Short";
    case kInt: return "Int";
    case kLong: return "Long";
    case kHalf: return "Half";
    case kFloat: return "Float";
    case kDouble: return "Double";
    case kBool: return "Bool";
    case kBFloat16: return "BFloat16";
    default: return "Undefined";
  }
}
inline std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << toString(t); }
inline size_t elementSize(ScalarType t) {
  switch (t) {
    case kByte: case kChar: case kBool: return 1;
    case kShort: case kHalf: case kBFloat16: return 2;
    case kInt: case kFloat: return 4;
    default: return 8;
  }
}
inline bool isFloatingType(ScalarType t) { return t == kHalf || t == kFloat || t == kDouble || t == kBFloat16; }
inline bool isIntegralType(ScalarType t, bool include_bool) {
  return (include_bool && t == kBool) || t == kByte || t == kChar || t == kShort || t == kInt || t == kLong;
}

// 16-bit floats as storage types (arithmetic goes through float).
struct Half {
  uint16_t x = 0;
  Half() = default;
  Half(float f) {  // round to nearest even via the float bits (normal range; enough for I/O)
    uint32_t b;
    std::memcpy(&b, &f, 4);
    uint32_t sign = (b >> 16) & 0x8000u;
    int32_t exp = static_cast<int32_t>((b >> 23) & 0xff) - 127 + 15;
    uint32_t man = b & 0x7fffffu;
    if (exp <= 0) x = static_cast<uint16_t>(sign);
    else if (exp >= 31) x = static_cast<uint16_t>(sign | 0x7c00u | (((b >> 23) & 0xff) == 0xff && man ? 0x200u : 0u));
    else {
      uint32_t h = sign | (static_cast<uint32_t>(exp) << 10) | (man >> 13);
      uint32_t rest = man & 0x1fffu;
      if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
      x = static_cast<uint16_t>(h);
    }
  }
  operator float() const {
    uint32_t sign = (x & 0x8000u) << 16, exp = (x >> 10) & 0x1f, man = x & 0x3ffu, b;
    if (exp == 0) {
      float f = static_cast<float>(man) * (1.0f / 16777216.0f);
      return sign ? -f : f;
    }
    b = sign | ((exp == 31 ? 255 : exp - 15 + 127) << 23) | (man << 13);
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  }
};
struct BFloat16 {
  uint16_t x = 0;
  BFloat16() = default;
  BFloat16(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    x = static_cast<uint16_t>((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
  }
  operator float() const {
    uint32_t b = static_cast<uint32_t>(x) << 16;
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  }
};

template <class T>
struct CppTypeToScalarType;
#define EMBER_EXT_CPP_TYPE(T, st) \
  template <>                     \
  struct CppTypeToScalarType<T> { static constexpr ScalarType value = st; };
EMBER_EXT_CPP_TYPE(uint8_t, kByte)
EMBER_EXT_CPP_TYPE(int8_t, kChar)
EMBER_EXT_CPP_TYPE(int16_t, kShort)
EMBER_EXT_CPP_TYPE(int32_t, kInt)
EMBER_EXT_CPP_TYPE(int64_t, kLong)
EMBER_EXT_CPP_TYPE(float, kFloat)
EMBER_EXT_CPP_TYPE(double, kDouble)
EMBER_EXT_CPP_TYPE(bool, kBool)
EMBER_EXT_CPP_TYPE(Half, kHalf)
EMBER_EXT_CPP_TYPE(BFloat16, kBFloat16)
#undef EMBER_EXT_CPP_TYPE

// ---- devices ----
enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
using DeviceIndex = int8_t;

struct Device {
  DeviceType type_ = kCPU;
  DeviceIndex index_ = -1;
  Device(DeviceType t = kCPU, DeviceIndex i = -1) : type_(t), index_(i) {}
  explicit Device(const std::string& s) {  // "cpu", "cuda", "cuda:1"
    std::string kind = s.substr(0, s.find(':'));
    if (kind == "cuda") type_ = kCUDA;
    else if (kind != "cpu") throw Error("Expected one of cpu, cuda device type at start of device string: " + s);
    if (s.find(':') != std::string::npos) index_ = static_cast<DeviceIndex>(std::stoi(s.substr(s.find(':') + 1)));
  }
  DeviceType type() const { return type_; }
  DeviceIndex index() const { return index_; }
  bool has_index() const { return index_ >= 0; }
  bool is_cpu() const { return type_ == kCPU; }
  bool is_cuda() const { return type_ == kCUDA; }
  std::string str() const {
    std::string s = is_cpu() ? "cpu" : "cuda";
    return index_ >= 0 ? s + ":" + std::to_string(index_) : s;
  }
  bool operator==(const Device& o) const { return type_ == o.type_ && index_ == o.index_; }
  bool operator!=(const Device& o) const { return !(*this == o); }
};
inline std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

// ---- ArrayRef: a non-owning view of a contiguous list (c10::ArrayRef) ----
template <class T>
class ArrayRef {
 public:
  ArrayRef() = default;
  ArrayRef(const T* p, size_t n) : p_(p), n_(n) {}
  ArrayRef(const T& one) : p_(&one), n_(1) {}
  ArrayRef(const std::vector<T>& v) : p_(v.data()), n_(v.size()) {}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
  // Like c10::ArrayRef: valid for the full expression the braced list appears in.
  ArrayRef(std::initializer_list<T> il) : p_(il.begin()), n_(il.size()) {}
#pragma GCC diagnostic pop
  template <size_t N>
  ArrayRef(const T (&a)[N]) : p_(a), n_(N) {}
  const T* data() const { return p_; }
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  const T* begin() const { return p_; }
  const T* end() const { return p_ + n_; }
  const T& operator[](size_t i) const { return p_[i]; }
  const T& at(size_t i) const {
    if (i >= n_) throw IndexError(detail::str("ArrayRef: invalid index ", i, " for length ", n_));
    return p_[i];
  }
  const T& front() const { return p_[0]; }
  const T& back() const { return p_[n_ - 1]; }
  std::vector<T> vec() const { return std::vector<T>(p_, p_ + n_); }
  operator std::vector<T>() const { return vec(); }
  bool equals(ArrayRef o) const {
    if (n_ != o.n_) return false;
    for (size_t i = 0; i < n_; ++i)
      if (!(p_[i] == o.p_[i])) return false;
    return true;
  }

 private:
  const T* p_ = nullptr;
  size_t n_ = 0;
};
template <class T>
bool operator==(ArrayRef<T> a, ArrayRef<T> b) { return a.equals(b); }
template <class T>
bool operator!=(ArrayRef<T> a, ArrayRef<T> b) { return !a.equals(b); }
template <class T>
bool operator==(ArrayRef<T> a, const std::vector<T>& b) { return a.equals(b); }
template <class T>
bool operator!=(ArrayRef<T> a, const std::vector<T>& b) { return !a.equals(b); }
template <class T>
bool operator==(const std::vector<T>& a, ArrayRef<T> b) { return b.equals(a); }
template <class T>
std::ostream& operator<<(std::ostream& os, ArrayRef<T> a) {
  os << "[";
  for (size_t i = 0; i < a.size(); ++i) os << (i ? ", " : "") << a[i];
  return os << "]";
}
using IntArrayRef = ArrayRef<int64_t>;
using IntList = IntArrayRef;

template <class T>
using optional = std::optional<T>;
using std::nullopt;

// ---- Scalar: a number operand (double, int64 or bool) ----
class Scalar {
 public:
  Scalar() : Scalar(int64_t{0}) {}
  Scalar(double v) { s_.kind = 0, s_.f = v, s_.i = 0; }
  Scalar(float v) : Scalar(static_cast<double>(v)) {}
  Scalar(Half v) : Scalar(static_cast<double>(static_cast<float>(v))) {}
  Scalar(BFloat16 v) : Scalar(static_cast<double>(static_cast<float>(v))) {}
  template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  Scalar(I v) { s_.kind = 1, s_.i = static_cast<int64_t>(v), s_.f = static_cast<double>(v); }
  Scalar(bool v) { s_.kind = 2, s_.i = v, s_.f = v; }
  explicit Scalar(const EmberExtScalar& s) : s_(s) {}
  bool isFloatingPoint() const { return s_.kind == 0; }
  bool isIntegral(bool include_bool) const { return s_.kind == 1 || (include_bool && s_.kind == 2); }
  bool isBoolean() const { return s_.kind == 2; }
  double toDouble() const { return s_.kind == 0 ? s_.f : static_cast<double>(s_.i); }
  float toFloat() const { return static_cast<float>(toDouble()); }
  int64_t toLong() const { return s_.kind == 0 ? static_cast<int64_t>(s_.f) : s_.i; }
  int toInt() const { return static_cast<int>(toLong()); }
  bool toBool() const { return s_.kind == 0 ? s_.f != 0 : s_.i != 0; }
  template <class T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>) return toBool();
    else if constexpr (std::is_integral_v<T>) return static_cast<T>(toLong());
    else return static_cast<T>(static_cast<float>(toDouble()));
  }
  const EmberExtScalar& raw() const { return s_; }

 private:
  EmberExtScalar s_{};
};
template <>
inline double Scalar::to<double>() const { return toDouble(); }

// ---- TensorOptions: dtype / device / requires_grad for factories ----
class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ScalarType t) { dtype_ = t; }
  TensorOptions(Device d) { device_ = d; }
  TensorOptions(DeviceType d) { device_ = Device(d); }
  TensorOptions dtype(ScalarType t) const { TensorOptions o = *this; o.dtype_ = t; return o; }
  TensorOptions dtype(std::optional<ScalarType> t) const { TensorOptions o = *this; o.dtype_ = t; return o; }
  TensorOptions device(Device d) const { TensorOptions o = *this; o.device_ = d; return o; }
  TensorOptions device(DeviceType t, DeviceIndex i = -1) const { return device(Device(t, i)); }
  TensorOptions requires_grad(bool on) const { TensorOptions o = *this; o.requires_grad_ = on; return o; }
  template <class T>
  TensorOptions dtype() const { return dtype(CppTypeToScalarType<T>::value); }
  // Getters (PyTorch: dtype() is a TypeMeta that compares equal to a ScalarType).
  ScalarType dtype() const { return dtype_.value_or(kFloat); }
  Device device() const { return device_.value_or(Device(kCPU)); }
  bool requires_grad() const { return requires_grad_; }
  bool has_dtype() const { return dtype_.has_value(); }
  bool has_device() const { return device_.has_value(); }
  ScalarType scalar_type() const { return dtype(); }
  // Fields left unset are filled from `o` (used by *_like factories).
  TensorOptions merged_with(const TensorOptions& o) const {
    TensorOptions r = *this;
    if (!r.dtype_) r.dtype_ = o.dtype_;
    if (!r.device_) r.device_ = o.device_;
    return r;
  }

 private:
  std::optional<ScalarType> dtype_;
  std::optional<Device> device_;
  bool requires_grad_ = false;
};
inline TensorOptions dtype(ScalarType t) { return TensorOptions().dtype(t); }
template <class T>
TensorOptions dtype() { return TensorOptions().dtype(CppTypeToScalarType<T>::value); }
inline TensorOptions device(Device d) { return TensorOptions().device(d); }
inline TensorOptions requires_grad(bool on = true) { return TensorOptions().requires_grad(on); }

}  // namespace ext
}  // namespace ember

// TORCH_CHECK(cond, msg...): a C++ exception that surfaces in Python as RuntimeError(msg).
#define EMBER_EXT_CHECK_IMPL(E, cond, ...)                                                         \
  do {                                                                                             \
    if (__builtin_expect(!(cond), 0))                                                              \
      throw ::ember::ext::E(::ember::ext::detail::check_msg(#cond, ##__VA_ARGS__));                \
  } while (0)
#define TORCH_CHECK(cond, ...) EMBER_EXT_CHECK_IMPL(Error, cond, ##__VA_ARGS__)
#define TORCH_CHECK_INDEX(cond, ...) EMBER_EXT_CHECK_IMPL(IndexError, cond, ##__VA_ARGS__)
#define TORCH_CHECK_VALUE(cond, ...) EMBER_EXT_CHECK_IMPL(ValueError, cond, ##__VA_ARGS__)
#define TORCH_CHECK_TYPE(cond, ...) EMBER_EXT_CHECK_IMPL(TypeError, cond, ##__VA_ARGS__)
#define TORCH_CHECK_NOT_IMPLEMENTED(cond, ...) EMBER_EXT_CHECK_IMPL(Error, cond, ##__VA_ARGS__)
#define TORCH_INTERNAL_ASSERT(cond, ...) EMBER_EXT_CHECK_IMPL(Error, cond, "INTERNAL ASSERT FAILED: " #cond " ", ##__VA_ARGS__)
#define AT_ERROR(...) throw ::ember::ext::Error(::ember::ext::detail::str(__VA_ARGS__))
#define AT_ASSERT(cond, ...) TORCH_INTERNAL_ASSERT(cond, ##__VA_ARGS__)
