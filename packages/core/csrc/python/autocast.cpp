// Autocast state (per thread, as PyTorch's), the weight-cast cache, and the argument casts.
#include "autocast.h"

#include <string_view>
#include <unordered_map>
#include <utility>

#include "autograd_ops.h"
#include "py_tensor.h"
#include "py_types.h"

namespace ember::python {

namespace {

struct DeviceAutocast {
  bool enabled = false;
  ScalarType dtype;  // the lower-precision type
};

struct AutocastState {
  DeviceAutocast cpu{false, ScalarType::BFloat16}, cuda{false, ScalarType::Float16};  // PyTorch's defaults
  bool cache_enabled = true;
  int nesting = 0;
  // fp32 leaf weight -> its cast, alive until the outermost autocast region exits (the source is
  // held so its address cannot be reused by another tensor while the entry exists).
  std::unordered_map<TensorImpl*, std::pair<Tensor, Tensor>> cache;
};

AutocastState& state() {
  static thread_local AutocastState s;
  return s;
}

DeviceAutocast& of(AutocastState& s, ember::DeviceType d) { return d == ember::DeviceType::CUDA ? s.cuda : s.cpu; }

// PyTorch's eligibility: floating point, not float64 (doubles are never autocast), on the device
// type whose autocast is running.
bool eligible(const Tensor& t, ember::DeviceType d) {
  return t.defined() && t.is_floating() && t.dtype() != ScalarType::Float64 && t.device().type == d;
}

Tensor cast(const Tensor& t, ScalarType to, ember::DeviceType d) {
  if (!eligible(t, d) || t.dtype() == to) return t;
  AutocastState& s = state();
  // Cache the low-precision copies of float32 leaf parameters: a weight used many times in
  // one forward is cast once (PyTorch's rule; views and non-leaves are never cached).
  const AutogradMeta* m = t.impl()->autograd.get();
  bool cacheable = s.cache_enabled && to == of(s, d).dtype && t.dtype() == ScalarType::Float32 && m &&
                   m->requires_grad && !m->grad_fn && !t.impl()->base;
  if (cacheable) {
    auto it = s.cache.find(t.impl());
    if (it != s.cache.end()) return it->second.second;
  }
  Tensor r = ag::_to_copy(t, to);
  if (cacheable) s.cache.emplace(t.impl(), std::make_pair(t, r));
  return r;
}

// Calls f on each tensor among A's arguments named by mask (tensor lists included).
template <class F>
void each_tensor(ParsedArgs& A, uint32_t mask, F&& f) {
  for (int i = 0; i < kMaxParams; ++i) {
    if (!(mask >> i & 1u) || !A.obj[i]) continue;
    PyObject* o = A.obj[i];
    if (PyList_Check(o) || PyTuple_Check(o)) {
      Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
      for (Py_ssize_t j = 0; j < n; ++j)
        if (is_tensor(PySequence_Fast_GET_ITEM(o, j))) f(unpack(PySequence_Fast_GET_ITEM(o, j)));
    } else if (is_tensor(o)) {
      f(unpack(o));
    }
  }
}

ScalarType widest(ParsedArgs& A, uint32_t mask, ScalarType start, ember::DeviceType d) {
  ScalarType w = start;
  each_tensor(A, mask, [&](const Tensor& t) {
    if (!eligible(t, d) || t.dtype() == w) return;
    if (w == ScalarType::Float32 || t.dtype() == ScalarType::Float32) {
      w = ScalarType::Float32;
      return;
    }
    throw Error(ErrorKind::Runtime, "Unexpected floating ScalarType in at::autocast::prioritize");
  });
  return w;
}

// A new reference: the (possibly) cast object for one argument.
PyObject* cast_obj(PyObject* o, ScalarType to, ember::DeviceType d) {
  if (!is_tensor(o)) {
    Py_INCREF(o);
    return o;
  }
  const Tensor& t = unpack(o);
  Tensor r = cast(t, to, d);
  if (r.same(t)) {
    Py_INCREF(o);
    return o;
  }
  return wrap(std::move(r));
}

}  // namespace

bool autocast_enabled_here() { return state().cpu.enabled || state().cuda.enabled; }

Tensor autocast_lower(const Tensor& t) {
  if (!t.defined()) return t;
  const DeviceAutocast& d = of(state(), t.device().type);
  return d.enabled ? cast(t, d.dtype, t.device().type) : t;
}

AutocastArgs::~AutocastArgs() {
  for (PyObject* o : held_) Py_XDECREF(o);
}

void AutocastArgs::apply(AutocastPolicy cpu, AutocastPolicy cuda, ParsedArgs& A, uint32_t mask) {
  ember::DeviceType dev = ember::DeviceType::CPU;
  each_tensor(A, mask, [&](const Tensor& t) {
    if (t.defined() && t.device().type == ember::DeviceType::CUDA) dev = ember::DeviceType::CUDA;
  });
  const DeviceAutocast& d = of(state(), dev);
  const AutocastPolicy policy = dev == ember::DeviceType::CUDA ? cuda : cpu;
  if (!d.enabled || policy == AutocastPolicy::None) return;
  ScalarType to = policy == AutocastPolicy::Lower  ? d.dtype
                  : policy == AutocastPolicy::Fp32 ? ScalarType::Float32
                                                   : widest(A, mask, d.dtype, dev);
  for (int i = 0; i < kMaxParams; ++i) {
    PyObject* o = A.obj[i];
    if (!(mask >> i & 1u) || !o || o == Py_None) continue;
    PyObject* r = nullptr;
    if (PyList_Check(o) || PyTuple_Check(o)) {
      Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
      r = PyTuple_New(n);
      if (!r) throw python_error();
      Py_XDECREF(held_[i]);
      held_[i] = r;  // owned before it is filled: a failed cast leaves no leak
      for (Py_ssize_t j = 0; j < n; ++j) PyTuple_SET_ITEM(r, j, cast_obj(PySequence_Fast_GET_ITEM(o, j), to, dev));
    } else {
      r = cast_obj(o, to, dev);
      Py_XDECREF(held_[i]);
      held_[i] = r;
    }
    A.obj[i] = r;
  }
}

// ---- Python functions (ember.amp's state; device_type is checked on the Python side) ----
namespace {

// g_autocast_threads counts threads with autocast on for any device type.
void set_enabled(ember::DeviceType dev, bool on) {
  AutocastState& s = state();
  const bool before = autocast_enabled_here();
  of(s, dev).enabled = on;
  const bool after = autocast_enabled_here();
  if (before != after) g_autocast_threads.fetch_add(after ? 1 : -1, std::memory_order_relaxed);
}

// "cpu" or "cuda" (ember.amp checks the name first).
ember::DeviceType device_type_arg(PyObject* o) {
  const char* name = PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : nullptr;
  if (!name) throw python_error();
  if (std::string_view(name) == "cuda") return ember::DeviceType::CUDA;
  if (std::string_view(name) != "cpu") fail(ErrorKind::Runtime, "autocast: no device type ", name, " in ember");
  return ember::DeviceType::CPU;
}

// _set_autocast_enabled(device_type, on) / _is_autocast_enabled(device_type) / _set_autocast_dtype /
// _get_autocast_dtype: any device type's state.
PyObject* py_set_enabled_for(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  EMBER_PY_TRY
  if (nargs != 2) throw Error(ErrorKind::Type, "_set_autocast_enabled(device_type, enabled)");
  set_enabled(device_type_arg(args[0]), PyObject_IsTrue(args[1]) == 1);
  Py_RETURN_NONE;
  EMBER_PY_CATCH
}
PyObject* py_is_enabled_for(PyObject*, PyObject* arg) {
  EMBER_PY_TRY
  return PyBool_FromLong(of(state(), device_type_arg(arg)).enabled);
  EMBER_PY_CATCH
}
PyObject* py_set_dtype_for(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  EMBER_PY_TRY
  if (nargs != 2) throw Error(ErrorKind::Type, "_set_autocast_dtype(device_type, dtype)");
  of(state(), device_type_arg(args[0])).dtype = parse_dtype(args[1]);
  Py_RETURN_NONE;
  EMBER_PY_CATCH
}
PyObject* py_get_dtype_for(PyObject*, PyObject* arg) {
  EMBER_PY_TRY
  PyObject* d = dtype_object(of(state(), device_type_arg(arg)).dtype);
  Py_INCREF(d);
  return d;
  EMBER_PY_CATCH
}
PyObject* py_set_cache_enabled(PyObject*, PyObject* arg) {
  state().cache_enabled = PyObject_IsTrue(arg) == 1;
  Py_RETURN_NONE;
}
PyObject* py_is_cache_enabled(PyObject*, PyObject*) { return PyBool_FromLong(state().cache_enabled); }
PyObject* py_increment(PyObject*, PyObject*) { return PyLong_FromLong(++state().nesting); }
PyObject* py_decrement(PyObject*, PyObject*) { return PyLong_FromLong(--state().nesting); }
PyObject* py_clear_cache(PyObject*, PyObject*) {
  state().cache.clear();
  Py_RETURN_NONE;
}

// _autocast_to(tensor, dtype): the cast a listed binding makes (cached for leaf weights), for Python-level ops.
PyObject* py_autocast_to(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  EMBER_PY_TRY
  if (nargs != 2 || !is_tensor(args[0])) {
    PyErr_SetString(PyExc_TypeError, "_autocast_to(tensor, dtype)");
    return nullptr;
  }
  const Tensor& t = unpack(args[0]);
  Tensor r = cast(t, parse_dtype(args[1]), t.device().type);
  if (r.same(t)) {
    Py_INCREF(args[0]);
    return args[0];
  }
  return wrap(std::move(r));
  EMBER_PY_CATCH
}

PyMethodDef autocast_functions[] = {
    {"_autocast_to", (PyCFunction)(void (*)())py_autocast_to, METH_FASTCALL, nullptr},
    {"_set_autocast_enabled", (PyCFunction)(void (*)())py_set_enabled_for, METH_FASTCALL, nullptr},
    {"_is_autocast_enabled", py_is_enabled_for, METH_O, nullptr},
    {"_set_autocast_dtype", (PyCFunction)(void (*)())py_set_dtype_for, METH_FASTCALL, nullptr},
    {"_get_autocast_dtype", py_get_dtype_for, METH_O, nullptr},
    {"_set_autocast_cache_enabled", py_set_cache_enabled, METH_O, nullptr},
    {"_is_autocast_cache_enabled", py_is_cache_enabled, METH_NOARGS, nullptr},
    {"_autocast_increment_nesting", py_increment, METH_NOARGS, nullptr},
    {"_autocast_decrement_nesting", py_decrement, METH_NOARGS, nullptr},
    {"_clear_autocast_cache", py_clear_cache, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

void init_autocast(PyObject* module) {
  if (PyModule_AddFunctions(module, autocast_functions) < 0) throw python_error();
}

}  // namespace ember::python
