// ember._C: the compiled module. Types and op bindings are plain CPython
// (the per-op overhead budget leaves no room for a generic dispatcher);
// pybind11 defines the module and the small utility functions.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "../core/allocator.h"
#include "../core/cpu_capability.h"
#include "../core/deterministic.h"
#include "../core/parallel.h"
#include "../iter/elementwise_iter.h"
#include "arg_parser.h"
#include "autocast.h"
#include "ops.h"
#include "py_generator.h"
#include "py_tensor.h"
#include "py_torch_function.h"
#include "py_types.h"

namespace py = pybind11;

namespace ember {
bool cuda_is_compiled();  // kernels/cuda (or its stub)
}  // namespace ember

namespace ember::python {

void init_caching_allocator(py::module_& m);  // py_caching_allocator.cpp
void init_cuda(py::module_& m);               // py_cuda.cpp

PyObject* g_linalg_error = nullptr;
PyObject* g_no_cuda_error = nullptr;
PyObject* g_oom_error = nullptr;
extern PyObject* g_size_class;

// Bumped when the binary's interface to ember/*.py changes; _lib.py checks it.
constexpr int kAbiVersion = 1;

void set_python_error(const ember::Error& e) {
  PyObject* type = PyExc_RuntimeError;
  switch (e.kind()) {
    case ErrorKind::Type:
      type = PyExc_TypeError;
      break;
    case ErrorKind::Value:
      type = PyExc_ValueError;
      break;
    case ErrorKind::Index:
      type = PyExc_IndexError;
      break;
    case ErrorKind::NotImplemented:
      type = PyExc_NotImplementedError;
      break;
    case ErrorKind::LinAlg:
      type = g_linalg_error;
      break;
    case ErrorKind::NoCuda:
      type = g_no_cuda_error;
      break;
    case ErrorKind::OutOfMemory:
      type = g_oom_error;
      break;
    case ErrorKind::Runtime:
      break;
  }
  PyErr_SetString(type, e.what());
}

namespace {

PyObject* set_tensor_class(PyObject*, PyObject* cls) {
  if (!PyType_Check(cls) || !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), TensorBaseType)) {
    PyErr_SetString(PyExc_TypeError, "_set_tensor_class expects a subclass of TensorBase");
    return nullptr;
  }
  Py_INCREF(cls);
  g_tensor_class = reinterpret_cast<PyTypeObject*>(cls);
  Py_RETURN_NONE;
}
PyObject* set_size_class(PyObject*, PyObject* cls) {
  Py_INCREF(cls);
  g_size_class = cls;
  Py_RETURN_NONE;
}
PyObject* tensor_from_data_py(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  EMBER_PY_TRY
  std::optional<ScalarType> dt;
  if (nargs > 1 && args[1] != Py_None) dt = parse_dtype(args[1]);
  return wrap(tensor_from_data(args[0], dt));
  EMBER_PY_CATCH
}

void release_owner(void*, void* ctx, size_t) {
  PyGILState_STATE s = PyGILState_Ensure();
  Py_DECREF(reinterpret_cast<PyObject*>(ctx));
  PyGILState_Release(s);
}

// _from_buffer(ptr, nbytes, sizes, strides, dtype, owner): a tensor over memory
// owned by `owner` (a NumPy array), which stays alive as long as the storage.
PyObject* from_buffer(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(nargs == 6, "_from_buffer expects 6 arguments");
  void* ptr = PyLong_AsVoidPtr(args[0]);
  size_t nbytes = PyLong_AsSize_t(args[1]);
  if (PyErr_Occurred()) throw python_error();
  EMBER_CHECK_TYPE(
      (PyList_Check(args[2]) || PyTuple_Check(args[2])) && (PyList_Check(args[3]) || PyTuple_Check(args[3])),
      "_from_buffer: sizes and strides must be lists or tuples");
  DimVector sizes, strides;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(args[2]); ++i)
    sizes.push_back(to_int64(PySequence_Fast_GET_ITEM(args[2], i)));
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(args[3]); ++i)
    strides.push_back(to_int64(PySequence_Fast_GET_ITEM(args[3], i)));
  auto st = make_ref<StorageImpl>();
  st->data = ptr;
  st->nbytes = nbytes;
  st->resizable = false;
  Py_INCREF(args[5]);
  st->ctx = args[5];
  st->deleter = release_owner;
  auto impl = make_ref<TensorImpl>();
  impl->storage = st;
  impl->sizes = sizes;
  impl->strides = strides;
  impl->dtype = parse_dtype(args[4]);
  impl->refresh();
  return wrap(Tensor(std::move(impl)));
  EMBER_PY_CATCH
}

