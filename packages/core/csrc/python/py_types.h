// dtype, device, layout and memory_format as Python objects.
#pragma once
#include "../core/memory_format.h"
#include "py_common.h"

namespace ember::python {

struct PyDtype {
  PyObject_HEAD ScalarType st;
};
struct PyDevice {
  PyObject_HEAD Device d;
};
struct PyEnumConst {
  PyObject_HEAD int value;
  const char* name;
};

extern PyTypeObject* DtypeType;
extern PyTypeObject* DeviceType;
extern PyTypeObject* LayoutType;
extern PyTypeObject* MemoryFormatType;

// Borrowed singleton for a dtype / memory format.
PyObject* dtype_object(ScalarType st);
PyObject* memory_format_object(MemoryFormat mf);
PyObject* new_device(Device d);
// The hand-written bindings' docs (docs_ops/bindings.yaml, generated into docstrings.cpp):
// one by key (an ember name or Tensor.<method>; null if none), or a whole def table's.
const char* binding_doc(const char* key);
void document_bindings(PyMethodDef* defs, bool methods);
// Accepts a device object, a string like "cuda:1", or an int ordinal.
Device parse_device(PyObject* o);
bool is_device_like(PyObject* o);
// Python int/float/bool type objects given as dtype= (torch accepts dtype=float).
bool is_dtype_like(PyObject* o);
// Raises NotImplementedError for the sub-byte dtypes (torch.uint1 ... torch.int7): no kernel takes them.
ScalarType parse_dtype(PyObject* o);
bool is_sub_byte_dtype(PyObject* o);

void init_types(PyObject* module);

}  // namespace ember::python
