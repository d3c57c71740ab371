// Python face of the autograd engine: graph nodes as Python objects
// (`AddBackward0`, with next_functions and hooks), hook adapters, custom
// Function nodes, the backward entry point and the grad-mode switches.
#include "py_autograd.h"
#include "../autograd/engine.h"
#include "../autograd/node.h"
#include "arg_parser.h"
#include "py_profiler.h"
#include "py_tensor.h"
#include "py_torch_function.h"
#include "py_types.h"

#include <unordered_map>

namespace ember::python {

namespace {

// ---------------------------------------------------------------- hook adapters

PyObject* tensors_tuple(const TensorList& ts) {
  PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(ts.size()));
  for (size_t i = 0; i < ts.size(); ++i) PyTuple_SET_ITEM(t, i, wrap(ts[i]));
  return t;
}

TensorList tuple_tensors(PyObject* r, size_t expect, const char* what) {
  PyObject* fast = PySequence_Fast(r, what);
  if (!fast) throw python_error();
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  TensorList out;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* o = PySequence_Fast_GET_ITEM(fast, i);
    if (o == Py_None) out.emplace_back();
    else if (is_tensor(o)) out.push_back(unpack(o));
    else {
      Py_DECREF(fast);
      fail(ErrorKind::Type, what, " must return a tuple of Tensors or None, got ", Py_TYPE(o)->tp_name);
    }
  }
  Py_DECREF(fast);
  EMBER_CHECK(expect == SIZE_MAX || out.size() == expect, what, " returned ", out.size(), " values, expected ", expect);
  return out;
}

struct PyObj {
  PyObject* o;
  explicit PyObj(PyObject* p) : o(p) { Py_INCREF(o); }
  ~PyObj() { Py_XDECREF(o); }
};

struct PyTensorHook final : TensorHook {
  PyObj fn;
  explicit PyTensorHook(PyObject* f) : fn(f) {}
  Tensor call(const Tensor& grad) override {
    PyObject* g = wrap(grad);
    PyObject* r = PyObject_CallOneArg(fn.o, g);
    Py_DECREF(g);
    if (!r) throw python_error();
    Tensor out;
    if (r != Py_None) {
      if (!is_tensor(r)) {
        Py_DECREF(r);
        fail(ErrorKind::Type, "hook must return a Tensor or None");
      }
      out = unpack(r);
    }
    Py_DECREF(r);
    return out;
  }
};

struct PyPreHook final : PreHook {
  PyObj fn;
  explicit PyPreHook(PyObject* f) : fn(f) {}
  TensorList call(const TensorList& grads) override {
    PyObject* g = tensors_tuple(grads);
    PyObject* r = PyObject_CallOneArg(fn.o, g);
    Py_DECREF(g);
    if (!r) throw python_error();
    TensorList out;
    if (r != Py_None) out = tuple_tensors(r, grads.size(), "hook");
    Py_DECREF(r);
    return out;
  }
};

struct PyPostHook final : PostHook {
  PyObj fn;
  explicit PyPostHook(PyObject* f) : fn(f) {}
  TensorList call(const TensorList& grad_inputs, const TensorList& grad_outputs) override {
    PyObject* gi = tensors_tuple(grad_inputs);
    PyObject* go = tensors_tuple(grad_outputs);
    PyObject* r = PyObject_CallFunctionObjArgs(fn.o, gi, go, nullptr);
    Py_DECREF(gi);
    Py_DECREF(go);
    if (!r) throw python_error();
    TensorList out;
    if (r != Py_None) out = tuple_tensors(r, grad_inputs.size(), "hook");
    Py_DECREF(r);
    return out;
  }
};

int64_t g_next_hook_id = 0;

// ---------------------------------------------------------------- hook handles

// A handle whose remove() unregisters one hook (torch.utils.hooks.RemovableHandle).
struct PyHookHandle {
  PyObject_HEAD Ref<Node> node;  // node hooks and non-leaf tensor hooks
  Ref<TensorImpl> leaf;          // leaf tensor hooks
  int64_t id;
  int kind;  // 0 tensor, 1 post-acc, 2 node pre, 3 node post
};

template <class V>
void erase_id(V& v, int64_t id) {
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (std::get<0>(*it) == id) {
      v.erase(it);
      return;
    }
  }
}

