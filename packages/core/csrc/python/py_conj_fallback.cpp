// PyTorch's conjugate fallback for the generated bindings (see py_conj_fallback.h).
#include "py_conj_fallback.h"

#include <vector>

#include "entry_ops.h"
#include "py_tensor.h"

namespace ember::python {

namespace {

// Set just before the fallback re-enters the binding: that call's arguments are resolved already
// (the flag is cleared by it at once, so ops it calls in turn are checked again).
thread_local bool t_resolved_call = false;

bool is_conj_tensor(PyObject* o) { return is_tensor(o) && unpack(o).impl()->conj; }

bool holds_conj(PyObject* o) {
  if (is_conj_tensor(o)) return true;
  if (PyList_Check(o) || PyTuple_Check(o)) {
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    for (Py_ssize_t i = 0; i < n; ++i)
      if (is_conj_tensor(PySequence_Fast_GET_ITEM(o, i))) return true;
  }
  return false;
}

// A new reference: o with its conjugate views resolved (o itself when it holds none).
PyObject* resolved(PyObject* o) {
  if (!holds_conj(o)) {
    Py_INCREF(o);
    return o;
  }
  if (is_tensor(o)) return wrap(entry::resolve_conj(unpack(o)));
  const bool list = PyList_Check(o);
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  PyObject* r = list ? PyList_New(n) : PyTuple_New(n);
  if (!r) throw python_error();
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* e = resolved(PySequence_Fast_GET_ITEM(o, i));
    if (list) PyList_SET_ITEM(r, i, e);
    else PyTuple_SET_ITEM(r, i, e);
  }
  return r;
}

struct Owned {
  std::vector<PyObject*> refs;
  ~Owned() {
    for (PyObject* o : refs) Py_XDECREF(o);
  }
};

// Copies what the op wrote into the resolved stand-in back into the conjugate view it replaced
// (copy_ into a conjugate view stores the conjugates). True when `orig` was replaced.
bool write_back(PyObject* orig, PyObject* res) {
  if (orig == res) return false;
  if (is_tensor(orig)) {
    write_into(unpack(orig), unpack(res));
    return true;
  }
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(orig);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *a = PySequence_Fast_GET_ITEM(orig, i), *b = PySequence_Fast_GET_ITEM(res, i);
    if (a != b && is_tensor(a)) write_into(unpack(a), unpack(b));
  }
  return false;  // a list of outs: the op's own result (its values are the same) is returned
}

}  // namespace

bool conj_fallback(FastcallFn fn, PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                   int writes, PyObject** result) {
  if (t_resolved_call) {
    t_resolved_call = false;
    return false;
  }
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  bool any = self && holds_conj(self);
  for (Py_ssize_t i = 0; i < nargs + nkw && !any; ++i) any = holds_conj(args[i]);
  if (!any) return false;
  Owned own;
  PyObject* self2 = self ? resolved(self) : nullptr;
  own.refs.push_back(self2);
  std::vector<PyObject*> args2(static_cast<size_t>(nargs + nkw));
  for (Py_ssize_t i = 0; i < nargs + nkw; ++i) {
    args2[i] = resolved(args[i]);
    own.refs.push_back(args2[i]);
  }
  t_resolved_call = true;
  PyObject* r = fn(self2, args2.data(), nargs, kwnames);
  t_resolved_call = false;
  *result = r;
  if (!r) return true;
  own.refs.push_back(r);  // released unless it is what the call returns
  PyObject* ret = r;
  if (writes == kWritesSelf && self && write_back(self, self2)) ret = self;
  if (writes == kWritesFirst && nargs > 0 && write_back(args[0], args2[0])) ret = args[0];
  for (Py_ssize_t i = 0; i < nkw; ++i)
    if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, i), "out") == 0 &&
        write_back(args[nargs + i], args2[nargs + i]))
      ret = args[nargs + i];
  Py_INCREF(ret);
  *result = ret;
  return true;
}

Tensor resolved_operand(const Tensor& t) { return t.impl()->conj ? entry::resolve_conj(t) : t; }

void write_into(const Tensor& dst, const Tensor& src) {
  if (dst.impl()->conj) entry::copy_(entry::conj_view(dst), entry::conj_physical(src), false);
  else entry::copy_(dst, src, false);
}

}  // namespace ember::python
