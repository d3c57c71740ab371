// __torch_function__: which arguments override a call, and the hand-over to
// ember.overrides._dispatch, which picks the mode or the argument's __torch_function__.
#include "py_torch_function.h"

#include <string>
#include <vector>

#include "py_tensor.h"

namespace ember::python {

int g_torch_function_state = 0;

namespace {

// PyTorch's DisableTorchFunction state, per thread: 1 leaves subclasses out (modes stay), 2 everything.
thread_local int t_disabled = 0;
// Active TorchFunctionModes: PyTorch's mode stack is per thread (ember._torch_function keeps a
// thread-local one); the global total keeps every thread off the fast path while any has one.
int g_modes = 0;
thread_local int t_modes = 0;
int g_subclasses = 0;                 // live Tensor subclasses whose __torch_function__ is not disabled
PyObject* g_attr = nullptr;           // "__torch_function__"
PyObject* g_disabled_impl = nullptr;  // _C._disabled_torch_function_impl
PyObject* g_handler = nullptr;        // ember.overrides._dispatch, imported on first use

void update_state() { g_torch_function_state = g_subclasses + g_modes; }
bool modes_on() { return t_modes > 0 && t_disabled < 2; }

// PyTorch's check_has_torch_function without the mode: a subclass instance or a duck type.
bool overrides(PyObject* o) {
  PyTypeObject* t = Py_TYPE(o);
  if (t == g_tensor_class || o == Py_None || t == &PyLong_Type || t == &PyFloat_Type || t == &PyBool_Type ||
      t == &PyTuple_Type || t == &PyList_Type || t == &PyUnicode_Type || t == &PySlice_Type)
    return false;
  PyObject* f = _PyType_Lookup(t, g_attr);  // borrowed; the type attribute cache makes it cheap
  return f && f != g_disabled_impl;
}

// Arguments and the elements of list/tuple arguments (Tensor[] parameters, index tuples).
void collect(PyObject* o, std::vector<PyObject*>& out) {
  if (!o) return;
  if (PyTuple_Check(o) || PyList_Check(o)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    PyObject** items = PySequence_Fast_ITEMS(o);
    for (Py_ssize_t i = 0; i < n; ++i)
      if (overrides(items[i])) out.push_back(items[i]);
    return;
  }
  if (overrides(o)) out.push_back(o);
}

PyObject* handler() {
  if (!g_handler) {
    PyObject* mod = PyImport_ImportModule("ember.overrides");
    if (!mod) return nullptr;
    g_handler = PyObject_GetAttrString(mod, "_dispatch");
    Py_DECREF(mod);
  }
  return g_handler;
}

// Hands the call to ember.overrides._dispatch(kind, name or func, overloaded, args, kwargs);
// kind 0: a function, 1: a Tensor method, 2: an operator (NotImplemented goes back to Python).
PyObject* hand_over(int kind, const char* name, const std::vector<PyObject*>& over, PyObject* self,
                    PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, PyObject* func = nullptr) {
  PyObject* h = handler();
  if (!h) return nullptr;
  const Py_ssize_t lead = kind && self ? 1 : 0;
  PyObject* tup = PyTuple_New(nargs + lead);
  PyObject* ov = PyTuple_New(static_cast<Py_ssize_t>(over.size()));
  PyObject* kw = kwnames && PyTuple_GET_SIZE(kwnames) ? PyDict_New() : nullptr;
  PyObject* res = nullptr;
  if (tup && ov && (kw || !kwnames || !PyTuple_GET_SIZE(kwnames))) {
    if (lead) {
      Py_INCREF(self);
      PyTuple_SET_ITEM(tup, 0, self);
    }
    for (Py_ssize_t i = 0; i < nargs; ++i) {
      Py_INCREF(args[i]);
      PyTuple_SET_ITEM(tup, i + lead, args[i]);
    }
    for (size_t i = 0; i < over.size(); ++i) {
      Py_INCREF(over[i]);
      PyTuple_SET_ITEM(ov, static_cast<Py_ssize_t>(i), over[i]);
    }
    bool ok = true;
    for (Py_ssize_t j = 0; kw && j < PyTuple_GET_SIZE(kwnames); ++j)
      ok = ok && PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, j), args[nargs + j]) == 0;
    if (ok && func) res = PyObject_CallFunction(h, "iOOOO", 0, func, ov, tup, kw ? kw : Py_None);
    else if (ok) res = PyObject_CallFunction(h, "isOOO", kind, name, ov, tup, kw ? kw : Py_None);
  }
  Py_XDECREF(tup);
  Py_XDECREF(ov);
  Py_XDECREF(kw);
  return res;
}