PyObject* handle_remove(PyObject* self, PyObject*) {
  auto* h = reinterpret_cast<PyHookHandle*>(self);
  if (h->leaf && h->leaf->autograd) {
    erase_id(h->kind == 1 ? h->leaf->autograd->post_acc_hooks : h->leaf->autograd->hooks, h->id);
  } else if (h->node) {
    if (h->kind == 0) erase_id(h->node->tensor_hooks, h->id);
    if (h->kind == 2) erase_id(h->node->pre_hooks, h->id);
    if (h->kind == 3) erase_id(h->node->post_hooks, h->id);
  }
  Py_RETURN_NONE;
}
PyObject* handle_enter(PyObject* self, PyObject*) {
  Py_INCREF(self);
  return self;
}
PyObject* handle_exit(PyObject* self, PyObject*) { return handle_remove(self, nullptr); }
PyObject* handle_id(PyObject* self, void*) { return PyLong_FromLongLong(reinterpret_cast<PyHookHandle*>(self)->id); }

void handle_dealloc(PyObject* self) {
  auto* h = reinterpret_cast<PyHookHandle*>(self);
  h->node.~Ref<Node>();
  h->leaf.~Ref<TensorImpl>();
  Py_TYPE(self)->tp_free(self);
}

PyMethodDef handle_methods[] = {{"remove", handle_remove, METH_NOARGS, nullptr},
                                {"__enter__", handle_enter, METH_NOARGS, nullptr},
                                {"__exit__", handle_exit, METH_VARARGS, nullptr},
                                {nullptr, nullptr, 0, nullptr}};
PyGetSetDef handle_getset[] = {{"id", handle_id, nullptr, nullptr, nullptr}, {nullptr}};

PyTypeObject HookHandleType = [] {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "torch.utils.hooks.RemovableHandle";
  t.tp_basicsize = sizeof(PyHookHandle);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_dealloc = handle_dealloc;
  t.tp_methods = handle_methods;
  t.tp_getset = handle_getset;
  return t;
}();

PyObject* new_handle(Ref<Node> node, Ref<TensorImpl> leaf, int64_t id, int kind) {
  auto* h = PyObject_New(PyHookHandle, &HookHandleType);
  if (!h) throw python_error();
  new (&h->node) Ref<Node>(std::move(node));
  new (&h->leaf) Ref<TensorImpl>(std::move(leaf));
  h->id = id;
  h->kind = kind;
  return reinterpret_cast<PyObject*>(h);
}

// ---------------------------------------------------------------- node objects

struct PyNodeObj {
  PyObject_HEAD Ref<Node> node;
  PyObject* metadata;
};

PyTypeObject NodeBaseType{PyVarObject_HEAD_INIT(nullptr, 0)};
std::unordered_map<std::string, PyTypeObject*> g_node_types;

Node* node_of(PyObject* self) {
  if (PyObject_TypeCheck(self, &NodeBaseType)) return reinterpret_cast<PyNodeObj*>(self)->node.get();
  return function_node_of(self);
}

void node_dealloc(PyObject* self) {
  auto* n = reinterpret_cast<PyNodeObj*>(self);
  if (n->node && n->node->pyobj == self) n->node->pyobj = nullptr;
  n->node.~Ref<Node>();
  Py_XDECREF(n->metadata);
  PyTypeObject* tp = Py_TYPE(self);
  tp->tp_free(self);
  Py_DECREF(tp);
}

PyTypeObject* node_type(const char* name) {
  auto it = g_node_types.find(name);
  if (it != g_node_types.end()) return it->second;
  // PyType_Spec keeps the pointer; a dotted name gives the type its __module__.
  static std::vector<std::string> names;
  std::string short_name(name);
  if (short_name.rfind("torch::autograd::", 0) == 0) short_name = short_name.substr(17);  // class name
  names.emplace_back(std::string("torch.autograd.graph.") + short_name);
  PyType_Slot slots[] = {{Py_tp_dealloc, reinterpret_cast<void*>(node_dealloc)}, {0, nullptr}};
  PyType_Spec spec{names.back().c_str(), sizeof(PyNodeObj), 0, Py_TPFLAGS_DEFAULT, slots};
  PyObject* bases = PyTuple_Pack(1, reinterpret_cast<PyObject*>(&NodeBaseType));
  PyObject* tp = PyType_FromSpecWithBases(&spec, bases);
  Py_DECREF(bases);
  if (!tp) throw python_error();
  g_node_types[name] = reinterpret_cast<PyTypeObject*>(tp);
  return reinterpret_cast<PyTypeObject*>(tp);
}

