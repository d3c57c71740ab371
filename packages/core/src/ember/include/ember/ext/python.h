// ember's public C++ API, part 3: the Python side of an extension. pybind11 casters that
// pass ember tensors in and out by reference (the same TensorImpl, no copy), and the import
// hook that checks the ABI tag before the module's own init runs.
#pragma once
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "tensor.h"

// Every PYBIND11_MODULE defines PyInit_<name> through PYBIND11_PLUGIN_IMPL (pybind11 2.x
// and 3.x). Wrapping it lets the extension refuse to load, with an ImportError naming both
// API versions, when the installed ember-core does not provide the C++ API it was built for.
#undef PYBIND11_PLUGIN_IMPL
#define PYBIND11_PLUGIN_IMPL(name)                                                          \
  static PyObject* PYBIND11_CONCAT(ember_ext_pyinit_, name)();                              \
  extern "C" PYBIND11_EXPORT PyObject* PyInit_##name();                                     \
  extern "C" PYBIND11_EXPORT PyObject* PyInit_##name() {                                    \
    if (!::ember::ext::detail::import_api(PYBIND11_TOSTRING(name))) return nullptr;         \
    return PYBIND11_CONCAT(ember_ext_pyinit_, name)();                                      \
  }                                                                                         \
  static PyObject* PYBIND11_CONCAT(ember_ext_pyinit_, name)()

namespace pybind11 {
namespace detail {

template <>
struct type_caster<::ember::ext::Tensor> {
  PYBIND11_TYPE_CASTER(::ember::ext::Tensor, const_name("ember.Tensor"));
  bool load(handle src, bool) {
    void* p = ::ember::ext::detail::api()->from_py(src.ptr());
    if (!p) return false;
    value = ::ember::ext::Tensor::adopt(p);
    return true;
  }
  // An undefined tensor is None, as in PyTorch; otherwise the tensor's own Python object.
  static handle cast(const ::ember::ext::Tensor& t, return_value_policy, handle) {
    if (!t.defined()) return none().release();
    PyObject* o = ::ember::ext::detail::api()->to_py(t.unsafeGetTensorImpl());
    if (!o) throw error_already_set();
    return o;
  }
};

// int lists: any sequence of ints (or a single int) -> IntArrayRef over an owned buffer.
template <>
struct type_caster<::ember::ext::IntArrayRef> {
  PYBIND11_TYPE_CASTER(::ember::ext::IntArrayRef, const_name("list[int]"));
  bool load(handle src, bool convert) {
    list_caster<std::vector<int64_t>, int64_t> c;
    if (PyLong_Check(src.ptr())) {
      buf_.assign(1, PyLong_AsLongLong(src.ptr()));
    } else if (!isinstance<str>(src) && c.load(src, convert)) {
      buf_ = std::move(static_cast<std::vector<int64_t>&>(c));
    } else {
      return false;
    }
    value = ::ember::ext::IntArrayRef(buf_);
    return true;
  }
  static handle cast(::ember::ext::IntArrayRef v, return_value_policy, handle) {
    list l(v.size());
    for (size_t i = 0; i < v.size(); ++i) l[i] = int_(v[i]);
    return l.release();
  }

 private:
  std::vector<int64_t> buf_;
};

template <>
struct type_caster<::ember::ext::Scalar> {
  PYBIND11_TYPE_CASTER(::ember::ext::Scalar, const_name("float | int | bool"));
  bool load(handle src, bool) {
    PyObject* o = src.ptr();
    if (PyBool_Check(o)) value = ::ember::ext::Scalar(o == Py_True);
    else if (PyLong_Check(o)) value = ::ember::ext::Scalar(static_cast<int64_t>(PyLong_AsLongLong(o)));
    else if (PyFloat_Check(o)) value = ::ember::ext::Scalar(PyFloat_AsDouble(o));
    else return false;
    return true;
  }
  static handle cast(const ::ember::ext::Scalar& s, return_value_policy, handle) {
    if (s.isBoolean()) return bool_(s.toBool()).release();
    if (s.isIntegral(false)) return int_(s.toLong()).release();
    return float_(s.toDouble()).release();
  }
};

}  // namespace detail
}  // namespace pybind11

namespace ember {
namespace EMBER_EXT_NS {
// load_inline binds functions through this; C++ exceptions already become Python ones.
template <class F>
F&& wrap_pybind_function(F&& f) {
  return std::forward<F>(f);
}
template <class F>
F&& wrap_pybind_function_no_gil(F&& f) {
  return std::forward<F>(f);
}
}  // namespace ext
}  // namespace ember
