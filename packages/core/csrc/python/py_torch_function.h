// __torch_function__ at the binding layer (ember.overrides holds the Python half).
// A binding looks at its arguments only while g_torch_function_state is nonzero: some
// Tensor subclass taking part in __torch_function__ exists, or a TorchFunctionMode is
// active. Nobody overriding costs one load and a predicted branch per op.
#pragma once
#include "py_common.h"

namespace ember::python {

// Live Tensor subclasses whose __torch_function__ is not disabled, plus active modes.
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

void init_torch_function(PyObject* module);

// At the top of an operator slot or property getter: __torch_function__ sees it as the Tensor
// method PyTorch names (t + 1: Tensor.add, 1 - t: Tensor.__rsub__(t, 1), t &= 1: Tensor.__iand__,
// t.T: Tensor.T.__get__), the tensor first.
#define TORCH_FUNCTION_OP(name, rname, a, b, c)                                               \
  if (::ember::python::g_torch_function_state) [[unlikely]] {                                 \
    PyObject* tf_r_;                                                                          \
    if (::ember::python::torch_function_operator(name, rname, a, b, c, &tf_r_)) return tf_r_; \
  }

}  // namespace ember::python
