// Python data <-> tensors: nested sequences into a new tensor (ember.tensor),
// tensors into nested lists (tolist).
#include <cmath>
#include <limits>

#include "arg_parser.h"
#include "ops.h"
#include "ops/core/internal.h"
#include "py_tensor.h"

namespace ember::python {

namespace {

// Categories rank like PyTorch's inference: bool < int < float < complex.
struct Inferred {
  DimVector shape;
  int category = -1;                                // -1 none yet, 0 bool, 1 int, 2 float, 3 complex
  ScalarType tensor_dtype = ScalarType::Undefined;  // from tensor elements
};

int category_of(PyObject* o, Inferred& inf) {
  if (PyBool_Check(o)) return 0;
  if (PyLong_Check(o)) return 1;
  if (PyFloat_Check(o)) return 2;
  if (PyComplex_Check(o)) return 3;
  if (is_tensor(o)) {
    const Tensor& t = unpack(o);
    EMBER_CHECK_VALUE(t.numel() == 1, "only one element tensors can be converted to Python scalars");
    inf.tensor_dtype = promote_types(inf.tensor_dtype, t.dtype());
    return t.dtype() == ScalarType::Bool ? 0 : is_complex(t.dtype()) ? 3 : is_floating(t.dtype()) ? 2 : 1;
  }
  if (PyIndex_Check(o)) return 1;
  if (PyNumber_Check(o) && !PySequence_Check(o)) return 2;
  if (o == Py_None) fail(ErrorKind::Runtime, "Could not infer dtype of NoneType");
  fail(ErrorKind::Runtime, "Could not infer dtype of ", Py_TYPE(o)->tp_name);
}

// The complex dtype a float dtype pairs with (PyTorch's default complex dtype rule).
ScalarType complex_of(ScalarType t) {
  return t == ScalarType::Float64 ? ScalarType::ComplexDouble : ScalarType::ComplexFloat;
}

bool is_seq(PyObject* o) { return !is_tensor(o) && (PyList_Check(o) || PyTuple_Check(o)); }

void infer(PyObject* o, size_t depth, Inferred& inf) {
  if (is_seq(o)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    if (depth == inf.shape.size()) {
      inf.shape.push_back(n);
    } else {
      EMBER_CHECK_VALUE(depth < inf.shape.size() && inf.shape[depth] == n, "expected sequence of length ",
                        depth < inf.shape.size() ? inf.shape[depth] : 0, " at dim ", depth, " (got ", n, ")");
    }
    for (Py_ssize_t i = 0; i < n; ++i) infer(PySequence_Fast_GET_ITEM(o, i), depth + 1, inf);
    return;
  }
  EMBER_CHECK_VALUE(depth == inf.shape.size(), "expected sequence of length ",
                    depth < inf.shape.size() ? inf.shape[depth] : 0, " at dim ", depth, " (got 0)");
  inf.category = std::max(inf.category, category_of(o, inf));
}

// PyTorch reads an element for uint64 as Python's unsigned conversion (OverflowError for a
// negative or too big int, TypeError for a float) ...
uint64_t uint64_element(PyObject* o) {
  if (PyBool_Check(o)) return o == Py_True;
  if (is_tensor(o)) return static_cast<uint64_t>(unpack(o).item().int_bits());
  if (PyFloat_Check(o)) fail(ErrorKind::Type, "an integer is required");
  PyObject* i = PyNumber_Index(o);
  if (!i) throw python_error();
  const unsigned long long v = PyLong_AsUnsignedLongLong(i);
  Py_DECREF(i);
  if (PyErr_Occurred()) throw python_error();
  return v;
}
// ... and for uint16 / uint32 as a checked conversion: an int in [-max, max] (wrapping), a float
// in [0, max]; an int past int64 is the "long long" unpacking error.
template <class T>
T checked_unsigned_element(PyObject* o) {
  if (PyLong_Check(o) && !PyBool_Check(o)) {
    int overflow = 0;
    (void)PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) fail(ErrorKind::Value, "Overflow when unpacking long long");
  }
  const Scalar s = to_scalar(o);
  constexpr double hi = static_cast<double>(std::numeric_limits<T>::max());
  const char* name = std::is_same_v<T, uint16_t> ? "uint16" : "uint32";
  if (s.is_float()) {
    const double d = s.to_double();
    EMBER_CHECK(d >= 0 && d <= hi, "value cannot be converted to type ", name, " without overflow");
    return static_cast<T>(d);
  }
  const int64_t v = s.int_bits();
  EMBER_CHECK(v >= -static_cast<int64_t>(hi) && v <= static_cast<int64_t>(hi), "value cannot be converted to type ",
              name, " without overflow");
  return static_cast<T>(v);
}

template <class T>
void fill(PyObject* o, T*& out) {
  if (is_seq(o)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    for (Py_ssize_t i = 0; i < n; ++i) fill(PySequence_Fast_GET_ITEM(o, i), out);
    return;
  }
  if (PyComplex_Check(o)) {
    // a complex number only goes into a complex dtype (PyTorch's TypeErrors otherwise)
    if constexpr (is_complex_v<T>) {
      *out++ = T(PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o));
      return;
    } else if constexpr (std::is_integral_v<T>) {
      fail(ErrorKind::Type, "'complex' object cannot be interpreted as an integer");
    } else {
      fail(ErrorKind::Type, "must be real number, not complex");
    }
  }
  if constexpr (std::is_same_v<T, uint64_t>) {
    *out++ = uint64_element(o);
  } else if constexpr (std::is_same_v<T, uint16_t> || std::is_same_v<T, uint32_t>) {
    *out++ = checked_unsigned_element<T>(o);
  } else {
    *out++ = to_scalar(o).template to<T>();
  }
}

}  // namespace