PyObject* get_default_dtype(PyObject*, PyObject*) {
  PyObject* d = dtype_object(default_dtype());
  Py_INCREF(d);
  return d;
}
PyObject* set_default_dtype_py(PyObject*, PyObject* d) {
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(Py_TYPE(d) == DtypeType && !is_sub_byte_dtype(d) && is_floating(parse_dtype(d)),
                   "only floating-point types are supported as the default type");
  set_default_dtype(parse_dtype(d));
  Py_RETURN_NONE;
  EMBER_PY_CATCH
}
// ember.set_default_device's thread-local part: None (the CPU) or a device, for the factories.
PyObject* set_default_device_py(PyObject*, PyObject* d) {
  EMBER_PY_TRY
  std::optional<Device>& slot = default_factory_device();
  if (d == Py_None) slot.reset();
  else slot = parse_device(d);
  if (slot && slot->is_cpu()) slot.reset();  // a CPU tensor has no index: the default path
  Py_RETURN_NONE;
  EMBER_PY_CATCH
}
PyObject* promote_types_py(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(nargs == 2 && Py_TYPE(args[0]) == DtypeType && Py_TYPE(args[1]) == DtypeType,
                   "promote_types(): argument 'type1' must be torch.dtype");
  PyObject* d = dtype_object(promote_types(parse_dtype(args[0]), parse_dtype(args[1])));
  Py_INCREF(d);
  return d;
  EMBER_PY_CATCH
}
PyObject* result_type_py(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(nargs == 2, "result_type() takes 2 arguments");
  Tensor a = is_tensor(args[0]) ? unpack(args[0]) : Tensor();
  Tensor b = is_tensor(args[1]) ? unpack(args[1]) : Tensor();
  if (!a.defined()) a = b.defined() ? wrap_number(to_scalar(args[0]), b) : wrap_number(to_scalar(args[0]), nullptr, 0);
  if (!b.defined()) b = wrap_number(to_scalar(args[1]), a);
  PyObject* d = dtype_object(result_type({&a, &b}));
  Py_INCREF(d);
  return d;
  EMBER_PY_CATCH
}
PyObject* can_cast_py(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(nargs == 2 && Py_TYPE(args[0]) == DtypeType && Py_TYPE(args[1]) == DtypeType,
                   "can_cast(): arguments must be torch.dtype");
  return PyBool_FromLong(can_cast(parse_dtype(args[0]), parse_dtype(args[1])));
  EMBER_PY_CATCH
}

PyMethodDef handwritten_functions[] = {
    {"_set_tensor_class", set_tensor_class, METH_O, nullptr},
    {"_set_size_class", set_size_class, METH_O, nullptr},
    {"_tensor_from_data", (PyCFunction)(void (*)())tensor_from_data_py, METH_FASTCALL, nullptr},
    {"_from_buffer", (PyCFunction)(void (*)())from_buffer, METH_FASTCALL, nullptr},
    {"get_default_dtype", get_default_dtype, METH_NOARGS, nullptr},
    {"set_default_dtype", set_default_dtype_py, METH_O, nullptr},
    {"_set_default_device", set_default_device_py, METH_O, nullptr},
    {"promote_types", (PyCFunction)(void (*)())promote_types_py, METH_FASTCALL, nullptr},
    {"result_type", (PyCFunction)(void (*)())result_type_py, METH_FASTCALL, nullptr},
    {"can_cast", (PyCFunction)(void (*)())can_cast_py, METH_FASTCALL, nullptr},
    {nullptr, nullptr, 0, nullptr}};

void* gil_release() { return PyEval_SaveThread(); }
void gil_acquire(void* s) { PyEval_RestoreThread(static_cast<PyThreadState*>(s)); }
// With warnings turned into errors (-W error) the warning is raised: the op stops.
void warn_hook(const char* msg) {
  PyGILState_STATE s = PyGILState_Ensure();
  int r = PyErr_WarnEx(PyExc_UserWarning, msg, 1);
  PyGILState_Release(s);
  if (r < 0) throw python_error();
}

}  // namespace
}  // namespace ember::python

