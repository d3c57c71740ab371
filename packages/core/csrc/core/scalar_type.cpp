#include "scalar_type.h"

#include <atomic>

namespace ember {

namespace {
struct Info {
  const char* name;
  const char* legacy;
  const char* ctype;
  size_t size;
};
constexpr Info kInfo[kNumScalarTypes] = {
    {"bool", "Bool", "bool", 1},
    {"uint8", "Byte", "unsigned char", 1},
    {"int8", "Char", "signed char", 1},
    {"int16", "Short", "short int", 2},
    {"int32", "Int", "int", 4},
    {"int64", "Long", "long int", 8},
    {"float16", "Half", "c10::Half", 2},
    {"bfloat16", "BFloat16", "c10::BFloat16", 2},
    {"float32", "Float", "float", 4},
    {"float64", "Double", "double", 8},
    {"complex64", "ComplexFloat", "c10::complex<float>", 8},
    {"complex128", "ComplexDouble", "c10::complex<double>", 16},
    {"uint16", "UInt16", "short unsigned int", 2},
    {"uint32", "UInt32", "unsigned int", 4},
    {"uint64", "UInt64", "long unsigned int", 8},
    {"complex32", "ComplexHalf", "c10::complex<c10::Half>", 4},
};
std::atomic<ScalarType> g_default{ScalarType::Float32};
}  // namespace

void (*g_warn_hook)(const char*) = nullptr;

size_t element_size(ScalarType t) { return kInfo[static_cast<int>(t)].size; }
const char* dtype_name(ScalarType t) {
  return t == ScalarType::Undefined ? "undefined" : kInfo[static_cast<int>(t)].name;
}
const char* legacy_name(ScalarType t) {
  return t == ScalarType::Undefined ? "Undefined" : kInfo[static_cast<int>(t)].legacy;
}
const char* c_type_name(ScalarType t) { return kInfo[static_cast<int>(t)].ctype; }

ScalarType to_real_type(ScalarType t) {
  switch (t) {
    case ScalarType::ComplexHalf:
      return ScalarType::Float16;
    case ScalarType::ComplexFloat:
      return ScalarType::Float32;
    case ScalarType::ComplexDouble:
      return ScalarType::Float64;
    default:
      return t;
  }
}
ScalarType to_complex_type(ScalarType t) {
  switch (t) {
    case ScalarType::Float16:
      return ScalarType::ComplexHalf;
    case ScalarType::Float32:
      return ScalarType::ComplexFloat;
    case ScalarType::Float64:
      return ScalarType::ComplexDouble;
    case ScalarType::ComplexHalf:
    case ScalarType::ComplexFloat:
    case ScalarType::ComplexDouble:
      return t;
    default:
      fail(ErrorKind::Runtime, "Unknown Complex ScalarType for ", legacy_name(t));
  }
}

ScalarType promote_types(ScalarType a, ScalarType b) {
  using S = ScalarType;
  if (a == b) return a;
  if (a == S::Undefined) return b;
  if (b == S::Undefined) return a;
  if (is_shell_unsigned(a) || is_shell_unsigned(b)) {  // c10: only a float joins them
    if (is_floating(a)) return a;
    if (is_floating(b)) return b;
    fail(ErrorKind::Runtime, "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote ",
         legacy_name(a), " and ", legacy_name(b));
  }
  if (a == S::Bool) return b;
  if (b == S::Bool) return a;
  if (is_complex(a) || is_complex(b)) {
    // complex wins; its precision is the wider of the two (float64 + complex64 -> complex128);
    // complex32 stays only beside float16, integers and itself (bfloat16 takes complex64)
    if (a == S::ComplexDouble || b == S::ComplexDouble || a == S::Float64 || b == S::Float64) return S::ComplexDouble;
    auto half_or_int = [](S t) { return t == S::ComplexHalf || t == S::Float16 || is_integral(t, false); };
    if (half_or_int(a) && half_or_int(b)) return S::ComplexHalf;
    return S::ComplexFloat;
  }
  bool fa = is_floating(a), fb = is_floating(b);
  if (fa && fb) {
    if ((a == S::Float16 && b == S::BFloat16) || (a == S::BFloat16 && b == S::Float16)) return S::Float32;
    return element_size(a) >= element_size(b) ? a : b;
  }
  if (fa) return a;
  if (fb) return b;
  // Both integral. uint8 mixes with signed types by widening to at least int16.
  if (a == S::UInt8 || b == S::UInt8) {
    S other = a == S::UInt8 ? b : a;
    return other == S::Int8 ? S::Int16 : other;
  }
  return element_size(a) >= element_size(b) ? a : b;
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating(from) && is_integral(to, true)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

ScalarType default_dtype() { return g_default.load(std::memory_order_relaxed); }
void set_default_dtype(ScalarType t) { g_default.store(t); }

void dtype_not_implemented(const char* kernel, ScalarType t) {
  fail(ErrorKind::NotImplemented, "\"", kernel, "\" not implemented for '", legacy_name(t), "'");
}

}  // namespace ember