PyObject* node_name(PyObject* self, PyObject*) {
  Node* n = node_of(self);
  return PyUnicode_FromString(n ? n->name() : "");
}

PyObject* node_next_functions(PyObject* self, void*) {
  EMBER_PY_TRY
  Node* n = node_of(self);
  if (!n) return PyTuple_New(0);
  PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(n->next_edges.size()));
  for (size_t i = 0; i < n->next_edges.size(); ++i) {
    const Edge& e = n->next_edges[i];
    PyObject* fn = e.fn ? wrap_node(e.fn) : (Py_INCREF(Py_None), Py_None);
    PyTuple_SET_ITEM(t, i, Py_BuildValue("(NI)", fn, e.input_nr));
  }
  return t;
  EMBER_PY_CATCH
}

PyObject* node_metadata(PyObject* self, void*) {
  auto* n = reinterpret_cast<PyNodeObj*>(self);
  if (!n->metadata) n->metadata = PyDict_New();
  Py_INCREF(n->metadata);
  return n->metadata;
}

PyObject* node_register_hook_impl(Node* n, PyObject* fn, bool pre) {
  EMBER_CHECK(n, "the graph node this hook belongs to has been freed");
  EMBER_CHECK_TYPE(PyCallable_Check(fn), "hook must be callable");
  int64_t id = ++g_next_hook_id;
  if (pre) n->pre_hooks.emplace_back(id, make_ref<PyPreHook>(fn));
  else n->post_hooks.emplace_back(id, make_ref<PyPostHook>(fn));
  return new_handle(Ref<Node>(n), {}, id, pre ? 2 : 3);
}

PyObject* node_register_hook(PyObject* self, PyObject* fn) {
  EMBER_PY_TRY
  return node_register_hook_impl(node_of(self), fn, false);
  EMBER_PY_CATCH
}
PyObject* node_register_prehook(PyObject* self, PyObject* fn) {
  EMBER_PY_TRY
  return node_register_hook_impl(node_of(self), fn, true);
  EMBER_PY_CATCH
}

PyObject* node_repr(PyObject* self) {
  return PyUnicode_FromFormat("<%s object at %p>", _PyType_Name(Py_TYPE(self)), self);
}

// AccumulateGrad.variable: the leaf it accumulates into (the grad-accumulator hook idiom reads it);
// other nodes have no such attribute.
PyObject* node_variable(PyObject* self, void*) {
  EMBER_PY_TRY
  auto* acc = dynamic_cast<AccumulateGrad*>(node_of(self));
  if (!acc) {
    PyErr_Format(PyExc_AttributeError, "'%s' object has no attribute 'variable'", _PyType_Name(Py_TYPE(self)));
    return nullptr;
  }
  return wrap(acc->variable);
  EMBER_PY_CATCH
}

PyMethodDef node_methods[] = {{"name", node_name, METH_NOARGS, nullptr},
                              {"register_hook", node_register_hook, METH_O, nullptr},
                              {"register_prehook", node_register_prehook, METH_O, nullptr},
                              {nullptr, nullptr, 0, nullptr}};
PyGetSetDef node_getset[] = {{"next_functions", node_next_functions, nullptr, nullptr, nullptr},
                             {"metadata", node_metadata, nullptr, nullptr, nullptr},
                             {"variable", node_variable, nullptr, nullptr, nullptr},
                             {nullptr}};

// ---------------------------------------------------------------- engine entry

TensorList tensor_seq(PyObject* seq, const char* what, bool allow_none) {
  PyObject* fast = PySequence_Fast(seq, what);
  if (!fast) throw python_error();
  TensorList out;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); ++i) {
    PyObject* o = PySequence_Fast_GET_ITEM(fast, i);
    if (allow_none && o == Py_None) out.emplace_back();
    else if (is_tensor(o)) out.push_back(unpack(o));
    else {
      Py_DECREF(fast);
      fail(ErrorKind::Type, what, ": expected a Tensor, got ", Py_TYPE(o)->tp_name);
    }
  }
  Py_DECREF(fast);
  return out;
}