PYBIND11_MODULE(_C, m) {
  using namespace ember::python;
  PyObject* mod = m.ptr();
  m.attr("_ABI_VERSION") = kAbiVersion;
  init_types(mod);
  init_tensor_type(mod);
  init_storage(mod);
  init_dlpack(mod);
  init_generator(mod);
  init_autograd(mod);
  init_argcheck(mod);
  init_autocast(mod);
  init_torch_function(mod);
  {
    extern void ember_init_scan(PyObject*);
    ember_init_scan(mod);
  }  // py_scan.cpp
  {
    extern void ember_init_ext_api(PyObject*);
    ember_init_ext_api(mod);
  }  // ext_api.cpp: the C++ extension ABI
  document_bindings(handwritten_functions, false);
  if (PyModule_AddFunctions(mod, handwritten_functions) < 0) throw py::error_already_set();
  if (PyModule_AddFunctions(mod, generated_functions()) < 0) throw py::error_already_set();

  g_linalg_error = PyErr_NewExceptionWithDoc("torch._C._LinAlgError", binding_doc("linalg.LinAlgError"),
                                             PyExc_RuntimeError, nullptr);
  PyObject* bases = PyTuple_Pack(2, PyExc_AssertionError, PyExc_RuntimeError);
  g_no_cuda_error =
      PyErr_NewExceptionWithDoc("ember.CudaNotCompiledError", binding_doc("CudaNotCompiledError"), bases, nullptr);
  Py_DECREF(bases);
  g_oom_error =
      PyErr_NewExceptionWithDoc("ember.OutOfMemoryError", binding_doc("OutOfMemoryError"), PyExc_RuntimeError, nullptr);
  m.attr("OutOfMemoryError") = py::handle(g_oom_error);
  m.attr("_LinAlgError") = py::handle(g_linalg_error);
  m.attr("CudaNotCompiledError") = py::handle(g_no_cuda_error);

  ember::g_gil_hooks.release = gil_release;
  ember::g_gil_hooks.acquire = gil_acquire;
  ember::g_warn_hook = warn_hook;

  {
    py::options text_signature_in_doc;  // the docs start with their own text signature
    text_signature_in_doc.disable_function_signatures();
    m.def(
        "set_num_threads",
        [](int n) {
          if (n <= 0) throw py::value_error("set_num_threads expects a positive integer");
          ember::set_num_threads(n);
        },
        binding_doc("set_num_threads"));
    m.def("get_num_threads", &ember::get_num_threads, binding_doc("get_num_threads"));
  }
  m.def(
      "_return_type",
      [](const std::string& name, const std::vector<std::string>& fields) {
        return py::reinterpret_borrow<py::object>(
            reinterpret_cast<PyObject*>(ember::python::return_type(name, fields)));
      },
      "The structseq type torch.return_types.<name> with these fields.");
  ember::python::init_caching_allocator(m);  // py_caching_allocator.cpp: the device allocator's test double
  m.def("_cpu_empty_cache", &ember::cpu_empty_cache, "Release the cached CPU blocks of large tensors.");
  m.def("_cpu_cached_bytes", &ember::cpu_cached_bytes);
  m.def("_cuda_is_compiled", &ember::cuda_is_compiled);
  // aten's layout rules for Python-composed ops: the layout a kernel allocates its result in
  m.def("_suggest_memory_format", [](py::handle t) {
    if (!ember::python::is_tensor(t.ptr())) throw py::type_error("_suggest_memory_format: expected a Tensor");
    const ember::Tensor& x = ember::python::unpack(t.ptr());
    return py::reinterpret_borrow<py::object>(
        ember::python::memory_format_object(ember::suggest_memory_format(x.sizes(), x.strides())));
  });
  m.def("_memory_format_strides", [](const std::vector<int64_t>& sizes, py::handle fmt) {
    if (Py_TYPE(fmt.ptr()) != ember::python::MemoryFormatType)
      throw py::type_error("_memory_format_strides: expected a torch.memory_format");
    const auto mf = static_cast<ember::MemoryFormat>(reinterpret_cast<ember::python::PyEnumConst*>(fmt.ptr())->value);
    const ember::DimVector st = ember::memory_format_strides(ember::IntArrayRef(sizes.data(), sizes.size()), mf);
    return py::tuple(py::cast(std::vector<int64_t>(st.begin(), st.end())));
  });
  ember::python::init_cuda(m);  // py_cuda.cpp: ember.cuda's queries and Tensor.to(device)
  m.def(
      "_get_cpu_capability",
      [] {
        switch (ember::cpu_capability()) {
          case ember::CpuCapability::Avx512:
            return "AVX512";
          case ember::CpuCapability::Avx2:
            return "AVX2";
          default:
            return "DEFAULT";
        }
      },
      "The vector instruction set the CPU kernels were chosen for (as torch.backends.cpu.get_cpu_capability).");
  m.def(
      "_set_fill_uninitialized", [](bool on) { ember::g_fill_uninitialized.store(on); },
      "Fill empty()-family results (deterministic mode with fill_uninitialized_memory).");
}