// ---------------------------------------------------------------- _C functions

// Parameter's __torch_function__: the call runs as on a plain tensor (no conversion back).
PyObject* disabled_impl(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  if (nargs < 2 || (kwnames && PyTuple_GET_SIZE(kwnames))) {
    PyErr_SetString(PyExc_TypeError, "_disabled_torch_function_impl(func, types, args=(), kwargs=None)");
    return nullptr;
  }
  PyObject* fargs = nargs > 2 ? args[2] : nullptr;
  PyObject* fkw = nargs > 3 && args[3] != Py_None ? args[3] : nullptr;
  PyObject* owned = fargs ? PySequence_Tuple(fargs) : PyTuple_New(0);
  if (!owned) return nullptr;
  int saved = t_disabled;
  if (t_disabled < 1) t_disabled = 1;
  PyObject* r = PyObject_Call(args[0], owned, fkw);
  t_disabled = saved;
  Py_DECREF(owned);
  return r;
}

PyObject* set_disabled(PyObject*, PyObject* level) {
  int prev = t_disabled;
  t_disabled = static_cast<int>(PyLong_AsLong(level));
  if (PyErr_Occurred()) return nullptr;
  return PyLong_FromLong(prev);
}
PyObject* get_disabled(PyObject*, PyObject*) { return PyLong_FromLong(t_disabled); }

PyObject* set_modes(PyObject*, PyObject* n) {
  const int now = static_cast<int>(PyLong_AsLong(n));
  if (PyErr_Occurred()) return nullptr;
  g_modes += now - t_modes;
  t_modes = now;
  update_state();
  Py_RETURN_NONE;
}

PyObject* add_subclasses(PyObject*, PyObject* delta) {
  g_subclasses += static_cast<int>(PyLong_AsLong(delta));
  if (PyErr_Occurred()) return nullptr;
  update_state();
  return PyLong_FromLong(g_subclasses);
}

PyObject* state(PyObject*, PyObject*) { return PyLong_FromLong(g_torch_function_state); }

// PyTorch's has_torch_function family (ember.overrides re-exports them).
bool has_any(PyObject* const* items, Py_ssize_t n) {
  if (t_disabled >= 2) return false;
  if (t_modes) return true;
  if (t_disabled) return false;
  for (Py_ssize_t i = 0; i < n; ++i)
    if (overrides(items[i])) return true;
  return false;
}
PyObject* has_tf(PyObject*, PyObject* seq) {
  PyObject* fast = PySequence_Fast(seq, "expected a sequence");
  if (!fast) return nullptr;
  bool r = has_any(PySequence_Fast_ITEMS(fast), PySequence_Fast_GET_SIZE(fast));
  Py_DECREF(fast);
  return PyBool_FromLong(r);
}
PyObject* has_tf_unary(PyObject*, PyObject* o) { return PyBool_FromLong(has_any(&o, 1)); }
PyObject* has_tf_variadic(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  return PyBool_FromLong(has_any(args, nargs));
}

