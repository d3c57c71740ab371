// _C.Generator: manual_seed / seed / initial_seed, state as a uint8 tensor in
// PyTorch's layout (so states move between the two libraries), pickling, and
// the one Python object of the default generator.
#include "py_generator.h"

#include <new>

#include "../iter/elementwise_iter.h"
#include "../kernels/cuda/cuda_runtime_api.h"
#include "py_tensor.h"
#include "py_types.h"

namespace ember::python {

PyTypeObject* GeneratorType = nullptr;

namespace {

Generator& gen_of(PyObject* self) { return *reinterpret_cast<PyGenerator*>(self)->gen; }

PyObject* wrap_generator(PyTypeObject* type, Ref<Generator> g) {
  PyObject* o = type->tp_alloc(type, 0);
  if (!o) throw python_error();
  new (&reinterpret_cast<PyGenerator*>(o)->gen) Ref<Generator>(std::move(g));
  return o;
}

// A generator's device: CPU, or (in a CUDA build) a CUDA device, "cuda" meaning the current one;
// without CUDA that raises the no-CUDA error.
Device generator_device(PyObject* device) {
  if (!device || device == Py_None) return cpu_device();
  EMBER_CHECK_TYPE(is_device_like(device), "Generator(): argument 'device' must be torch.device, not ",
                   Py_TYPE(device)->tp_name);
  Device d = parse_device(device);
  EMBER_CHECK(!d.is_meta(), "META device type not an accelerator.");
  check_device_available(d);
  if (d.is_cpu()) return cpu_device();
  return Device{DeviceType::CUDA, static_cast<int8_t>(cuda_device_index(d.index))};
}

PyObject* generator_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  EMBER_PY_TRY
  static const char* kw[] = {"device", nullptr};
  PyObject* device = nullptr;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:Generator", const_cast<char**>(kw), &device)) return nullptr;
  const Device d = generator_device(device);
  return wrap_generator(type, d.is_cpu() ? make_ref<Generator>() : make_ref<Generator>(d));
  EMBER_PY_CATCH
}

void generator_dealloc(PyObject* self) {
  reinterpret_cast<PyGenerator*>(self)->gen.~Ref<Generator>();
  Py_TYPE(self)->tp_free(self);
}

// A seed as PyTorch takes it: an int in [-2^63, 2^64); negatives wrap to uint64.
uint64_t parse_seed(PyObject* o) {
  bool ok = !PyBool_Check(o) && !PyFloat_Check(o) && !is_tensor(o) && (PyLong_Check(o) || PyIndex_Check(o));
  EMBER_CHECK(ok, "manual_seed expected a long, but got ", Py_TYPE(o)->tp_name);
  PyObject* i = PyNumber_Index(o);
  if (!i) throw python_error();
  unsigned long long u = PyLong_AsUnsignedLongLong(i);
  if (u == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    long long s = PyLong_AsLongLong(i);
    if (s == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      Py_DECREF(i);
      fail(ErrorKind::Value, "Overflow when unpacking long long");
    }
    u = static_cast<unsigned long long>(s);
  }
  Py_DECREF(i);
  return u;
}

PyObject* g_manual_seed(PyObject* self, PyObject* seed) {
  EMBER_PY_TRY
  uint64_t s = parse_seed(seed);
  Generator& g = gen_of(self);
  std::lock_guard<std::mutex> lock(g.mutex);
  g.set_seed(s);
  Py_INCREF(self);
  return self;
  EMBER_PY_CATCH
}

PyObject* g_seed(PyObject* self, PyObject*) {
  EMBER_PY_TRY
  Generator& g = gen_of(self);
  std::lock_guard<std::mutex> lock(g.mutex);
  return PyLong_FromUnsignedLongLong(g.seed_nondeterministic());
  EMBER_PY_CATCH
}

PyObject* g_initial_seed(PyObject* self, PyObject*) {
  Generator& g = gen_of(self);
  std::lock_guard<std::mutex> lock(g.mutex);
  return PyLong_FromUnsignedLongLong(g.initial_seed());
}

PyObject* g_get_state(PyObject* self, PyObject*) {
  EMBER_PY_TRY
  Generator& g = gen_of(self);
  Tensor t = empty({g.state_bytes()}, ScalarType::UInt8);
  std::lock_guard<std::mutex> lock(g.mutex);
  g.get_state(t.data<uint8_t>());
  return wrap(std::move(t));
  EMBER_PY_CATCH
}

void set_state_from(Generator& g, PyObject* state) {
  EMBER_CHECK_TYPE(is_tensor(state), "expected a torch.ByteTensor, but got ", Py_TYPE(state)->tp_name);
  const Tensor& t = unpack(state);
  EMBER_CHECK_TYPE(t.dtype() == ScalarType::UInt8 && t.device().is_cpu(), "RNG state must be a torch.ByteTensor");
  Tensor c = t.is_contiguous() ? t : empty(t.sizes(), ScalarType::UInt8);
  if (!c.same(t)) copy_into(c, t);
  std::lock_guard<std::mutex> lock(g.mutex);
  g.set_state(c.data<uint8_t>(), c.numel());
}

PyObject* g_set_state(PyObject* self, PyObject* state) {
  EMBER_PY_TRY
  set_state_from(gen_of(self), state);
  Py_INCREF(self);
  return self;
  EMBER_PY_CATCH
}

PyObject* g_clone_state(PyObject* self, PyObject*) {
  EMBER_PY_TRY
  Generator& g = gen_of(self);
  Ref<Generator> copy;
  {
    std::lock_guard<std::mutex> lock(g.mutex);
    copy = g.clone();
  }
  return wrap_generator(Py_TYPE(self), std::move(copy));
  EMBER_PY_CATCH
}

PyObject* no_offset() {
  PyErr_SetString(PyExc_RuntimeError, "CPU Generator does not use offset");
  return nullptr;
}

PyObject* g_get_offset(PyObject* self, PyObject*) {
  Generator& g = gen_of(self);
  if (!g.is_cuda()) return no_offset();
  std::lock_guard<std::mutex> lock(g.mutex);
  return PyLong_FromUnsignedLongLong(g.philox_offset());
}

PyObject* g_set_offset(PyObject* self, PyObject* offset) {
  EMBER_PY_TRY
  Generator& g = gen_of(self);
  if (!g.is_cuda()) return no_offset();
  const uint64_t o = parse_seed(offset);
  std::lock_guard<std::mutex> lock(g.mutex);
  g.set_philox_offset(o);
  Py_INCREF(self);
  return self;
  EMBER_PY_CATCH
}

PyObject* g_device(PyObject* self, void*) {
  EMBER_PY_TRY
  return new_device(gen_of(self).device());
  EMBER_PY_CATCH
}

// Pickled as (Generator, ("cpu",), (initial_seed, offset, state)), PyTorch's shape,
// with the state as bytes so unpickling needs nothing but the Generator class.
PyObject* g_reduce(PyObject* self, PyObject*) {
  EMBER_PY_TRY
  Generator& g = gen_of(self);
  PyObject* state = PyBytes_FromStringAndSize(nullptr, g.state_bytes());
  if (!state) return nullptr;
  uint64_t seed, offset;
  {
    std::lock_guard<std::mutex> lock(g.mutex);
    g.get_state(reinterpret_cast<uint8_t*>(PyBytes_AS_STRING(state)));
    seed = g.initial_seed();
    offset = g.philox_offset();
  }
  const std::string dev = g.device().str();
  PyObject* off = g.is_cuda() ? PyLong_FromUnsignedLongLong(offset) : (Py_INCREF(Py_None), Py_None);
  return Py_BuildValue("(O(s)(KNN))", reinterpret_cast<PyObject*>(Py_TYPE(self)), dev.c_str(),
                       static_cast<unsigned long long>(seed), off, state);
  EMBER_PY_CATCH
}

// Takes the state as bytes (ember's pickles) or a uint8 tensor (PyTorch's shape).
PyObject* g_setstate(PyObject* self, PyObject* arg) {
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(PyTuple_Check(arg) && PyTuple_GET_SIZE(arg) == 3,
                   "Generator.__setstate__ expects a (seed, offset, state) tuple");
  Generator& g = gen_of(self);
  uint64_t s = parse_seed(PyTuple_GET_ITEM(arg, 0));
  {
    std::lock_guard<std::mutex> lock(g.mutex);
    g.set_seed(s);
  }
  if (PyTuple_GET_ITEM(arg, 1) != Py_None) {
    PyObject* r = g_set_offset(self, PyTuple_GET_ITEM(arg, 1));
    if (!r) return nullptr;
    Py_DECREF(r);
  }
  PyObject* state = PyTuple_GET_ITEM(arg, 2);
  if (PyBytes_Check(state)) {
    std::lock_guard<std::mutex> lock(g.mutex);
    g.set_state(reinterpret_cast<const uint8_t*>(PyBytes_AS_STRING(state)), PyBytes_GET_SIZE(state));
  } else {
    set_state_from(g, state);
  }
  Py_RETURN_NONE;
  EMBER_PY_CATCH
}

PyMethodDef generator_methods[] = {
    {"manual_seed", g_manual_seed, METH_O,
     "manual_seed(seed) -> Generator\n\nSets the seed for generating random numbers; returns self."},
    {"seed", g_seed, METH_NOARGS, "seed() -> int\n\nReseeds from a non-deterministic source and returns the new seed."},
    {"initial_seed", g_initial_seed, METH_NOARGS, "initial_seed() -> int\n\nThe seed in use."},
    {"get_state", g_get_state, METH_NOARGS,
     "get_state() -> Tensor\n\nThe generator state as a torch.ByteTensor (PyTorch's layout)."},
    {"set_state", g_set_state, METH_O, "set_state(new_state) -> Generator\n\nRestores a state."},
    {"clone_state", g_clone_state, METH_NOARGS, "clone_state() -> Generator\n\nA new generator in the same state."},
    {"get_offset", g_get_offset, METH_NOARGS, "get_offset() -> int\n\nA CUDA generator's Philox offset."},
    {"set_offset", g_set_offset, METH_O, "set_offset(offset) -> Generator\n\nSets a CUDA generator's Philox offset."},
    {"__reduce__", g_reduce, METH_NOARGS, nullptr},
    {"__setstate__", g_setstate, METH_O, nullptr},
    {nullptr, nullptr, 0, nullptr}};

PyGetSetDef generator_getset[] = {{"device", g_device, nullptr, "The device of the generator.", nullptr},
                                  {nullptr, nullptr, nullptr, nullptr, nullptr}};

}  // namespace

