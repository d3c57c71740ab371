// Custom autograd Functions: the ctx object a user's forward/backward see is a
// Python subclass of _C._FunctionBase, and is also the graph node's Python face.
#include "../autograd/node.h"
#include "py_autograd.h"
#include "py_tensor.h"

namespace ember::python {

namespace {

struct PyFunctionObj {
  PyObject_HEAD Node* cdata;  // weak: the node owns this object and clears the pointer when it dies
  PyObject* dict;
};

PyTypeObject FunctionBaseType{PyVarObject_HEAD_INIT(nullptr, 0)};

// The graph node of a Python Function; calls ctx._do_backward(grads).
struct PyFunctionNode final : Node {
  PyObject* ctx;
  std::string fn_name;
  PyFunctionNode(PyObject* c, std::string n) : ctx(c), fn_name(std::move(n)) {
    Py_INCREF(ctx);
    reinterpret_cast<PyFunctionObj*>(ctx)->cdata = this;
  }
  ~PyFunctionNode() override {
    reinterpret_cast<PyFunctionObj*>(ctx)->cdata = nullptr;
    Py_DECREF(ctx);
  }
  const char* name() const override { return fn_name.c_str(); }
  PyObject* py_function() const override { return ctx; }
  TensorList apply(TensorList& grads) override {
    PyObject* g = PyTuple_New(static_cast<Py_ssize_t>(grads.size()));
    for (size_t i = 0; i < grads.size(); ++i) PyTuple_SET_ITEM(g, i, wrap(grads[i]));
    PyObject* r = PyObject_CallMethod(ctx, "_do_backward", "(O)", g);
    Py_DECREF(g);
    if (!r) throw python_error();
    TensorList out;
    PyObject* fast = PySequence_Fast(r, "backward");
    Py_DECREF(r);
    if (!fast) throw python_error();
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); ++i) {
      PyObject* o = PySequence_Fast_GET_ITEM(fast, i);
      out.push_back(is_tensor(o) ? unpack(o) : Tensor());
    }
    Py_DECREF(fast);
    return out;
  }
  void release_variables() override {
    PyObject* r = PyObject_CallMethod(ctx, "_release_saved", nullptr);
    if (!r) throw python_error();
    Py_DECREF(r);
  }
};

void fn_dealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  Py_CLEAR(reinterpret_cast<PyFunctionObj*>(self)->dict);
  Py_TYPE(self)->tp_free(self);
}
int fn_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(reinterpret_cast<PyFunctionObj*>(self)->dict);
  Py_VISIT(Py_TYPE(self));
  return 0;
}
int fn_clear(PyObject* self) {
  Py_CLEAR(reinterpret_cast<PyFunctionObj*>(self)->dict);
  return 0;
}

// _function_record(ctx, name, inputs, outputs, dirty, non_differentiable):
// attach a node for ctx as the creator of `outputs`.
PyObject* function_record(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(nargs == 6, "_function_record expects 6 arguments");
  PyObject* ctx = args[0];
  EMBER_CHECK_TYPE(PyObject_TypeCheck(ctx, &FunctionBaseType), "ctx must be a _FunctionBase");
  auto node = make_ref<PyFunctionNode>(ctx, PyUnicode_AsUTF8(args[1]));
  PyObject* inputs = args[2];
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(inputs); ++i) {
    PyObject* o = PyTuple_GET_ITEM(inputs, i);
    if (is_tensor(o)) node->add_next_edge(&unpack(o));
    else node->next_edges.emplace_back();
  }
  auto contains = [](PyObject* tup, PyObject* o) {
    for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(tup); ++j)
      if (PyTuple_GET_ITEM(tup, j) == o) return true;
    return false;
  };
  PyObject* outputs = args[3];
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(outputs); ++i) {
    PyObject* o = PyTuple_GET_ITEM(outputs, i);
    if (!is_tensor(o) || contains(args[5], o) || !is_floating_or_complex(unpack(o).dtype())) {
      node->add_input_meta_undefined();
      continue;
    }
    const Tensor& t = unpack(o);
    if (contains(args[4], o)) {  // modified in place (ctx.mark_dirty)
      check_inplace(t, true);
      rebase_history(t, node);
      continue;
    }
    set_history(t, node);
  }
  Py_RETURN_NONE;
  EMBER_PY_CATCH
}

PyMethodDef function_functions[] = {
    {"_function_record", (PyCFunction)(void (*)())function_record, METH_FASTCALL, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

Node* function_node_of(PyObject* ctx) {
  if (!PyObject_TypeCheck(ctx, &FunctionBaseType)) return nullptr;
  return reinterpret_cast<PyFunctionObj*>(ctx)->cdata;
}

void init_function(PyObject* module) {
  FunctionBaseType.tp_name = "torch._C._FunctionBase";
  FunctionBaseType.tp_basicsize = sizeof(PyFunctionObj);
  FunctionBaseType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC;
  FunctionBaseType.tp_dictoffset = offsetof(PyFunctionObj, dict);
  FunctionBaseType.tp_dealloc = fn_dealloc;
  FunctionBaseType.tp_traverse = fn_traverse;
  FunctionBaseType.tp_clear = fn_clear;
  FunctionBaseType.tp_new = PyType_GenericNew;
  FunctionBaseType.tp_methods = node_method_table();
  PyGetSetDef* gs = node_getset_table();  // next_functions (metadata comes from the instance dict)
  static PyGetSetDef fn_getset[] = {gs[0], {nullptr}};
  FunctionBaseType.tp_getset = fn_getset;
  if (PyType_Ready(&FunctionBaseType) < 0) throw python_error();
  Py_INCREF(&FunctionBaseType);
  PyModule_AddObject(module, "_FunctionBase", reinterpret_cast<PyObject*>(&FunctionBaseType));
  if (PyModule_AddFunctions(module, function_functions) < 0) throw python_error();
}

}  // namespace ember::python