// _run_backward(tensors, grads, keep_graph, create_graph, inputs, allow_unused, accumulate_grad)
PyObject* run_backward_py(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(nargs == 7, "_run_backward expects 7 arguments");
  BackwardArgs a;
  a.roots = tensor_seq(args[0], "tensors", false);
  a.root_grads = tensor_seq(args[1], "grad_tensors", false);
  a.keep_graph = PyObject_IsTrue(args[2]);
  a.create_graph = PyObject_IsTrue(args[3]);
  a.inputs = tensor_seq(args[4], "inputs", false);
  a.allow_unused = PyObject_IsTrue(args[5]);
  a.accumulate_grad = PyObject_IsTrue(args[6]);
  EMBER_CHECK(a.roots.size() == a.root_grads.size(), "got ", a.root_grads.size(), " gradients for ", a.roots.size(),
              " tensors");
  TensorList r = run_backward(a);
  return tensors_tuple(r);
  EMBER_PY_CATCH
}

PyObject* is_grad_enabled(PyObject*, PyObject*) { return PyBool_FromLong(GradMode::is_enabled()); }
PyObject* set_grad_enabled(PyObject*, PyObject* v) {
  GradMode::set_enabled(PyObject_IsTrue(v));
  Py_RETURN_NONE;
}
PyObject* is_inference_mode_enabled(PyObject*, PyObject*) { return PyBool_FromLong(InferenceMode::is_enabled()); }
PyObject* set_inference_mode(PyObject*, PyObject* v) {
  InferenceMode::enabled_ = PyObject_IsTrue(v);
  Py_RETURN_NONE;
}
PyObject* is_anomaly_enabled(PyObject*, PyObject*) { return PyBool_FromLong(AnomalyMode::enabled); }
PyObject* is_anomaly_check_nan(PyObject*, PyObject*) { return PyBool_FromLong(AnomalyMode::check_nan); }
PyObject* set_anomaly_enabled(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  AnomalyMode::enabled = nargs > 0 && PyObject_IsTrue(args[0]);
  AnomalyMode::check_nan = nargs < 2 || PyObject_IsTrue(args[1]);
  Py_RETURN_NONE;
}

// ---------------------------------------------------------------- tensor hooks

const Tensor& tensor_arg(PyObject* o) {
  EMBER_CHECK_TYPE(is_tensor(o), "expected a Tensor, got ", Py_TYPE(o)->tp_name);
  return unpack(o);
}

