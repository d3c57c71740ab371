// Tensor.__getitem__/__setitem__ for basic indices (ints, slices, None,
// Ellipsis, bools): they produce views. Advanced indexing is the indexing issue's.
#include "arg_parser.h"
#include "ops.h"
#include "../ops/checks.h"
#include "../iter/elementwise_iter.h"
#include "autograd_ops.h"
#include "../autograd/view_grad.h"
#include "py_tensor.h"

namespace ember::python {

namespace {

bool is_basic_int(PyObject* o) {
  return (PyLong_Check(o) && !PyBool_Check(o)) ||
         (is_tensor(o) && unpack(o).dim() == 0 && is_integral(unpack(o).dtype(), false)) ||
         (!is_tensor(o) && !PyFloat_Check(o) && !PyBool_Check(o) && PyIndex_Check(o));
}

// Apply basic indices to t; returns the view (recorded for autograd).
Tensor apply_basic(const Tensor& t, PyObject* index) {
  const char* kind = "AsStridedBackward0";
  PyObject* single[1] = {index};
  PyObject* const* items = single;
  Py_ssize_t n = 1;
  if (PyTuple_Check(index)) {
    items = &PyTuple_GET_ITEM(index, 0);
    n = PyTuple_GET_SIZE(index);
  }
  // Dims consumed by ints and slices; Ellipsis expands to the rest.
  int64_t consumed = 0;
  bool seen_ellipsis = false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* o = items[i];
    if (o == Py_Ellipsis) {
      EMBER_CHECK_INDEX(!seen_ellipsis, "an index can only have a single ellipsis ('...')");
      seen_ellipsis = true;
    } else if (o != Py_None && !PyBool_Check(o)) {
      ++consumed;
    }
  }
  EMBER_CHECK_INDEX(t.dim() > 0 || consumed == 0,
                    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                    "in C++ to convert a 0-dim tensor to a number");
  EMBER_CHECK_INDEX(consumed <= t.dim(), "too many indices for tensor of dimension ", t.dim());
  DimVector sizes, strides;
  int64_t offset = t.offset();
  int64_t d = 0;  // next source dim
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* o = items[i];
    if (o == Py_Ellipsis) {
      int64_t skip = t.dim() - consumed;
      for (int64_t k = 0; k < skip; ++k, ++d) {
        sizes.push_back(t.sizes()[d]);
        strides.push_back(t.strides()[d]);
      }
    } else if (o == Py_None) {
      sizes.push_back(1);
      strides.push_back(1);
      kind = "UnsqueezeBackward0";
    } else if (PyBool_Check(o)) {
      sizes.push_back(o == Py_True ? 1 : 0);
      strides.push_back(1);
    } else if (PySlice_Check(o)) {
      Py_ssize_t start, stop, step;
      if (PySlice_Unpack(o, &start, &stop, &step) < 0) throw python_error();
      EMBER_CHECK_VALUE(step > 0, "step must be greater than zero");
      int64_t size = t.sizes()[d];
      Py_ssize_t len = PySlice_AdjustIndices(size, &start, &stop, step);
      sizes.push_back(len);
      strides.push_back(t.strides()[d] * step);
      if (len > 0) offset += start * t.strides()[d];
      kind = "SliceBackward0";
      ++d;
    } else if (is_basic_int(o)) {
      int64_t idx = to_int64(o), size = t.sizes()[d];
      EMBER_CHECK_INDEX(idx >= -size && idx < size, "index ", idx, " is out of bounds for dimension ", d,
                        " with size ", size);
      if (idx < 0) idx += size;
      offset += idx * t.strides()[d];
      kind = "SelectBackward0";
      ++d;
    } else if (is_tensor(o) || PyList_Check(o) || PyTuple_Check(o)) {
      fail(ErrorKind::NotImplemented, "ember: advanced indexing (tensors, lists and masks as indices) "
           "is not implemented yet");
    } else {
      fail(ErrorKind::Index, "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
           "are valid indices (got ", Py_TYPE(o)->tp_name, ")");
    }
  }
  for (; d < t.dim(); ++d) {
    sizes.push_back(t.sizes()[d]);
    strides.push_back(t.strides()[d]);
  }
  Tensor v = make_view(t, sizes, strides, offset);
  record_view(t, v, kind);
  return v;
}

}  // namespace

PyObject* tensor_getitem(PyObject* self, PyObject* index) {
  EMBER_PY_TRY
  return wrap(apply_basic(unpack(self), index));
  EMBER_PY_CATCH
}

int tensor_setitem(PyObject* self, PyObject* index, PyObject* value) {
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(value, "Tensor does not support item deletion");
  const Tensor& t = unpack(self);
  check_inplace(t, "index_put_");
  Tensor view = apply_basic(t, index);
  Tensor src = is_tensor(value) ? unpack(value) : scalar_tensor(to_scalar(value), t.dtype());
  if (GradMode::is_enabled() && (t.requires_grad() || src.requires_grad())) {
    ag::copy_(view, src, false);  // records CopySlices on t's base
    return 0;
  }
  copy_into(view, src);
  t.bump_version();
  return 0;
  EMBER_PY_CATCH_INT
}

}  // namespace ember::python
