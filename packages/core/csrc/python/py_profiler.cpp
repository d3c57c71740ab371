// ember._C's profiler functions: start/stop a session, user ranges
// (record_function), and the events handed to ember.profiler.
#include "py_profiler.h"

#include "py_tensor.h"

namespace ember::python {

namespace {
void append_sizes(std::string& s, const Tensor& t) {
  s += '[';
  for (int64_t i = 0; i < t.dim(); ++i) {
    if (i) s += ", ";
    s += std::to_string(t.sizes()[i]);
  }
  s += ']';
}
}  // namespace

std::string shapes_of(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  std::string s = "[";
  bool first = true;
  auto add = [&](PyObject* o) {
    if (!first) s += ", ";
    first = false;
    if (o && is_tensor(o)) append_sizes(s, unpack(o));
    else s += "[]";
  };
  if (self && is_tensor(self)) add(self);
  for (Py_ssize_t i = 0; i < nargs; ++i) add(args[i]);
  return s + "]";
}

std::string shapes_of(std::initializer_list<const Tensor*> ts) {
  std::string s = "[";
  bool first = true;
  for (const Tensor* t : ts) {
    if (!first) s += ", ";
    first = false;
    if (t && t->defined()) append_sizes(s, *t);
    else s += "[]";
  }
  return s + "]";
}

namespace {

PyObject* profiler_start(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  profiler::Config c;
  c.record_shapes = nargs > 0 && PyObject_IsTrue(args[0]);
  c.profile_memory = nargs > 1 && PyObject_IsTrue(args[1]);
  profiler::start(c);
  Py_RETURN_NONE;
}

const char* kind_name(profiler::EventKind k) {
  switch (k) {
    case profiler::EventKind::Op: return "op";
    case profiler::EventKind::Backward: return "backward";
    case profiler::EventKind::UserRange: return "user";
    case profiler::EventKind::Memory: return "memory";
  }
  return "op";
}

// -> [(name, kind, start_ns, end_ns, thread, depth, seq, shapes, bytes), ...] in start order
PyObject* profiler_stop(PyObject*, PyObject*) {
  std::vector<profiler::Event> ev = profiler::stop();
  std::stable_sort(ev.begin(), ev.end(), [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
  PyObject* out = PyList_New(static_cast<Py_ssize_t>(ev.size()));
  if (!out) return nullptr;
  for (size_t i = 0; i < ev.size(); ++i) {
    const auto& e = ev[i];
    PyObject* t = Py_BuildValue("(ssLLKiLsL)", e.name.c_str(), kind_name(e.kind), (long long)e.start_ns,
                                (long long)e.end_ns, (unsigned long long)e.thread, e.depth, (long long)e.seq,
                                e.shapes.c_str(), (long long)e.bytes);
    if (!t) {
      Py_DECREF(out);
      return nullptr;
    }
    PyList_SET_ITEM(out, static_cast<Py_ssize_t>(i), t);
  }
  return out;
}

PyObject* profiler_active(PyObject*, PyObject*) { return PyBool_FromLong(profiler::active()); }

PyObject* record_function_enter(PyObject*, PyObject* name) {
  if (profiler::active()) {
    const char* s = PyUnicode_AsUTF8(name);
    if (!s) return nullptr;
    profiler::push(s, profiler::EventKind::UserRange, {}, -1);
  }
  Py_RETURN_NONE;
}

PyObject* record_function_exit(PyObject*, PyObject*) {
  if (profiler::active()) profiler::pop();
  Py_RETURN_NONE;
}

PyObject* profiler_now(PyObject*, PyObject*) { return PyLong_FromLongLong(profiler::now_ns()); }

PyMethodDef profiler_functions[] = {
    {"_profiler_start", (PyCFunction)(void (*)())profiler_start, METH_FASTCALL, nullptr},
    {"_profiler_stop", profiler_stop, METH_NOARGS, nullptr},
    {"_profiler_active", profiler_active, METH_NOARGS, nullptr},
    {"_profiler_now_ns", profiler_now, METH_NOARGS, nullptr},
    {"_record_function_enter", record_function_enter, METH_O, nullptr},
    {"_record_function_exit", record_function_exit, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

void init_profiler(PyObject* module) {
  if (PyModule_AddFunctions(module, profiler_functions) < 0) throw python_error();
}

}  // namespace ember::python
