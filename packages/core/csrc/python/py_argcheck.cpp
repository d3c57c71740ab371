// Note [Checked Python functions]
// ember's pure-Python functions (nn.functional, einsum, ...) raise PyTorch's
// argument TypeErrors through one wrapper: `_C._checked(fn, name, spec, after)`
// checks the parameters the spec names (Tensor, optional Tensor, bool, ...) by a
// type compare each and vectorcalls fn with the same arguments. The spec comes
// from fn's annotations (ember/_argcheck.py). Messages are the binding parser's:
// "linear(): argument 'input' (position 1) must be Tensor, not NoneType".
//
// Two orders, as PyTorch has two kinds of function. Its C functions parse every
// argument first (after=false: check, then call). Its Python functions
// (torch.nn.functional) validate values first and meet the parser later, so a bad
// p wins over a bad flag (after=true: call first; when fn raised AttributeError or
// TypeError, or returned, a wrong-typed argument becomes the TypeError, chained
// to what fn raised; fn's other errors stand).
#include <string>

#include "arg_parser.h"
#include "py_tensor.h"
#include "py_torch_function.h"

#include <structmember.h>  // after Python.h

namespace ember::python {

namespace {

enum class Want : uint8_t { Tensor, OptTensor, Bool, OptBool, TensorVarargs };

struct CheckedParam {
  Py_ssize_t pos;  // index among the positional parameters; -1 for keyword-only
  PyObject* name;  // interned
  Want want;
};

constexpr int kMaxChecked = 16;

struct PyChecked {
  PyObject_HEAD vectorcallfunc vectorcall;
  PyObject* fn;
  PyObject* name;  // the function name messages use
  PyObject* dict;  // __dict__: lets the wrapper take attributes like a function
  bool after;      // check after the call (PyTorch's Python functions), not before
  int n;
  CheckedParam params[kMaxChecked];
};

PyTypeObject CheckedType = {PyVarObject_HEAD_INIT(nullptr, 0)};

bool ok_for(Want w, PyObject* o) {
  switch (w) {
    case Want::Tensor:
    case Want::TensorVarargs:
      return is_tensor(o);
    case Want::OptTensor:
      return o == Py_None || is_tensor(o);
    case Want::Bool:
      return PyBool_Check(o);
    case Want::OptBool:
      return o == Py_None || PyBool_Check(o);
  }
  return true;
}

const char* label(Want w) { return w == Want::Bool || w == Want::OptBool ? "bool" : "Tensor"; }

std::string type_name(PyObject* o) { return is_tensor(o) ? "Tensor" : Py_TYPE(o)->tp_name; }

// The keyword argument named `name` (interned), or null. Call sites pass interned
// names, so a pointer compare decides; only a non-interned key is compared by value.
PyObject* find_kw(PyObject* const* kwvalues, PyObject* kwnames, PyObject* name) {
  Py_ssize_t n = PyTuple_GET_SIZE(kwnames);
  for (Py_ssize_t j = 0; j < n; ++j)
    if (PyTuple_GET_ITEM(kwnames, j) == name) return kwvalues[j];
  for (Py_ssize_t j = 0; j < n; ++j) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, j);
    if (!PyUnicode_CHECK_INTERNED(key) && PyUnicode_Compare(key, name) == 0) return kwvalues[j];
  }
  return nullptr;
}

bool fail(PyChecked* c, const CheckedParam& p, PyObject* o, Py_ssize_t position) {
  std::string msg = std::string(PyUnicode_AsUTF8(c->name)) + "(): argument '" + PyUnicode_AsUTF8(p.name) + "'";
  if (p.want == Want::TensorVarargs) {  // PyTorch's words for a bad element of a tensor list
    msg = "expected Tensor as element " + std::to_string(position - p.pos) + " in argument " + std::to_string(p.pos) +
          ", but got " + type_name(o);
  } else {
    if (position >= 0) msg += " (position " + std::to_string(position + 1) + ")";
    msg += std::string(" must be ") + label(p.want) + ", not " + type_name(o);
  }
  PyErr_SetString(PyExc_TypeError, msg.c_str());
  return false;
}

// Sets the TypeError for the first wrong-typed argument and returns false; true if all fit.
bool check_args(PyChecked* c, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  for (int i = 0; i < c->n; ++i) {
    const CheckedParam& p = c->params[i];
    if (p.want == Want::TensorVarargs) {
      for (Py_ssize_t j = p.pos; j < nargs; ++j)
        if (!is_tensor(args[j])) return fail(c, p, args[j], j);
      continue;
    }
    PyObject* o = nullptr;
    Py_ssize_t position = -1;
    if (p.pos >= 0 && p.pos < nargs) {
      o = args[p.pos];
      position = p.pos;
    } else if (kwnames) {
      o = find_kw(args + nargs, kwnames, p.name);
    }
    if (o && !ok_for(p.want, o)) return fail(c, p, o, position);
  }
  return true;
}

