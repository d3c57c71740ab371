// ember._C's profiler functions: start/stop a session, user ranges
// (record_function), and the events handed to ember.profiler.
#include "py_profiler.h"

#include <cctype>

#include "py_tensor.h"

namespace ember::python {

std::string shapes_of(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  profiler::InputsText in;
  auto add = [&](PyObject* o) {
    if (o && is_tensor(o)) in.add(&unpack(o));
    else if (!o || o == Py_None) in.add_other("");
    else if (PyTuple_Check(o) || PyList_Check(o)) in.add_other("ScalarList");
    else in.add_other("Scalar");
  };
  if (self && is_tensor(self)) add(self);
  for (Py_ssize_t i = 0; i < nargs; ++i) add(args[i]);
  return in.finish();
}

std::string shapes_of(std::initializer_list<const Tensor*> ts) { return profiler::shapes_of(ts); }

namespace {

// "file(line): function" for every Python frame, innermost first, one per line.
std::string python_stack() {
  std::string out;
  PyFrameObject* f = PyEval_GetFrame();  // borrowed
  Py_XINCREF(f);
  for (int depth = 0; f && depth < 128; ++depth) {
    PyCodeObject* code = PyFrame_GetCode(f);  // new reference
    const char* file = PyUnicode_AsUTF8(code->co_filename);
    const char* fn = PyUnicode_AsUTF8(code->co_name);
    if (!out.empty()) out += '\n';
    out += file ? file : "?";
    out += '(';
    out += std::to_string(PyFrame_GetLineNumber(f));
    out += "): ";
    out += fn ? fn : "?";
    Py_DECREF(code);
    PyFrameObject* back = PyFrame_GetBack(f);  // new reference
    Py_DECREF(f);
    f = back;
  }
  Py_XDECREF(f);
  PyErr_Clear();  // a failed name conversion must not leak into the op's own error state
  return out;
}

// Non-tensor arguments as a Python literal: numbers and int sequences kept, anything else None.
void append_concrete(std::string& s, PyObject* o) {
  if (PyBool_Check(o)) {
    s += o == Py_True ? "True" : "False";
  } else if (PyLong_Check(o)) {
    long long v = PyLong_AsLongLong(o);
    if (v == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      s += "None";
    } else {
      s += std::to_string(v);
    }
  } else if (PyFloat_Check(o)) {
    s += std::to_string(PyFloat_AS_DOUBLE(o));
  } else if (PyUnicode_Check(o)) {
    // Short plain strings (e.g. conv padding="same"); anything needing escapes becomes None.
    Py_ssize_t n = 0;
    const char* u = PyUnicode_AsUTF8AndSize(o, &n);
    bool plain = u && n < 32;
    for (Py_ssize_t i = 0; plain && i < n; ++i) plain = std::isalnum(static_cast<unsigned char>(u[i])) || u[i] == '_';
    PyErr_Clear();
    if (plain) {
      s += '\'';
      s.append(u, static_cast<size_t>(n));
      s += '\'';
    } else {
      s += "None";
    }
  } else if ((PyTuple_Check(o) || PyList_Check(o)) && !is_tensor(o)) {
    s += '[';
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    PyObject** items = PySequence_Fast_ITEMS(o);
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (i) s += ", ";
      if (PyLong_Check(items[i]) || PyFloat_Check(items[i])) append_concrete(s, items[i]);
      else s += "None";
    }
    s += ']';
  } else {
    s += "None";
  }
}

std::string concrete_args(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  std::string s = "[";
  bool first = true;
  if (self && is_tensor(self)) {
    s += "None";
    first = false;
  }
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    if (!first) s += ", ";
    first = false;
    append_concrete(s, args[i]);
  }
  return s + "]";
}

PyObject* profiler_start(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  profiler::Config c;
  c.record_shapes = nargs > 0 && PyObject_IsTrue(args[0]);
  c.profile_memory = nargs > 1 && PyObject_IsTrue(args[1]);
  c.with_stack = nargs > 2 && PyObject_IsTrue(args[2]);
  c.with_flops = nargs > 3 && PyObject_IsTrue(args[3]);
  profiler::start(c);
  Py_RETURN_NONE;
}

// Cost of the hook while no profiler runs: ns per inactive OpScope vs ns per empty loop
// iteration (both loops keep a compiler barrier per iteration, so neither is optimised away).
PyObject* profiler_bench_inactive(PyObject*, PyObject* arg) {
  long long n = PyLong_AsLongLong(arg);
  if (n == -1 && PyErr_Occurred()) return nullptr;
  if (n <= 0) {
    PyErr_SetString(PyExc_ValueError, "_profiler_bench_inactive(): n must be positive");
    return nullptr;
  }
  if (profiler::active()) {
    PyErr_SetString(PyExc_RuntimeError, "_profiler_bench_inactive(): a profiler is active");
    return nullptr;
  }
  int64_t t0 = profiler::now_ns();
  for (long long i = 0; i < n; ++i) {
    asm volatile("" ::: "memory");
  }
  int64_t t1 = profiler::now_ns();
  for (long long i = 0; i < n; ++i) {
    OpScope s("aten::add", nullptr, nullptr, 0);
    asm volatile("" ::: "memory");
  }
  int64_t t2 = profiler::now_ns();
  return Py_BuildValue("(dd)", double(t2 - t1) / double(n), double(t1 - t0) / double(n));
}