Tensor tensor_from_data(PyObject* data, std::optional<ScalarType> dtype) {
  Inferred inf;
  infer(data, 0, inf);
  ScalarType dt;
  if (dtype) {
    dt = *dtype;
  } else if (inf.tensor_dtype != ScalarType::Undefined && inf.category >= 0) {
    // Elements that are tensors keep their dtype (promoted with the numbers' category).
    dt = inf.tensor_dtype;
    if (inf.category == 3 && !is_complex(dt)) dt = complex_of(dt == ScalarType::Float64 ? dt : default_dtype());
    else if (inf.category == 2 && !is_floating_or_complex(dt)) dt = default_dtype();
    else if (inf.category == 1 && dt == ScalarType::Bool) dt = ScalarType::Int64;
  } else {
    dt = inf.category <= 0   ? (inf.category == 0 ? ScalarType::Bool : default_dtype())
         : inf.category == 1 ? ScalarType::Int64
         : inf.category == 3 ? complex_of(default_dtype())
                             : default_dtype();
  }
  Tensor t = empty(inf.shape, dt);
  EMBER_DISPATCH_EVERY_TYPE(dt, "tensor", [&] {
    scalar_t* p = t.data<scalar_t>();
    fill(data, p);
  });
  return t;
}

namespace {
PyObject* element(const char* p, ScalarType dt) {
  switch (dt) {
    case ScalarType::Bool:
      return PyBool_FromLong(*reinterpret_cast<const uint8_t*>(p) != 0);  // any byte, not UB
    case ScalarType::UInt8:
      return PyLong_FromLong(*reinterpret_cast<const uint8_t*>(p));
    case ScalarType::Int8:
      return PyLong_FromLong(*reinterpret_cast<const int8_t*>(p));
    case ScalarType::Int16:
      return PyLong_FromLong(*reinterpret_cast<const int16_t*>(p));
    case ScalarType::Int32:
      return PyLong_FromLong(*reinterpret_cast<const int32_t*>(p));
    case ScalarType::Int64:
      return PyLong_FromLongLong(*reinterpret_cast<const int64_t*>(p));
    case ScalarType::Float16:
      return PyFloat_FromDouble(float(*reinterpret_cast<const Half*>(p)));
    case ScalarType::BFloat16:
      return PyFloat_FromDouble(float(*reinterpret_cast<const BFloat16*>(p)));
    case ScalarType::Float32:
      return PyFloat_FromDouble(*reinterpret_cast<const float*>(p));
    case ScalarType::Float64:
      return PyFloat_FromDouble(*reinterpret_cast<const double*>(p));
    case ScalarType::ComplexFloat: {
      auto c = *reinterpret_cast<const std::complex<float>*>(p);
      return PyComplex_FromDoubles(c.real(), c.imag());
    }
    case ScalarType::ComplexDouble: {
      auto c = *reinterpret_cast<const std::complex<double>*>(p);
      return PyComplex_FromDoubles(c.real(), c.imag());
    }
    case ScalarType::ComplexHalf: {
      const auto* c = reinterpret_cast<const ComplexHalf*>(p);
      return PyComplex_FromDoubles(c->real(), c->imag());
    }
    case ScalarType::UInt16:
      return PyLong_FromLong(*reinterpret_cast<const uint16_t*>(p));
    case ScalarType::UInt32:
      return PyLong_FromUnsignedLong(*reinterpret_cast<const uint32_t*>(p));
    case ScalarType::UInt64:
      return PyLong_FromUnsignedLongLong(*reinterpret_cast<const uint64_t*>(p));
    default:
      return nullptr;
  }
}
PyObject* to_list(const char* p, const Tensor& t, int64_t d) {
  if (d == t.dim()) return element(p, t.dtype());
  int64_t n = t.sizes()[d];
  int64_t st = t.strides()[d] * static_cast<int64_t>(t.itemsize());
  PyObject* list = PyList_New(n);
  if (!list) throw python_error();
  for (int64_t i = 0; i < n; ++i) {
    PyObject* item = to_list(p + i * st, t, d + 1);
    if (!item) {
      Py_DECREF(list);
      throw python_error();
    }
    PyList_SET_ITEM(list, i, item);
  }
  return list;
}
}  // namespace

PyObject* tensor_to_list(const Tensor& t) {
  if (!t.device().is_cpu()) return tensor_to_list(to_device(t, cpu_device()));  // PyTorch copies to the host
  if (t.impl()->conj) {  // a conjugate view: its values, not the stored conjugates
    const Tensor v = conj_physical(physical_alias(t));
    return to_list(v.raw(), v, 0);
  }
  return to_list(t.raw(), t, 0);
}

}  // namespace ember::python