PyObject* checked_call(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* c = reinterpret_cast<PyChecked*>(self);
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  PyObject* tf_r;  // __torch_function__: the wrapper is the public function it receives
  if (g_torch_function_state && torch_function_call(self, args, nargs, kwnames, false, &tf_r)) [[unlikely]]
    return tf_r;
  if (!c->after) {
    if (check_args(c, args, nargs, kwnames)) return PyObject_Vectorcall(c->fn, args, nargsf, kwnames);
    return torch_function_call(self, args, nargs, kwnames, true, &tf_r) ? tf_r : nullptr;
  }
  PyObject* r = PyObject_Vectorcall(c->fn, args, nargsf, kwnames);
  if (r) {
    if (check_args(c, args, nargs, kwnames)) return r;
    Py_DECREF(r);
    return torch_function_call(self, args, nargs, kwnames, true, &tf_r) ? tf_r : nullptr;
  }
  if (!PyErr_ExceptionMatches(PyExc_AttributeError) && !PyErr_ExceptionMatches(PyExc_TypeError)) return nullptr;
  if (torch_function_call(self, args, nargs, kwnames, true, &tf_r)) return tf_r;  // a duck type broke fn
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);  // may run Python code: no error may be set meanwhile
  if (check_args(c, args, nargs, kwnames)) {
    PyErr_Restore(type, value, tb);  // the arguments fit: fn's own error stands
    return nullptr;
  }
  // raise TypeError(...) from the original error
  if (tb) PyException_SetTraceback(value, tb);
  Py_XDECREF(type);
  Py_XDECREF(tb);
  PyObject *type2, *value2, *tb2;
  PyErr_Fetch(&type2, &value2, &tb2);
  PyErr_NormalizeException(&type2, &value2, &tb2);
  PyException_SetCause(value2, value);  // steals value
  PyErr_Restore(type2, value2, tb2);
  return nullptr;
}

void checked_dealloc(PyObject* self) {
  auto* c = reinterpret_cast<PyChecked*>(self);
  PyObject_GC_UnTrack(self);
  Py_CLEAR(c->fn);
  Py_CLEAR(c->name);
  Py_CLEAR(c->dict);
  for (int i = 0; i < c->n; ++i) Py_CLEAR(c->params[i].name);
  Py_TYPE(self)->tp_free(self);
}

int checked_traverse(PyObject* self, visitproc visit, void* arg) {
  auto* c = reinterpret_cast<PyChecked*>(self);
  Py_VISIT(c->fn);
  Py_VISIT(c->dict);
  return 0;
}

int checked_clear(PyObject* self) {
  auto* c = reinterpret_cast<PyChecked*>(self);
  Py_CLEAR(c->fn);
  Py_CLEAR(c->dict);
  return 0;
}

// Attributes the wrapper lacks (__name__, __doc__, __module__, __defaults__, ...)
// are the function's, so it reads like the function it wraps.
PyObject* checked_getattro(PyObject* self, PyObject* name) {
  PyObject* r = PyObject_GenericGetAttr(self, name);
  if (r || !PyErr_ExceptionMatches(PyExc_AttributeError)) return r;
  PyErr_Clear();
  return PyObject_GetAttr(reinterpret_cast<PyChecked*>(self)->fn, name);
}

// Stored in a class, it binds like a function does.
PyObject* checked_descr_get(PyObject* self, PyObject* obj, PyObject*) {
  if (!obj || obj == Py_None) {
    Py_INCREF(self);
    return self;
  }
  return PyMethod_New(self, obj);
}

PyObject* checked_repr(PyObject* self) { return PyObject_Repr(reinterpret_cast<PyChecked*>(self)->fn); }

// Pickled by reference, as functions are: the attribute of this name in __module__.
PyObject* checked_reduce(PyObject* self, PyObject*) { return PyObject_GetAttrString(self, "__qualname__"); }

PyMethodDef checked_methods[] = {{"__reduce__", checked_reduce, METH_NOARGS, nullptr}, {nullptr, nullptr, 0, nullptr}};

PyMemberDef checked_members[] = {{"__wrapped__", T_OBJECT, offsetof(PyChecked, fn), READONLY, nullptr},
                                 {nullptr, 0, 0, 0, nullptr}};