PyObject* register_tensor_hook(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(nargs == 2, "_register_tensor_hook expects 2 arguments");
  const Tensor& t = tensor_arg(args[0]);
  EMBER_CHECK(t.requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
  EMBER_CHECK_TYPE(PyCallable_Check(args[1]), "hook must be callable");
  int64_t id = ++g_next_hook_id;
  AutogradMeta& m = *t.impl()->autograd;
  auto hook = make_ref<PyTensorHook>(args[1]);
  if (m.grad_fn) {
    m.grad_fn->tensor_hooks.emplace_back(id, m.output_nr, hook);
    return new_handle(m.grad_fn, {}, id, 0);
  }
  m.hooks.emplace_back(id, hook);
  return new_handle({}, t.ref(), id, 0);
  EMBER_PY_CATCH
}

PyObject* register_post_acc_hook(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(nargs == 2, "_register_post_accumulate_grad_hook expects 2 arguments");
  const Tensor& t = tensor_arg(args[0]);
  EMBER_CHECK(t.requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
  EMBER_CHECK(!t.impl()->autograd->grad_fn, "post accumulate grad hooks cannot be registered on non-leaf tensors");
  int64_t id = ++g_next_hook_id;
  t.impl()->autograd->post_acc_hooks.emplace_back(id, make_ref<PyTensorHook>(args[1]));
  return new_handle({}, t.ref(), id, 1);
  EMBER_PY_CATCH
}

// ---------------------------------------------------------------- saved tensor hooks

struct HookPair {
  PyObject* pack;
  PyObject* unpack;
};
std::vector<HookPair> g_saved_hooks;  // the innermost saved_tensors_hooks is last
bool g_in_pack = false;

struct PyPacked final : PackedSaved {
  PyObj value, unpack_fn;
  PyPacked(PyObject* v, PyObject* u) : value(v), unpack_fn(u) {}
  Tensor unpack() override {
    PyObject* r = PyObject_CallOneArg(unpack_fn.o, value.o);
    if (!r) throw python_error();
    if (!is_tensor(r)) {
      Py_DECREF(r);
      fail(ErrorKind::Type, "Output of saved tensor unpack_hook expected to be a Tensor but got result of type ",
           Py_TYPE(r)->tp_name);
    }
    Tensor t = python::unpack(r);
    Py_DECREF(r);
    return t;
  }
};

Ref<PackedSaved> pack_saved(const Tensor& t) {
  if (g_in_pack || g_saved_hooks.empty()) return {};
  HookPair h = g_saved_hooks.back();
  g_in_pack = true;
  PyObject* arg = wrap(t);
  PyObject* r = PyObject_CallOneArg(h.pack, arg);
  Py_DECREF(arg);
  g_in_pack = false;
  if (!r) throw python_error();
  auto p = make_ref<PyPacked>(r, h.unpack);
  Py_DECREF(r);
  return p;
}

PyObject* push_saved_hooks(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(nargs == 2 && PyCallable_Check(args[0]) && PyCallable_Check(args[1]),
                   "saved_tensors_hooks expects two callables (pack_hook, unpack_hook)");
  Py_INCREF(args[0]);
  Py_INCREF(args[1]);
  g_saved_hooks.push_back({args[0], args[1]});
  g_pack_hook = pack_saved;
  Py_RETURN_NONE;
  EMBER_PY_CATCH
}

PyObject* pop_saved_hooks(PyObject*, PyObject*) {
  if (!g_saved_hooks.empty()) {
    Py_DECREF(g_saved_hooks.back().pack);
    Py_DECREF(g_saved_hooks.back().unpack);
    g_saved_hooks.pop_back();
  }
  if (g_saved_hooks.empty()) g_pack_hook = nullptr;
  Py_RETURN_NONE;
}

std::string anomaly_trace() {
  PyObject* tb = PyImport_ImportModule("traceback");
  if (!tb) {
    PyErr_Clear();
    return "";
  }
  PyObject* lines = PyObject_CallMethod(tb, "format_stack", nullptr);
  Py_DECREF(tb);
  if (!lines) {
    PyErr_Clear();
    return "";
  }
  std::string out;
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(lines); ++i) out += PyUnicode_AsUTF8(PyList_GET_ITEM(lines, i));
  Py_DECREF(lines);
  return out;
}

PyMethodDef autograd_functions[] = {
    {"_run_backward", (PyCFunction)(void (*)())run_backward_py, METH_FASTCALL, nullptr},
    {"is_grad_enabled", is_grad_enabled, METH_NOARGS, nullptr},
    {"_set_grad_enabled", set_grad_enabled, METH_O, nullptr},
    {"is_inference_mode_enabled", is_inference_mode_enabled, METH_NOARGS, nullptr},
    {"_set_inference_mode", set_inference_mode, METH_O, nullptr},
    {"is_anomaly_enabled", is_anomaly_enabled, METH_NOARGS, nullptr},
    {"is_anomaly_check_nan_enabled", is_anomaly_check_nan, METH_NOARGS, nullptr},
    {"_set_anomaly_enabled", (PyCFunction)(void (*)())set_anomaly_enabled, METH_FASTCALL, nullptr},
    {"_register_tensor_hook", (PyCFunction)(void (*)())register_tensor_hook, METH_FASTCALL, nullptr},
    {"_register_post_accumulate_grad_hook", (PyCFunction)(void (*)())register_post_acc_hook, METH_FASTCALL, nullptr},
    {"_push_saved_tensors_hooks", (PyCFunction)(void (*)())push_saved_hooks, METH_FASTCALL, nullptr},
    {"_pop_saved_tensors_hooks", pop_saved_hooks, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

// Only what this tensor owns alone (its impl and grad_fn are not shared) is
// visited; anything shared stays alive through its other owners anyway.
int traverse_autograd(const Tensor& t, visitproc visit, void* arg) {
  if (!t.defined() || t.ref().use_count() != 1) return 0;
  AutogradMeta* m = t.impl()->autograd.get();
  if (!m) return 0;
  auto visit_hook = [&](TensorHook* h) -> int {
    if (auto* p = dynamic_cast<PyTensorHook*>(h)) Py_VISIT(p->fn.o);
    return 0;
  };
  for (auto& h : m->hooks)
    if (int r = visit_hook(h.second.get())) return r;
  for (auto& h : m->post_acc_hooks)
    if (int r = visit_hook(h.second.get())) return r;
  if (m->grad_fn && m->grad_fn.use_count() == 1) {
    for (auto& h : m->grad_fn->tensor_hooks)
      if (int r = visit_hook(std::get<2>(h).get())) return r;
    for (auto& h : m->grad_fn->pre_hooks)
      if (auto* p = dynamic_cast<PyPreHook*>(h.second.get())) Py_VISIT(p->fn.o);
    for (auto& h : m->grad_fn->post_hooks)
      if (auto* p = dynamic_cast<PyPostHook*>(h.second.get())) Py_VISIT(p->fn.o);
  }
  return 0;
}

void clear_autograd(const Tensor& t) {
  if (!t.defined() || t.ref().use_count() != 1) return;
  AutogradMeta* m = t.impl()->autograd.get();
  if (!m) return;
  m->hooks.clear();
  m->post_acc_hooks.clear();
  if (m->grad_fn && m->grad_fn.use_count() == 1) {
    m->grad_fn->tensor_hooks.clear();
    m->grad_fn->pre_hooks.clear();
    m->grad_fn->post_hooks.clear();
  }
}

PyMethodDef* node_method_table() { return node_methods; }
PyGetSetDef* node_getset_table() { return node_getset; }

PyObject* wrap_node(const Ref<Node>& node) {
  if (!node) Py_RETURN_NONE;
  if (PyObject* f = node->py_function()) {
    Py_INCREF(f);
    return f;
  }
  if (node->pyobj) {
    Py_INCREF(node->pyobj);
    return node->pyobj;
  }
  PyTypeObject* tp = node_type(node->name());
  auto* obj = reinterpret_cast<PyNodeObj*>(tp->tp_alloc(tp, 0));
  if (!obj) throw python_error();
  new (&obj->node) Ref<Node>(node);
  obj->metadata = nullptr;
  node->pyobj = reinterpret_cast<PyObject*>(obj);
  return reinterpret_cast<PyObject*>(obj);
}

void init_autograd(PyObject* module) {
  NodeBaseType.tp_name = "torch._C._Node";
  NodeBaseType.tp_basicsize = sizeof(PyNodeObj);
  NodeBaseType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  NodeBaseType.tp_methods = node_methods;
  NodeBaseType.tp_getset = node_getset;
  NodeBaseType.tp_repr = node_repr;
  if (PyType_Ready(&NodeBaseType) < 0 || PyType_Ready(&HookHandleType) < 0) throw python_error();
  Py_INCREF(&NodeBaseType);
  PyModule_AddObject(module, "_Node", reinterpret_cast<PyObject*>(&NodeBaseType));
  Py_INCREF(&HookHandleType);
  PyModule_AddObject(module, "_HookHandle", reinterpret_cast<PyObject*>(&HookHandleType));
  document_bindings(autograd_functions, false);
  if (PyModule_AddFunctions(module, autograd_functions) < 0) throw python_error();
  g_anomaly_trace_hook = anomaly_trace;
  init_function(module);
  init_profiler(module);  // the profiler records backward nodes; it starts with autograd
}

// grad_dtype: leaves only; None allows a gradient of any dtype (the engine then casts nothing).
PyObject* tensor_get_grad_dtype(PyObject* self, void* prop) {
  EMBER_PY_TRY
  TORCH_FUNCTION_GETTER(self, prop)
  const AutogradMeta* m = unpack(self).impl()->autograd.get();
  EMBER_CHECK(!m || !m->grad_fn, "grad_dtype can only be accessed on leaf tensors.");
  const int8_t g = m ? m->grad_dtype : AutogradMeta::kGradDtypeOwn;
  if (g == AutogradMeta::kGradDtypeAny) Py_RETURN_NONE;
  return Py_NewRef(dtype_object(g >= 0 ? static_cast<ScalarType>(g) : unpack(self).dtype()));
  EMBER_PY_CATCH
}
int tensor_set_grad_dtype(PyObject* self, PyObject* v, void* prop) {
  EMBER_PY_TRY
  TORCH_FUNCTION_SETTER(self, prop, v)
  TensorImpl* impl = unpack(self).impl();
  EMBER_CHECK(!impl->autograd || !impl->autograd->grad_fn, "grad_dtype can only be set on leaf tensors.");
  EMBER_CHECK(v && (v == Py_None || Py_TYPE(v) == DtypeType), "grad_dtype must be a torch.dtype or None, but got ",
              v ? Py_TYPE(v)->tp_name : "nothing");
  const int8_t g = v == Py_None ? AutogradMeta::kGradDtypeAny : static_cast<int8_t>(parse_dtype(v));
  if (!impl->autograd) impl->autograd = std::make_unique<AutogradMeta>();
  impl->autograd->grad_dtype = g;
  return 0;
  EMBER_PY_CATCH_INT
}

}  // namespace ember::python