PyMethodDef functions[] = {
    {"_disabled_torch_function_impl", (PyCFunction)(void (*)())disabled_impl, METH_FASTCALL | METH_KEYWORDS,
     "Runs func(*args, **kwargs) as on plain tensors (nn.Parameter's __torch_function__)."},
    {"_set_torch_function_disabled", set_disabled, METH_O, nullptr},
    {"_get_torch_function_disabled", get_disabled, METH_NOARGS, nullptr},
    {"_set_torch_function_modes", set_modes, METH_O, nullptr},
    {"_add_torch_function_subclasses", add_subclasses, METH_O, nullptr},
    {"_torch_function_state", state, METH_NOARGS, nullptr},
    {"_has_torch_function", has_tf, METH_O, nullptr},
    {"_has_torch_function_unary", has_tf_unary, METH_O, nullptr},
    {"_has_torch_function_variadic", (PyCFunction)(void (*)())has_tf_variadic, METH_FASTCALL, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool torch_function_dispatch(bool is_method, const char* name, PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                             PyObject* kwnames, PyObject** result) {
  if (t_disabled >= 2) return false;
  std::vector<PyObject*> over;
  if (!t_disabled) {
    if (is_method) collect(self, over);
    Py_ssize_t n = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
    for (Py_ssize_t i = 0; i < n; ++i) collect(args[i], over);
  }
  if (over.empty() && !modes_on()) return false;
  *result = hand_over(is_method ? 1 : 0, name, over, self, args, nargs, kwnames);
  return true;
}

bool torch_function_duck(bool is_method, const char* name, PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                         PyObject* kwnames, PyObject** result) {
  if (t_disabled || !g_attr) return false;
  PyObject *et = nullptr, *ev = nullptr, *etb = nullptr;
  PyErr_Fetch(&et, &ev, &etb);  // the conversion's error, when one was set, waits aside
  std::vector<PyObject*> over;
  if (is_method) collect(self, over);
  Py_ssize_t n = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
  for (Py_ssize_t i = 0; i < n; ++i) collect(args[i], over);
  if (over.empty()) {
    PyErr_Restore(et, ev, etb);
    return false;
  }
  Py_XDECREF(et);
  Py_XDECREF(ev);
  Py_XDECREF(etb);
  *result = hand_over(is_method ? 1 : 0, name, over, self, args, nargs, kwnames);
  return true;
}

bool torch_function_operator(const char* name, const char* rname, PyObject* a, PyObject* b, PyObject* c,
                             PyObject** result) {
  if (t_disabled >= 2) return false;
  std::vector<PyObject*> over;
  if (!t_disabled) {
    collect(a, over);
    collect(b, over);
    collect(c, over);
  }
  if (over.empty() && !modes_on()) return false;
  const bool reflected = rname && !is_tensor(a);
  PyObject* args[3] = {reflected ? b : a, reflected ? a : b, c};
  Py_ssize_t n = c ? 3 : b ? 2 : 1;
  // PyTorch's reflected methods (__rsub__, ...) are Python functions that count a plain tensor too
  if (reflected && rname[0] == '_' && over.empty()) over.push_back(args[0]);
  // The tensor is self: it leads the argument tuple as Tensor.<name>'s first argument.
  *result = hand_over(2, reflected ? rname : name, over, args[0], args + 1, n - 1, nullptr);
  return true;
}

bool torch_function_self(const char* name, PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject** result) {
  if (t_disabled >= 2 || !((!t_disabled && overrides(self)) || modes_on())) return false;
  *result = hand_over(1, name, {self}, self, args, nargs, nullptr);
  return true;
}

bool torch_function_property(const char* prop, bool set, PyObject* self, PyObject* value, PyObject** result) {
  if (t_disabled >= 2 || !((!t_disabled && overrides(self)) || modes_on())) return false;
  const std::string name = std::string(prop) + (!set ? ".__get__" : value ? ".__set__" : ".__delete__");
  *result = hand_over(1, name.c_str(), {self}, self, &value, value ? 1 : 0, nullptr);
  return true;
}

bool torch_function_call(PyObject* func, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, bool duck,
                         PyObject** result) {
  if (t_disabled >= (duck ? 1 : 2) || !g_attr) return false;
  // The argument check's (or fn's) error waits aside: a type lookup must not run with it set.
  PyObject *et = nullptr, *ev = nullptr, *etb = nullptr;
  if (duck) PyErr_Fetch(&et, &ev, &etb);
  std::vector<PyObject*> over;
  if (!t_disabled) {
    Py_ssize_t n = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
    for (Py_ssize_t i = 0; i < n; ++i) collect(args[i], over);
  }
  if (over.empty() && (duck || !modes_on())) {
    if (duck) PyErr_Restore(et, ev, etb);
    return false;
  }
  Py_XDECREF(et);
  Py_XDECREF(ev);
  Py_XDECREF(etb);
  *result = hand_over(0, nullptr, over, nullptr, args, nargs, kwnames, func);
  return true;
}

void init_torch_function(PyObject* module) {
  g_attr = PyUnicode_InternFromString("__torch_function__");
  if (!g_attr || PyModule_AddFunctions(module, functions) < 0) throw python_error();
  g_disabled_impl = PyObject_GetAttrString(module, "_disabled_torch_function_impl");
  if (!g_disabled_impl) throw python_error();
}

}  // namespace ember::python