// The type's own __doc__ and __module__ would shadow the function's.
PyObject* checked_doc(PyObject* self, void*) {
  return PyObject_GetAttrString(reinterpret_cast<PyChecked*>(self)->fn, "__doc__");
}
// __module__ is where the wrapper is exported (set by ember._argcheck.check_names), which pickle
// uses to find it again; until set, the function's.
PyObject* checked_module(PyObject* self, void*) {
  auto* c = reinterpret_cast<PyChecked*>(self);
  PyObject* m = c->dict ? PyDict_GetItemString(c->dict, "__module__") : nullptr;
  if (m) {
    Py_INCREF(m);
    return m;
  }
  return PyObject_GetAttrString(c->fn, "__module__");
}
int checked_set_module(PyObject* self, PyObject* value, void*) {
  auto* c = reinterpret_cast<PyChecked*>(self);
  if (!c->dict && !(c->dict = PyDict_New())) return -1;
  return value ? PyDict_SetItemString(c->dict, "__module__", value) : PyDict_DelItemString(c->dict, "__module__");
}

PyGetSetDef checked_getset[] = {{"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, nullptr, nullptr},
                                {"__doc__", checked_doc, nullptr, nullptr, nullptr},
                                {"__module__", checked_module, checked_set_module, nullptr, nullptr},
                                {nullptr, nullptr, nullptr, nullptr, nullptr}};

// _checked(fn, name, spec, after): spec is a tuple of (position or -1, parameter name, kind),
// kind one of "Tensor", "Tensor?", "bool", "bool?", "*Tensor" (every positional from position on).
PyObject* make_checked(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(nargs == 4 && PyCallable_Check(args[0]) && PyUnicode_Check(args[1]) && PyTuple_Check(args[2]),
                   "_checked(fn, name, spec, after): expected a callable, a str, a tuple and a bool");
  Py_ssize_t n = PyTuple_GET_SIZE(args[2]);
  EMBER_CHECK_TYPE(n <= kMaxChecked, "_checked: at most ", kMaxChecked, " checked parameters, got ", n);
  auto* c = PyObject_GC_New(PyChecked, &CheckedType);
  if (!c) throw python_error();
  c->vectorcall = checked_call;
  c->after = PyObject_IsTrue(args[3]) == 1;
  c->n = 0;
  c->dict = nullptr;
  Py_INCREF(args[0]);
  c->fn = args[0];
  Py_INCREF(args[1]);
  c->name = args[1];
  PyObject* obj = reinterpret_cast<PyObject*>(c);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PyTuple_GET_ITEM(args[2], i);
    PyObject *pname = nullptr, *kind = nullptr;
    Py_ssize_t pos = -1;
    if (!PyArg_ParseTuple(item, "nUU", &pos, &pname, &kind)) {
      Py_DECREF(obj);
      throw python_error();
    }
    std::string k = PyUnicode_AsUTF8(kind);
    Want w = k == "Tensor"    ? Want::Tensor
             : k == "Tensor?" ? Want::OptTensor
             : k == "bool"    ? Want::Bool
             : k == "bool?"   ? Want::OptBool
                              : Want::TensorVarargs;
    if (w == Want::TensorVarargs && k != "*Tensor") {
      Py_DECREF(obj);
      fail(ErrorKind::Type, "_checked: unknown kind '", k, "'");
    }
    Py_INCREF(pname);
    PyUnicode_InternInPlace(&pname);
    c->params[c->n++] = CheckedParam{pos, pname, w};
  }
  PyObject_GC_Track(obj);
  return obj;
  EMBER_PY_CATCH
}

PyMethodDef argcheck_functions[] = {
    {"_checked", (PyCFunction)(void (*)())make_checked, METH_FASTCALL,
     "_checked(fn, name, spec, after) -> fn with PyTorch's argument TypeErrors (see ember/_argcheck.py)."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

void init_argcheck(PyObject* module) {
  CheckedType.tp_name = "ember._C._CheckedFunction";
  CheckedType.tp_basicsize = sizeof(PyChecked);
  CheckedType.tp_flags =
      Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR;
  CheckedType.tp_vectorcall_offset = offsetof(PyChecked, vectorcall);
  CheckedType.tp_call = PyVectorcall_Call;
  CheckedType.tp_dealloc = checked_dealloc;
  CheckedType.tp_traverse = checked_traverse;
  CheckedType.tp_clear = checked_clear;
  CheckedType.tp_getattro = checked_getattro;
  CheckedType.tp_descr_get = checked_descr_get;
  CheckedType.tp_repr = checked_repr;
  CheckedType.tp_methods = checked_methods;
  CheckedType.tp_members = checked_members;
  CheckedType.tp_getset = checked_getset;
  CheckedType.tp_dictoffset = offsetof(PyChecked, dict);
  if (PyType_Ready(&CheckedType) < 0) throw python_error();
  if (PyModule_AddFunctions(module, argcheck_functions) < 0) throw python_error();
}

}  // namespace ember::python
