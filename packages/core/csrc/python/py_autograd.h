// Shared by the autograd binding files.
#pragma once
#include "../autograd/node.h"
#include "py_common.h"

namespace ember::python {

// The Python object for a graph node (same object while it lives).
PyObject* wrap_node(const Ref<Node>& node);
// The node behind a custom Function's ctx object (null once the node is freed).
Node* function_node_of(PyObject* ctx);
PyMethodDef* node_method_table();
PyGetSetDef* node_getset_table();
void init_function(PyObject* module);  // py_function.cpp
// GC support: visit / drop the Python hooks reachable only through this tensor.
int traverse_autograd(const Tensor& t, visitproc visit, void* arg);
void clear_autograd(const Tensor& t);
// Tensor.grad_dtype (a getset of the tensor type).
PyObject* tensor_get_grad_dtype(PyObject* self, void*);
int tensor_set_grad_dtype(PyObject* self, PyObject* v, void*);

}  // namespace ember::python
