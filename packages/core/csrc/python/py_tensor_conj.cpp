// Tensor.H and Tensor.mH: the conjugate transposes (a file of their own: py_tensor.cpp is at its
// size limit).
#include <string>

#include "entry_ops.h"
#include "py_profiler.h"
#include "py_tensor.h"
#include "py_torch_function.h"

namespace ember::python {

#define SELF (unpack(self))

// The conjugate transposes (H: 2-D only, mH: batches too): for complex dtypes, conjugate views.
static PyObject* conj_transpose(PyObject* self, bool batches) {
  EMBER_PY_TRY
  const Tensor& t = SELF;
  const char* name = batches ? "mH" : "H";
  if (t.dim() == 0) {
    std::string msg = std::string("Tensor.") + name + " is deprecated on 0-D tensors. Consider using x.conj().";
    if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 1) < 0) return nullptr;
    return wrap(entry::conj_view(t));
  }
  if (batches)
    EMBER_CHECK(t.dim() >= 2, "tensor.mH is only supported on matrices or batches of matrices. Got ", t.dim(),
                "-D tensor.");
  else
    EMBER_CHECK(t.dim() == 2, "tensor.H is only supported on matrices (2-D tensors). Got ", t.dim(), "-D tensor.",
                t.dim() > 2 ? " For batches of matrices, consider using tensor.mH" : "");
  OpScope prof_(batches ? "aten::mH" : "aten::matrix_H", {&t});  // as torch: then the transpose it calls
  Tensor tr = entry::transpose(t, -2, -1);
  return wrap(is_complex(t.dtype()) ? entry::conj_view(tr) : tr);  // aten's conj() of a real tensor: itself
  EMBER_PY_CATCH
}
PyObject* tensor_get_H(PyObject* self, void* prop) {
  TORCH_FUNCTION_GETTER(self, prop)
  return conj_transpose(self, false);
}
PyObject* tensor_get_mH(PyObject* self, void* prop) {
  TORCH_FUNCTION_GETTER(self, prop)
  return conj_transpose(self, true);
}

}  // namespace ember::python
