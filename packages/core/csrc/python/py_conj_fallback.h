// PyTorch's conjugate fallback, at the Python bindings: an op that does not read the conjugate bit
// gets its conjugate-view arguments resolved (the values in new memory) before it runs, and what
// it writes into a conjugate view (an in-place op's self, out=) is copied back conjugated. The
// generated bindings call it first, only while a conjugate view exists (one load otherwise).
#pragma once
#include "py_common.h"

namespace ember::python {

using FastcallFn = PyObject* (*)(PyObject*, PyObject* const*, Py_ssize_t, PyObject*);

// Which argument a binding writes besides out=: none, `self` (an in-place method's), or the first
// positional one (an in-place function such as relu_).
enum ConjWrites : int { kWritesNone = 0, kWritesSelf = 1, kWritesFirst = 2 };

// False when no argument (nor a tensor in a list argument) is a conjugate view: the binding
// carries on. Otherwise calls `fn` again with the views resolved, copies the written arguments
// back, and sets *result (nullptr with a Python error set when `fn` failed).
bool conj_fallback(FastcallFn fn, PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                   int writes, PyObject** result);

// The hand-written Python operators' operands: a conjugate view resolved, others as they are.
Tensor resolved_operand(const Tensor& t);
// dst.copy_(src) for a result computed on dst's resolved stand-in. A conjugate dst is written
// through its bitless view with conj(src): the same stored values, and autograd's view rules
// (CopySlices) see a plain view of the base, so gradients keep the conjugation.
void write_into(const Tensor& dst, const Tensor& src);

}  // namespace ember::python