const char* kind_name(profiler::EventKind k) {
  switch (k) {
    case profiler::EventKind::Op:
      return "op";
    case profiler::EventKind::Backward:
      return "backward";
    case profiler::EventKind::UserRange:
      return "user";
    case profiler::EventKind::Memory:
      return "memory";
  }
  return "op";
}

// -> [(name, kind, start_ns, end_ns, thread, depth, seq, shapes, bytes, stack, concrete, inputs), ...]
// in start order; memory records carry the block's address in `seq`.
PyObject* profiler_stop(PyObject*, PyObject*) {
  std::vector<profiler::Event> ev = profiler::stop();
  std::stable_sort(ev.begin(), ev.end(), [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
  PyObject* out = PyList_New(static_cast<Py_ssize_t>(ev.size()));
  if (!out) return nullptr;
  for (size_t i = 0; i < ev.size(); ++i) {
    const auto& e = ev[i];
    PyObject* t =
        Py_BuildValue("(ssLLKiLsLs#s#s#)", e.name.c_str(), kind_name(e.kind), (long long)e.start_ns,
                      (long long)e.end_ns, (unsigned long long)e.thread, e.depth, (long long)e.seq, e.shapes.c_str(),
                      (long long)e.bytes, e.stack.data(), (Py_ssize_t)e.stack.size(), e.concrete.data(),
                      (Py_ssize_t)e.concrete.size(), e.inputs.data(), (Py_ssize_t)e.inputs.size());
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

// An op implemented in Python (Tensor.to, type_as, F.linear): an Op event with the shapes of
// self and of the further arguments passed (_record_op_enter(name, self, *args)).
PyObject* record_op_enter(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs < 2 || !PyUnicode_Check(args[0])) {
    PyErr_SetString(PyExc_TypeError, "_record_op_enter(name, self, *args)");
    return nullptr;
  }
  if (profiler::active()) {
    const char* s = PyUnicode_AsUTF8(args[0]);
    if (!s) return nullptr;
    push_op(s, args[1], nargs > 2 ? args + 2 : nullptr, nargs - 2);
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
    {"_profiler_bench_inactive", profiler_bench_inactive, METH_O, nullptr},
    {"_record_function_enter", record_function_enter, METH_O, nullptr},
    {"_record_function_exit", record_function_exit, METH_NOARGS, nullptr},
    {"_record_op_enter", (PyCFunction)(void (*)())record_op_enter, METH_FASTCALL, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

namespace {
// Storage addresses of the tensor arguments: the memory timeline uses them to tell which
// blocks that existed before profiling ops actually read (as torch does).
std::string input_addresses(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  std::string s;
  auto add = [&](PyObject* o) {
    if (!o || !is_tensor(o)) return;
    const Tensor& t = unpack(o);
    if (!t.defined()) return;
    if (!s.empty()) s += ' ';
    s += std::to_string(reinterpret_cast<uintptr_t>(t.storage().data));
  };
  add(self);
  for (Py_ssize_t i = 0; i < nargs; ++i) add(args[i]);
  return s;
}
}  // namespace

void annotate_op(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (!PyGILState_Check()) return;  // Python frames can only be read with the GIL held
  const profiler::Config& c = profiler::config();
  const bool timeline = c.profile_memory && c.record_shapes && c.with_stack;
  profiler::annotate_top(c.with_stack ? python_stack() : std::string(),
                         c.with_flops && args ? concrete_args(self, args, nargs) : std::string(),
                         timeline ? input_addresses(self, args, nargs) : std::string());
}

void annotate_op(std::initializer_list<const Tensor*> ts) {
  if (!PyGILState_Check()) return;
  const profiler::Config& c = profiler::config();
  std::string inputs;
  if (c.profile_memory && c.record_shapes && c.with_stack) {
    for (const Tensor* t : ts) {
      if (!t || !t->defined()) continue;
      if (!inputs.empty()) inputs += ' ';
      inputs += std::to_string(reinterpret_cast<uintptr_t>(t->storage().data));
    }
  }
  profiler::annotate_top(c.with_stack ? python_stack() : std::string(), std::string(), std::move(inputs));
}

namespace {
// Ops called from C++ while Python runs (nested in a binding's op) get the same Python stack.
void annotate_nested() {
  if (!PyGILState_Check()) return;  // e.g. backward on a thread without the GIL: no Python frames
  profiler::annotate_top(python_stack(), std::string(), std::string());
}
}  // namespace

void init_profiler(PyObject* module) {
  if (PyModule_AddFunctions(module, profiler_functions) < 0) throw python_error();
  profiler::set_annotate_hook(&annotate_nested);
}

}  // namespace ember::python
