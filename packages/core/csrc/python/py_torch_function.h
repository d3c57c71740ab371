// __torch_function__ at the binding layer (ember.overrides holds the Python half).
// A binding looks at its arguments only while g_torch_function_state is nonzero: some
// Tensor subclass taking part in __torch_function__ exists, or a TorchFunctionMode is
// active. Nobody overriding costs one load and a predicted branch per op.
#pragma once
#include "py_common.h"

namespace ember::python {

// Live Tensor subclasses whose __torch_function__ is not disabled, plus active modes (of all
// threads: a thread's own count decides whether its modes run).
// (extern, not inline: a plain hidden global is one PC-relative load in the bindings)
extern int g_torch_function_state;

// The call (a binding's vectorcall arguments) when an argument or a mode overrides it:
// true with *result set (a new reference, or null with the error set); false to run the op.
// is_method: `name` is a Tensor method (self is the tensor), else an ember function
// (namespaced ones as the binding's name, _linalg_det).
bool torch_function_dispatch(bool is_method, const char* name, PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                             PyObject* kwnames, PyObject** result);

// The same after argument conversion failed: a non-Tensor that defines __torch_function__
// (a duck type) gets the call even while no subclass exists.
bool torch_function_duck(bool is_method, const char* name, PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                         PyObject* kwnames, PyObject** result);

// A Python operator slot (a + b): `name` is Tensor.<name> with the tensor first; `rname`
// (null for in-place ones) when the tensor is the right operand (1 + t is Tensor.__radd__(t, 1)).
bool torch_function_operator(const char* name, const char* rname, PyObject* a, PyObject* b, PyObject* c,
                             PyObject** result);

// A Python-level public function (ember._C._CheckedFunction wrapping nn.functional.relu,
// ember.einsum, ...): `func` itself is what __torch_function__ receives. duck: only after its
// argument check failed (a non-Tensor that defines __torch_function__).
bool torch_function_call(PyObject* func, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, bool duck,
                         PyObject** result);

// A hand-written Tensor method PyTorch hands over on self alone (handle_torch_function(self, "dim")):
// self is an overloaded argument even as a plain Tensor, so a mode sees types (Tensor,). args: the
// method's arguments after self.
bool torch_function_self(const char* name, PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject** result);

// A property: Tensor.<prop>.__get__(self), .__set__(self, value), or .__delete__(self) where value is null.
bool torch_function_property(const char* prop, bool set, PyObject* self, PyObject* value, PyObject** result);

void init_torch_function(PyObject* module);

// At the top of an operator slot: __torch_function__ sees it as the Tensor method PyTorch names
// (t + 1: Tensor.add, 1 - t: Tensor.__rsub__(t, 1), t &= 1: Tensor.__iand__), the tensor first.
#define TORCH_FUNCTION_OP(name, rname, a, b, c)                                               \
  if (::ember::python::g_torch_function_state) [[unlikely]] {                                 \
    PyObject* tf_r_;                                                                          \
    if (::ember::python::torch_function_operator(name, rname, a, b, c, &tf_r_)) return tf_r_; \
  }

// At the top of a hand-written method that PyTorch parses with its argument parser (size, stride):
// self and the arguments override it only as subclasses or duck types.
#define TORCH_FUNCTION_METHOD(name, self, args, nargs, kwnames)                                                 \
  if (::ember::python::g_torch_function_state) [[unlikely]] {                                                   \
    PyObject* tf_r_;                                                                                            \
    if (::ember::python::torch_function_dispatch(true, name, self, args, nargs, kwnames, &tf_r_)) return tf_r_; \
  }

// At the top of a hand-written method dispatched on self (dim, item, __float__, ...).
#define TORCH_FUNCTION_SELF(name, self, args, nargs)                                         \
  if (::ember::python::g_torch_function_state) [[unlikely]] {                                \
    PyObject* tf_r_;                                                                         \
    if (::ember::python::torch_function_self(name, self, args, nargs, &tf_r_)) return tf_r_; \
  }

// At the top of a property getter whose PyGetSetDef closure is the property's name.
#define TORCH_FUNCTION_GETTER(self, closure)                                                                       \
  if (::ember::python::g_torch_function_state) [[unlikely]] {                                                      \
    PyObject* tf_r_;                                                                                               \
    if (::ember::python::torch_function_property(static_cast<const char*>(closure), false, self, nullptr, &tf_r_)) \
      return tf_r_;                                                                                                \
  }

// At the top of a property setter (returns int): the handler's result is dropped.
#define TORCH_FUNCTION_SETTER(self, closure, value)                                                               \
  if (::ember::python::g_torch_function_state) [[unlikely]] {                                                     \
    PyObject* tf_r_;                                                                                              \
    if (::ember::python::torch_function_property(static_cast<const char*>(closure), true, self, value, &tf_r_)) { \
      const int tf_rc_ = tf_r_ ? 0 : -1;                                                                          \
      Py_XDECREF(tf_r_);                                                                                          \
      return tf_rc_;                                                                                              \
    }                                                                                                             \
  }

}  // namespace ember::python
