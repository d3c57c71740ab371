// Private bindings of the one-pass kernels behind ember's composite scans (_composite_scan.py keeps
// their autograd) and hash_tensor (_composite_hash.py): _C._xor_sum(x, dims, keepdim) -> the xor of
// the elements' 64-bit patterns (float64 / int64, viewed as uint64 by the caller), _C._cum_extreme(x, dim, greater) ->
// (values, int64 indices) of cummax (greater) / cummin, _C._logcumsumexp(x, dim) -> logcumsumexp's forward (no
// autograd: the composite keeps the graph).
#include "arg_parser.h"
#include "ops/core/xor_sum.h"
#include "ops/scan/cum_extreme.h"
#include "ops/scan/logcumsumexp.h"
#include "py_tensor.h"

namespace ember::python {

namespace {

PyObject* f_cum_extreme(PyObject*, PyObject* args) {
  EMBER_PY_TRY
  PyObject* x;
  long long dim = 0;
  int greater = 1;
  if (!PyArg_ParseTuple(args, "OLp:_cum_extreme", &x, &dim, &greater)) throw python_error();
  EMBER_CHECK_TYPE(is_tensor(x), "_cum_extreme(): argument 'x' must be Tensor, not ", Py_TYPE(x)->tp_name);
  auto [values, indices] = cum_extreme(unpack(x), dim, greater != 0);
  return Py_BuildValue("(NN)", wrap(values), wrap(indices));  // N: the tuple takes both references
  EMBER_PY_CATCH
}

PyObject* f_xor_sum(PyObject*, PyObject* args) {
  EMBER_PY_TRY
  PyObject *x, *dims;
  int keepdim = 0;
  if (!PyArg_ParseTuple(args, "OO!p:_xor_sum", &x, &PyTuple_Type, &dims, &keepdim)) throw python_error();
  EMBER_CHECK_TYPE(is_tensor(x), "_xor_sum(): argument 'x' must be Tensor, not ", Py_TYPE(x)->tp_name);
  DimVector d;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(dims); ++i) {
    const long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(dims, i));
    if (v == -1 && PyErr_Occurred()) throw python_error();
    d.push_back(v);
  }
  return wrap(xor_sum(unpack(x), IntArrayRef(d.data(), d.size()), keepdim != 0));
  EMBER_PY_CATCH
}

PyObject* f_logcumsumexp(PyObject*, PyObject* args) {
  EMBER_PY_TRY
  PyObject* x;
  long long dim = 0;
  if (!PyArg_ParseTuple(args, "OL:_logcumsumexp", &x, &dim)) throw python_error();
  EMBER_CHECK_TYPE(is_tensor(x), "_logcumsumexp(): argument 'x' must be Tensor, not ", Py_TYPE(x)->tp_name);
  return wrap(logcumsumexp_forward(unpack(x), dim));
  EMBER_PY_CATCH
}

PyMethodDef scan_functions[] = {
    {"_cum_extreme", (PyCFunction)(void (*)())f_cum_extreme, METH_VARARGS,
     "_cum_extreme(x, dim, greater) -> (Tensor, Tensor)\n\n"
     "The values and int64 indices of cummax (greater) or cummin along a wrapped dim, in one pass, without autograd."},
    {"_xor_sum", (PyCFunction)(void (*)())f_xor_sum, METH_VARARGS,
     "_xor_sum(x, dims, keepdim) -> Tensor\n\n"
     "hash_tensor's reduction: the xor of x's 64-bit patterns (float64 / int64) over dims, in one pass."},
    {"_logcumsumexp", (PyCFunction)(void (*)())f_logcumsumexp, METH_VARARGS,
     "_logcumsumexp(x, dim) -> Tensor\n\n"
     "logcumsumexp of a real floating x along a wrapped dim, in one pass, without autograd."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

}  // namespace ember::python

// Called from module.cpp (declared there at the call, so no shared header changes).
void ember_init_scan(PyObject* module) {
  if (PyModule_AddFunctions(module, ember::python::scan_functions) < 0) throw ember::python::python_error();
}
