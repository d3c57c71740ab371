// The Python object behind ember.Tensor. `ember.Tensor` is a Python subclass
// of _C.TensorBase; C code creates instances of that registered class, and a
// TensorImpl remembers its Python object so the same tensor is the same object.
#pragma once
#include <initializer_list>
#include <string>
#include <tuple>
#include <vector>

#include "py_common.h"

namespace ember::python {

struct PyTensor {
  PyObject_HEAD Tensor t;
};

extern PyTypeObject* TensorBaseType;
extern PyTypeObject* g_tensor_class;  // ember.Tensor, set by ember/__init__.py

inline bool is_tensor(PyObject* o) { return Py_TYPE(o) == g_tensor_class || PyObject_TypeCheck(o, TensorBaseType); }
inline const Tensor& unpack(PyObject* o) { return reinterpret_cast<PyTensor*>(o)->t; }

PyObject* wrap(Tensor t);
// Tensor.H / Tensor.mH getters (py_tensor_conj.cpp).
PyObject* tensor_get_H(PyObject* self, void*);
PyObject* tensor_get_mH(PyObject* self, void*);
PyObject* wrap(bool b);
PyObject* wrap(const Scalar& s);
PyObject* wrap(TensorList ts);
// The structseq type torch.return_types.<name> (one per name; Python-side named returns use it too).
PyTypeObject* return_type(const std::string& name, const std::vector<std::string>& fields);
PyObject* wrap_tuple(std::tuple<Tensor, Tensor> r, const char* name, std::initializer_list<const char*> fields);
PyObject* wrap_tuple(std::tuple<Tensor, Tensor, Tensor> r, const char* name, std::initializer_list<const char*> fields);
// A new Python object of `cls` (a Tensor subclass) around t.
PyObject* wrap_as(PyTypeObject* cls, Tensor t);

void init_tensor_type(PyObject* module);
void init_storage(PyObject* module);   // py_storage.cpp
void init_dlpack(PyObject* module);    // py_dlpack.cpp
void init_autograd(PyObject* module);  // py_autograd.cpp
void init_argcheck(PyObject* module);  // py_argcheck.cpp: _C._checked
PyMethodDef* generated_functions();
PyMethodDef* generated_methods();

// Python data → tensor (ember.tensor), tensor → nested lists (tolist).
Tensor tensor_from_data(PyObject* data, std::optional<ScalarType> dtype);
PyObject* tensor_to_list(const Tensor& t);

// The number protocol and rich comparison (py_tensor_operators.cpp).
extern PyNumberMethods tensor_as_number;
PyObject* tensor_richcompare(PyObject* a, PyObject* b, int op);

// Indexing (py_index.cpp).
PyObject* tensor_getitem(PyObject* self, PyObject* index);
int tensor_setitem(PyObject* self, PyObject* index, PyObject* value);

}  // namespace ember::python
