// Hand-written bindings of the index ops whose schemas the generator cannot
// express: index_put(_)'s `Tensor?[] indices`. Tensor methods are exported in
// `_C._index_methods` for the Tensor class to mix in.
#include "../autograd/formulas_index.h"
#include "arg_parser.h"
#include "ops.h"
#include "ops/index/index_advanced.h"
#include "py_profiler.h"
#include "py_tensor.h"
#include "py_types.h"

namespace ember::python {

namespace {

// A tuple/list of tensors or None (PyTorch's `Tensor?[]`).
IndexList index_list_arg(PyObject* o, const char* name) {
  EMBER_CHECK_TYPE(PyTuple_Check(o) || PyList_Check(o), name, "(): argument 'indices' must be tuple of Tensors, not ",
                   Py_TYPE(o)->tp_name);
  IndexList r;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  PyObject** items = PySequence_Fast_ITEMS(o);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (items[i] == Py_None) {
      r.emplace_back();
      continue;
    }
    EMBER_CHECK_TYPE(is_tensor(items[i]), name,
                     "(): argument 'indices' must be tuple of Tensors, but found element "
                     "of type ",
                     Py_TYPE(items[i])->tp_name, " at pos ", i);
    r.push_back(unpack(items[i]));
  }
  return r;
}

// (self, indices, values, accumulate=False) from a call, self given or first.
struct PutArgs {
  Tensor self, values;
  IndexList indices;
  bool accumulate = false;
};

PutArgs parse_put(const char* name, PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* fn_kw[] = {"input", "indices", "values", "accumulate", nullptr};
  static const char* m_kw[] = {"indices", "values", "accumulate", nullptr};
  PyObject *input = self, *indices = nullptr, *values = nullptr, *accumulate = nullptr;
  std::string fmt = std::string(self ? "OO|O:" : "OOO|O:") + name;
  bool ok = self ? PyArg_ParseTupleAndKeywords(args, kwargs, fmt.c_str(), const_cast<char**>(m_kw), &indices, &values,
                                               &accumulate)
                 : PyArg_ParseTupleAndKeywords(args, kwargs, fmt.c_str(), const_cast<char**>(fn_kw), &input, &indices,
                                               &values, &accumulate);
  if (!ok) throw python_error();
  // accumulate's position in the message counts the arguments after self, as PyTorch's parser does.
  Py_ssize_t npos = PyTuple_GET_SIZE(args);
  int acc_pos = npos == (self ? 3 : 4) ? static_cast<int>(npos) : -1;
  EMBER_CHECK_TYPE(is_tensor(input), name, "(): argument 'input' must be Tensor, not ", Py_TYPE(input)->tp_name);
  EMBER_CHECK_TYPE(is_tensor(values), name, "(): argument 'values' must be Tensor, not ", Py_TYPE(values)->tp_name);
  PutArgs a;
  a.self = unpack(input);
  a.values = unpack(values);
  a.indices = index_list_arg(indices, name);
  a.accumulate = bool_arg(accumulate, false, name, "accumulate", acc_pos);
  return a;
}

PyObject* f_index_put(PyObject*, PyObject* args, PyObject* kwargs) {
  EMBER_PY_TRY
  PutArgs a = parse_put("index_put", nullptr, args, kwargs);
  return wrap(ag::index_put(a.self, a.indices, a.values, a.accumulate));
  EMBER_PY_CATCH
}

PyObject* m_index_put(PyObject* self, PyObject* args, PyObject* kwargs) {
  EMBER_PY_TRY
  PutArgs a = parse_put("index_put", self, args, kwargs);
  return wrap(ag::index_put(a.self, a.indices, a.values, a.accumulate));
  EMBER_PY_CATCH
}

PyObject* m_index_put_(PyObject* self, PyObject* args, PyObject* kwargs) {
  EMBER_PY_TRY
  PutArgs a = parse_put("index_put_", self, args, kwargs);
  ag::index_put_(a.self, a.indices, a.values, a.accumulate);
  Py_INCREF(self);
  return self;
  EMBER_PY_CATCH
}

// unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None) and
// unique_consecutive(input, return_inverse=False, return_counts=False, dim=None): a
// tensor, or a tuple with the inverse and/or counts asked for.
PyObject* unique_call(PyObject* self, PyObject* args, PyObject* kwargs, bool consecutive) {
  static const char* fn_kw[] = {"input", "sorted", "return_inverse", "return_counts", "dim", nullptr};
  static const char* fn_kw_c[] = {"input", "return_inverse", "return_counts", "dim", nullptr};
  PyObject* input = self;
  PyObject* dim_obj = Py_None;
  PyObject *sorted_obj = nullptr, *inverse_obj = nullptr, *counts_obj = nullptr;
  const char* const* kw = consecutive ? fn_kw_c : fn_kw;
  if (self) ++kw;  // methods take no `input`
  std::string fmt = consecutive ? "|OOO" : "|OOOO";
  if (!self) fmt = "O" + fmt;
  fmt += consecutive ? ":unique_consecutive" : ":unique";
  bool ok;
  char** k = const_cast<char**>(kw);
  if (consecutive)
    ok = self ? PyArg_ParseTupleAndKeywords(args, kwargs, fmt.c_str(), k, &inverse_obj, &counts_obj, &dim_obj)
              : PyArg_ParseTupleAndKeywords(args, kwargs, fmt.c_str(), k, &input, &inverse_obj, &counts_obj, &dim_obj);
  else
    ok = self ? PyArg_ParseTupleAndKeywords(args, kwargs, fmt.c_str(), k, &sorted_obj, &inverse_obj, &counts_obj,
                                            &dim_obj)
              : PyArg_ParseTupleAndKeywords(args, kwargs, fmt.c_str(), k, &input, &sorted_obj, &inverse_obj,
                                            &counts_obj, &dim_obj);
  if (!ok) throw python_error();
  // PyTorch's unique is Python calling _unique2 / unique_dim / unique_consecutive by keyword:
  // their names (and no positions) are in its messages.
  const char* op = consecutive ? "unique_consecutive" : dim_obj != Py_None ? "unique_dim" : "_unique2";
  EMBER_CHECK_TYPE(is_tensor(input), op, "(): argument 'input' (position 1) must be Tensor, not ",
                   Py_TYPE(input)->tp_name);
  std::optional<int64_t> dim;
  if (dim_obj != Py_None) {
    EMBER_CHECK_TYPE(is_int_like(dim_obj) && !PyBool_Check(dim_obj), op, "(): argument 'dim' must be int, not ",
                     Py_TYPE(dim_obj)->tp_name);
    dim = to_int64(dim_obj);
  }
  bool_arg(sorted_obj, true, op, "sorted");  // sorted=False still returns sorted values on CPU, like PyTorch
  bool inverse = bool_arg(inverse_obj, false, op, "return_inverse");
  bool counts = bool_arg(counts_obj, false, op, "return_counts");
  const Tensor& in = unpack(input);
  // torch's op names: _unique2, unique_dim, unique_consecutive
  OpScope prof_(consecutive ? "aten::unique_consecutive" : dim ? "aten::unique_dim" : "aten::_unique2", {&in});
  auto [values, inv, cnt] = unique_impl(in, dim, consecutive);
  if (!inverse && !counts) return wrap(values);
  PyObject* t = PyTuple_New(1 + inverse + counts);
  if (!t) throw python_error();
  int i = 0;
  PyTuple_SET_ITEM(t, i++, wrap(values));
  if (inverse) PyTuple_SET_ITEM(t, i++, wrap(inv));
  if (counts) PyTuple_SET_ITEM(t, i++, wrap(cnt));
  return t;
}

PyObject* f_unique(PyObject*, PyObject* args, PyObject* kwargs) {
  EMBER_PY_TRY
  return unique_call(nullptr, args, kwargs, false);
  EMBER_PY_CATCH
}
PyObject* m_unique(PyObject* self, PyObject* args, PyObject* kwargs) {
  EMBER_PY_TRY
  return unique_call(self, args, kwargs, false);
  EMBER_PY_CATCH
}
PyObject* f_unique_consecutive(PyObject*, PyObject* args, PyObject* kwargs) {
  EMBER_PY_TRY
  return unique_call(nullptr, args, kwargs, true);
  EMBER_PY_CATCH
}
PyObject* m_unique_consecutive(PyObject* self, PyObject* args, PyObject* kwargs) {
  EMBER_PY_TRY
  return unique_call(self, args, kwargs, true);
  EMBER_PY_CATCH
}

#define KW METH_VARARGS | METH_KEYWORDS
// Docs: docs_ops/bindings.yaml (document_bindings, at set-up).
#define DEF(name, fn, doc) {name, (PyCFunction)(void (*)())fn, KW, doc}

PyMethodDef index_functions[] = {DEF("index_put", f_index_put, nullptr),
                                 DEF("unique", f_unique, nullptr),
                                 DEF("unique_consecutive", f_unique_consecutive, nullptr),
                                 {nullptr, nullptr, 0, nullptr}};

PyMethodDef index_methods[] = {DEF("index_put", m_index_put, nullptr),
                               DEF("index_put_", m_index_put_, nullptr),
                               DEF("unique", m_unique, nullptr),
                               DEF("unique_consecutive", m_unique_consecutive, nullptr),
                               {nullptr, nullptr, 0, nullptr}};

}  // namespace

void init_argcheck(PyObject* module);  // py_argcheck.cpp: _C._checked, set up with the hand-bound functions

void init_index_ops(PyObject* module) {
  init_argcheck(module);
  document_bindings(index_functions, false);
  document_bindings(index_methods, true);
  if (PyModule_AddFunctions(module, index_functions) < 0) throw python_error();
  PyObject* methods = PyDict_New();
  if (!methods) throw python_error();
  for (PyMethodDef* d = index_methods; d->ml_name; ++d) {
    PyObject* descr = PyDescr_NewMethod(TensorBaseType, d);
    if (!descr || PyDict_SetItemString(methods, d->ml_name, descr) < 0) throw python_error();
    Py_DECREF(descr);
  }
  if (PyModule_AddObject(module, "_index_methods", methods) < 0) throw python_error();
}

}  // namespace ember::python
