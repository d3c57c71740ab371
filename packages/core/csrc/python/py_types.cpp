// dtype, device, layout and memory_format objects. Their repr says "torch."
// as PyTorch's does, so printed tensors match it character for character.
#include "py_types.h"

#include <cstring>
#include <string>

#include "../core/tensor.h"

namespace ember::python {

PyTypeObject* DtypeType = nullptr;
PyTypeObject* DeviceType = nullptr;
PyTypeObject* LayoutType = nullptr;
PyTypeObject* MemoryFormatType = nullptr;

namespace {
PyObject* g_dtypes[kNumScalarTypes] = {};
PyObject* g_formats[4] = {};

// The sub-byte dtypes uint1..uint7, int1..int7 (torch.bit is uint1): dtype objects only, as
// in PyTorch, whose kernels do not take them either. Their codes lie past the enum's values
// (ScalarType's underlying int8_t holds them), so no kernel table is indexed by them: parse_dtype
// refuses them before any op sees one.
constexpr int kSubByteBase = 64;  // codes 64..70: uint1..uint7; 71..77: int1..int7
const char* const kSubByteNames[] = {"uint1", "uint2", "uint3", "uint4", "uint5", "uint6", "uint7",
                                     "int1",  "int2",  "int3",  "int4",  "int5",  "int6",  "int7"};
const char* const kSubByteLegacy[] = {"UInt1", "UInt2", "UInt3", "UInt4", "UInt5", "UInt6", "UInt7",
                                      "Int1",  "Int2",  "Int3",  "Int4",  "Int5",  "Int6",  "Int7"};
constexpr int kNumSubByte = 14;
int sub_byte_index(ScalarType st) {
  const int c = static_cast<int>(st) - kSubByteBase;
  return c >= 0 && c < kNumSubByte ? c : -1;
}

// ---- dtype ----
ScalarType st_of(PyObject* self) { return reinterpret_cast<PyDtype*>(self)->st; }
const char* name_of(ScalarType st) {
  const int k = sub_byte_index(st);
  return k >= 0 ? kSubByteNames[k] : dtype_name(st);
}
PyObject* dtype_repr(PyObject* self) { return PyUnicode_FromFormat("torch.%s", name_of(st_of(self))); }
PyObject* dtype_is_floating(PyObject* self, void*) { return PyBool_FromLong(is_floating(st_of(self))); }
PyObject* dtype_is_complex(PyObject* self, void*) { return PyBool_FromLong(is_complex(st_of(self))); }
PyObject* dtype_is_signed(PyObject* self, void*) {
  const int k = sub_byte_index(st_of(self));
  return PyBool_FromLong(k >= 0 ? k >= 7 : is_signed(st_of(self)));
}
PyObject* dtype_itemsize(PyObject* self, void*) {
  return PyLong_FromSize_t(sub_byte_index(st_of(self)) >= 0 ? 1 : element_size(st_of(self)));
}
// dtype_object() is a borrowed reference: a method returns a new one.
PyObject* dtype_to_real(PyObject* self, PyObject*) {
  EMBER_PY_TRY
  if (sub_byte_index(st_of(self)) >= 0) return Py_NewRef(self);
  return Py_NewRef(dtype_object(to_real_type(st_of(self))));
  EMBER_PY_CATCH
}
PyObject* dtype_to_complex(PyObject* self, PyObject*) {
  EMBER_PY_TRY
  const ScalarType t = st_of(self);
  const int k = sub_byte_index(t);
  EMBER_CHECK(k < 0, "Unknown Complex ScalarType for ", k >= 0 ? kSubByteLegacy[k] : "");
  // PyTorch maps bfloat16 to complex64 too (its toComplexType has no complex bfloat16)
  return Py_NewRef(dtype_object(t == ScalarType::BFloat16 ? ScalarType::ComplexFloat : to_complex_type(t)));
  EMBER_PY_CATCH
}
// Pickles name ember._C._unpickle_constant directly: a bare name would make pickle
// search every module for the object (slow) and find torch's twin first.
PyObject* g_unpickle_constant = nullptr;
PyObject* g_unpickle_device = nullptr;
PyObject* dtype_reduce(PyObject* self, PyObject*) {
  return Py_BuildValue("(O(s))", g_unpickle_constant, name_of(st_of(self)));
}
PyGetSetDef dtype_getset[] = {{"is_floating_point", dtype_is_floating, nullptr, nullptr, nullptr},
                              {"is_complex", dtype_is_complex, nullptr, nullptr, nullptr},
                              {"is_signed", dtype_is_signed, nullptr, nullptr, nullptr},
                              {"itemsize", dtype_itemsize, nullptr, nullptr, nullptr},
                              {nullptr, nullptr, nullptr, nullptr, nullptr}};
PyMethodDef dtype_methods[] = {{"to_real", dtype_to_real, METH_NOARGS, nullptr},
                               {"to_complex", dtype_to_complex, METH_NOARGS, nullptr},
                               {"__reduce__", dtype_reduce, METH_NOARGS, nullptr},
                               {nullptr, nullptr, 0, nullptr}};

// ---- device ----
Device device_from_string(const std::string& s) {
  auto colon = s.find(':');
  std::string type = s.substr(0, colon);
  Device d;
  if (type == "cpu") {
    d.type = DeviceType::CPU;
  } else if (type == "cuda") {
    d.type = DeviceType::CUDA;
  } else if (type == "meta") {
    d.type = DeviceType::Meta;
  } else {
    fail(ErrorKind::Runtime,
         "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, "
         "maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: ",
         s);
  }
  if (colon != std::string::npos) {
    std::string idx = s.substr(colon + 1);
    EMBER_CHECK(!idx.empty() && idx.find_first_not_of("0123456789") == std::string::npos, "Invalid device string: '", s,
                "'");
    d.index = static_cast<int8_t>(std::stoi(idx));
  }
  return d;
}

PyObject* device_new(PyTypeObject*, PyObject* args, PyObject* kwargs) {
  EMBER_PY_TRY
  static const char* kw[] = {"type", "index", nullptr};
  PyObject* type = nullptr;
  PyObject* index = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O", const_cast<char**>(kw), &type, &index)) return nullptr;
  if (Py_TYPE(type) == DeviceType) {
    Py_INCREF(type);
    return type;
  }
  Device d;
  if (PyLong_Check(type)) {
    long i = PyLong_AsLong(type);
    EMBER_CHECK(i >= 0, "Device index must not be negative");
    d.type = DeviceType::CUDA;
    d.index = static_cast<int8_t>(i);
  } else {
    EMBER_CHECK_TYPE(PyUnicode_Check(type), "device() received an invalid combination of arguments");
    d = device_from_string(PyUnicode_AsUTF8(type));
    if (index != Py_None) {
      EMBER_CHECK(d.index < 0, "type (string) must not include an index because index was passed explicitly: ",
                  PyUnicode_AsUTF8(type));
      long i = PyLong_AsLong(index);
      EMBER_CHECK(i >= 0, "Device index must not be negative");
      d.index = static_cast<int8_t>(i);
    }
  }
  return new_device(d);
  EMBER_PY_CATCH
}
Device dev_of(PyObject* self) { return reinterpret_cast<PyDevice*>(self)->d; }
PyObject* device_repr(PyObject* self) {
  Device d = dev_of(self);
  const char* t = device_type_name(d.type);
  if (d.index < 0) return PyUnicode_FromFormat("device(type='%s')", t);
  return PyUnicode_FromFormat("device(type='%s', index=%d)", t, int(d.index));
}
PyObject* device_str(PyObject* self) { return PyUnicode_FromString(dev_of(self).str().c_str()); }
PyObject* device_type(PyObject* self, void*) { return PyUnicode_FromString(device_type_name(dev_of(self).type)); }
PyObject* device_index(PyObject* self, void*) {
  Device d = dev_of(self);
  if (d.index < 0) Py_RETURN_NONE;
  return PyLong_FromLong(d.index);
}
PyObject* device_richcompare(PyObject* a, PyObject* b, int op) {
  if (Py_TYPE(b) != DeviceType || (op != Py_EQ && op != Py_NE)) Py_RETURN_NOTIMPLEMENTED;
  bool eq = dev_of(a) == dev_of(b);
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}
Py_hash_t device_hash(PyObject* self) {
  Device d = dev_of(self);
  return static_cast<Py_hash_t>(static_cast<int>(d.type) * 1000 + d.index + 2);
}
PyObject* device_reduce(PyObject* self, PyObject*) {
  Device d = dev_of(self);
  PyObject* args = d.index < 0 ? Py_BuildValue("(s)", device_type_name(d.type))
                               : Py_BuildValue("(si)", device_type_name(d.type), int(d.index));
  return Py_BuildValue("(ON)", g_unpickle_device, args);
}
PyGetSetDef device_getset[] = {{"type", device_type, nullptr, nullptr, nullptr},
                               {"index", device_index, nullptr, nullptr, nullptr},
                               {nullptr, nullptr, nullptr, nullptr, nullptr}};
// `with ember.device(...)`: the default device inside the block, the one before restored after it
// (ember._runtime keeps the per-thread stack, beside set_default_device).
PyObject* call_runtime(const char* name, PyObject* self) {
  PyObject* runtime = PyImport_ImportModule("ember._runtime");
  if (!runtime) return nullptr;
  PyObject* r = PyObject_CallMethod(runtime, name, "O", self);
  Py_DECREF(runtime);
  return r;
}
PyObject* device_enter(PyObject* self, PyObject*) {
  PyObject* r = call_runtime("_device_enter", self);
  if (!r) return nullptr;
  Py_DECREF(r);
  Py_INCREF(self);
  return self;
}
PyObject* device_exit(PyObject* self, PyObject*) {
  PyObject* r = call_runtime("_device_exit", self);
  if (!r) return nullptr;
  Py_DECREF(r);
  Py_RETURN_NONE;
}
PyMethodDef device_methods[] = {{"__reduce__", device_reduce, METH_NOARGS, nullptr},
                                {"__enter__", device_enter, METH_NOARGS, nullptr},
                                {"__exit__", device_exit, METH_VARARGS, nullptr},
                                {nullptr, nullptr, 0, nullptr}};

// ---- layout / memory_format: named constants ----
PyObject* enum_repr(PyObject* self) {
  return PyUnicode_FromFormat("torch.%s", reinterpret_cast<PyEnumConst*>(self)->name);
}
PyObject* enum_reduce(PyObject* self, PyObject*) {
  return Py_BuildValue("(O(s))", g_unpickle_constant, reinterpret_cast<PyEnumConst*>(self)->name);
}

PyObject* g_module = nullptr;
PyObject* unpickle_constant(PyObject*, PyObject* name) { return PyObject_GetAttr(g_module, name); }
PyObject* unpickle_device(PyObject*, PyObject* args) {
  return PyObject_Call(reinterpret_cast<PyObject*>(DeviceType), args, nullptr);
}
PyMethodDef unpickle_defs[] = {{"_unpickle_constant", unpickle_constant, METH_O, nullptr},
                               {"_unpickle_device", unpickle_device, METH_VARARGS, nullptr},
                               {nullptr, nullptr, 0, nullptr}};
PyMethodDef enum_methods[] = {{"__reduce__", enum_reduce, METH_NOARGS, nullptr}, {nullptr, nullptr, 0, nullptr}};

PyTypeObject* make_type(const char* name, size_t size, reprfunc repr) {
  auto* t = new PyTypeObject{PyVarObject_HEAD_INIT(nullptr, 0)};
  t->tp_name = name;
  t->tp_basicsize = static_cast<Py_ssize_t>(size);
  t->tp_flags = Py_TPFLAGS_DEFAULT;
  t->tp_repr = repr;
  t->tp_doc = binding_doc(std::strrchr(name, '.') + 1);  // torch.dtype -> dtype
  return t;
}

void add(PyObject* module, const char* name, PyObject* obj) {
  Py_INCREF(obj);
  if (PyModule_AddObject(module, name, obj) < 0) throw python_error();
}

PyObject* new_enum(PyTypeObject* type, int value, const char* name) {
  PyObject* o = PyObject_New(PyObject, type);
  reinterpret_cast<PyEnumConst*>(o)->value = value;
  reinterpret_cast<PyEnumConst*>(o)->name = name;
  return o;
}
}  // namespace

PyObject* dtype_object(ScalarType st) { return g_dtypes[static_cast<int>(st)]; }
PyObject* memory_format_object(MemoryFormat mf) { return g_formats[static_cast<int>(mf)]; }

PyObject* new_device(Device d) {
  PyObject* o = PyObject_New(PyObject, DeviceType);
  if (!o) throw python_error();
  reinterpret_cast<PyDevice*>(o)->d = d;
  return o;
}

bool is_device_like(PyObject* o) {
  return Py_TYPE(o) == DeviceType || PyUnicode_Check(o) || (PyLong_Check(o) && !PyBool_Check(o));
}
Device parse_device(PyObject* o) {
  if (Py_TYPE(o) == DeviceType) return dev_of(o);
  if (PyUnicode_Check(o)) return device_from_string(PyUnicode_AsUTF8(o));
  long i = PyLong_AsLong(o);
  EMBER_CHECK(i >= 0, "Device index must not be negative");
  return Device{DeviceType::CUDA, static_cast<int8_t>(i)};
}

bool is_dtype_like(PyObject* o) {
  return Py_TYPE(o) == DtypeType || o == reinterpret_cast<PyObject*>(&PyFloat_Type) ||
         o == reinterpret_cast<PyObject*>(&PyLong_Type) || o == reinterpret_cast<PyObject*>(&PyBool_Type);
}
bool is_sub_byte_dtype(PyObject* o) { return Py_TYPE(o) == DtypeType && sub_byte_index(st_of(o)) >= 0; }
ScalarType parse_dtype(PyObject* o) {
  if (Py_TYPE(o) == DtypeType) {
    const int k = sub_byte_index(st_of(o));
    // PyTorch makes (uninitialised) tensors of them but no kernel takes them: "... not implemented for 'UInt1'"
    if (k >= 0)
      fail(ErrorKind::NotImplemented, "ember has no kernels for '", kSubByteLegacy[k], "' (torch.", kSubByteNames[k],
           "): sub-byte dtypes are dtype objects only");
    return st_of(o);
  }
  if (o == reinterpret_cast<PyObject*>(&PyFloat_Type)) return ScalarType::Float64;
  if (o == reinterpret_cast<PyObject*>(&PyBool_Type)) return ScalarType::Bool;
  return ScalarType::Int64;
}

void init_types(PyObject* m) {
  g_module = m;
  if (PyModule_AddFunctions(m, unpickle_defs) < 0) throw python_error();
  g_unpickle_constant = PyObject_GetAttrString(m, "_unpickle_constant");
  g_unpickle_device = PyObject_GetAttrString(m, "_unpickle_device");
  DtypeType = make_type("torch.dtype", sizeof(PyDtype), dtype_repr);
  DtypeType->tp_getset = dtype_getset;
  DtypeType->tp_methods = dtype_methods;
  DeviceType = make_type("torch.device", sizeof(PyDevice), device_repr);
  DeviceType->tp_new = device_new;
  DeviceType->tp_str = device_str;
  DeviceType->tp_getset = device_getset;
  DeviceType->tp_methods = device_methods;
  DeviceType->tp_richcompare = device_richcompare;
  DeviceType->tp_hash = device_hash;
  LayoutType = make_type("torch.layout", sizeof(PyEnumConst), enum_repr);
  LayoutType->tp_methods = enum_methods;
  MemoryFormatType = make_type("torch.memory_format", sizeof(PyEnumConst), enum_repr);
  MemoryFormatType->tp_methods = enum_methods;
  for (PyTypeObject* t : {DtypeType, DeviceType, LayoutType, MemoryFormatType})
    if (PyType_Ready(t) < 0) throw python_error();
  add(m, "dtype", reinterpret_cast<PyObject*>(DtypeType));
  add(m, "device", reinterpret_cast<PyObject*>(DeviceType));
  add(m, "layout", reinterpret_cast<PyObject*>(LayoutType));
  add(m, "memory_format", reinterpret_cast<PyObject*>(MemoryFormatType));

  for (int i = 0; i < kNumScalarTypes; ++i) {
    PyObject* o = PyObject_New(PyObject, DtypeType);
    reinterpret_cast<PyDtype*>(o)->st = static_cast<ScalarType>(i);
    g_dtypes[i] = o;
    add(m, dtype_name(static_cast<ScalarType>(i)), o);
  }
  for (int k = 0; k < kNumSubByte; ++k) {
    PyObject* o = PyObject_New(PyObject, DtypeType);
    reinterpret_cast<PyDtype*>(o)->st = static_cast<ScalarType>(kSubByteBase + k);
    add(m, kSubByteNames[k], o);
    if (k == 0) add(m, "bit", o);  // torch.bit is torch.uint1
    Py_DECREF(o);                  // the module holds it
  }
  struct Alias {
    const char* name;
    ScalarType st;
  };
  for (Alias a : {Alias{"float", ScalarType::Float32},
                  {"double", ScalarType::Float64},
                  {"half", ScalarType::Float16},
                  {"short", ScalarType::Int16},
                  {"int", ScalarType::Int32},
                  {"long", ScalarType::Int64},
                  {"cfloat", ScalarType::ComplexFloat},
                  {"cdouble", ScalarType::ComplexDouble},
                  {"chalf", ScalarType::ComplexHalf}})
    add(m, a.name, dtype_object(a.st));
  add(m, "strided", new_enum(LayoutType, 0, "strided"));
  const char* formats[] = {"contiguous_format", "preserve_format", "channels_last", "channels_last_3d"};
  for (int i = 0; i < 4; ++i) {
    g_formats[i] = new_enum(MemoryFormatType, i, formats[i]);
    add(m, formats[i], g_formats[i]);
  }
}

}  // namespace ember::python