Generator* generator_arg(PyObject* o, const char* fname) {
  if (!o || o == Py_None) return nullptr;
  EMBER_CHECK_TYPE(PyObject_TypeCheck(o, GeneratorType), fname,
                   "(): argument 'generator' must be torch.Generator, not ", Py_TYPE(o)->tp_name);
  return reinterpret_cast<PyGenerator*>(o)->gen.get();
}

PyObject* cuda_default_generator_object(int index) {
  Generator& g = cuda_default_generator(index);  // checks the index
  // One wrapper per device, kept for the process like the generators themselves (GIL held).
  static PyObject* objects[kMaxCudaGenerators] = {};
  if (!objects[index]) objects[index] = wrap_generator(GeneratorType, Ref<Generator>(&g));
  Py_INCREF(objects[index]);
  return objects[index];
}

void init_generator(PyObject* module) {
  static PyTypeObject type = {PyVarObject_HEAD_INIT(nullptr, 0)};
  type.tp_name = "ember._C.Generator";
  type.tp_basicsize = sizeof(PyGenerator);
  type.tp_dealloc = generator_dealloc;
  type.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  type.tp_doc = binding_doc("Generator");
  type.tp_new = generator_new;
  type.tp_methods = generator_methods;
  type.tp_getset = generator_getset;
  if (PyType_Ready(&type) < 0) throw python_error();
  GeneratorType = &type;
  Py_INCREF(&type);
  if (PyModule_AddObject(module, "Generator", reinterpret_cast<PyObject*>(&type)) < 0) throw python_error();
  PyObject* def = wrap_generator(&type, Ref<Generator>(&default_generator()));
  if (PyModule_AddObject(module, "default_generator", def) < 0) throw python_error();
}

}  // namespace ember::python
