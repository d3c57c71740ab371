// Tensor.__getitem__/__setitem__. Basic indices (ints, slices, None, Ellipsis,
// bools) produce a view first; tensor, list and mask indices then go through
// advanced indexing (ag::index / ag::index_put_) on that view, each recording
// its autograd node.
#include "../autograd/formulas_index.h"
#include "../autograd/view_grad.h"
#include "../iter/elementwise_iter.h"
#include "arg_parser.h"
#include "autograd_ops.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/index/index_advanced.h"
#include "py_conj_fallback.h"
#include "py_profiler.h"
#include "py_tensor.h"
#include "py_torch_function.h"

namespace ember::python {

namespace {

bool is_basic_int(PyObject* o) {
  return (PyLong_Check(o) && !PyBool_Check(o)) ||
         (is_tensor(o) && unpack(o).dim() == 0 && is_integral(unpack(o).dtype(), false)) ||
         (!is_tensor(o) && !PyFloat_Check(o) && !PyBool_Check(o) && PyIndex_Check(o));
}

// A list/tuple used as an index becomes an index tensor (empty lists are long).
Tensor seq_to_index(PyObject* o) {
  Tensor r = tensor_from_data(o, std::nullopt);
  if (r.numel() == 0 && r.is_floating()) r = _to_copy(r, ScalarType::Int64);
  return r;
}

bool is_bool_tensor(const Tensor& t) { return t.dtype() == ScalarType::Bool || t.dtype() == ScalarType::UInt8; }

// Dims of the source a (non-basic) tensor index consumes.
int64_t tensor_index_dims(const Tensor& t) { return is_bool_tensor(t) ? t.dim() : 1; }

// PyTorch's (deprecated, still current) legacy rule: a short list holding a
// slice, None, Ellipsis, tensor or sequence is read as a tuple of indices.
bool list_as_tuple(PyObject* index) {
  if (!PyList_Check(index) || PyList_GET_SIZE(index) >= 32) return false;
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(index); ++i) {
    PyObject* o = PyList_GET_ITEM(index, i);
    if (o == Py_None || o == Py_Ellipsis || PySlice_Check(o) || is_tensor(o) || PyList_Check(o) || PyTuple_Check(o))
      return true;
  }
  return false;
}

struct Indexed {
  Tensor view;    // t after the basic indices
  IndexList adv;  // advanced index per dim of `view` (undefined: whole dim)
  bool has_adv = false;
  bool has_mask = false;  // the advanced indices are all bool masks (of >= 1 dim)
};

// Apply basic indices to t (the view is recorded for autograd) and collect the
// advanced ones against the view's dims.
Indexed apply_index(const Tensor& t, PyObject* index) {
  const char* kind = "AsStridedBackward0";
  PyObject* single[1] = {index};
  PyObject* const* items = single;
  Py_ssize_t n = 1;
  if (PyTuple_Check(index)) {
    items = &PyTuple_GET_ITEM(index, 0);
    n = PyTuple_GET_SIZE(index);
  } else if (list_as_tuple(index)) {
    items = &PyList_GET_ITEM(index, 0);
    n = PyList_GET_SIZE(index);
  }
  // Tensors standing for the sequence items, converted once.
  std::vector<Tensor> seq(n);
  for (Py_ssize_t i = 0; i < n; ++i)
    if (PyList_Check(items[i]) || (PyTuple_Check(items[i]) && items[i] != index)) seq[i] = seq_to_index(items[i]);
  auto adv_tensor = [&](Py_ssize_t i) -> const Tensor* {
    if (seq[i].defined()) return &seq[i];
    if (is_tensor(items[i]) && !is_basic_int(items[i])) return &unpack(items[i]);
    return nullptr;
  };
  // Dims consumed by ints and slices; Ellipsis expands to the rest.
  int64_t consumed = 0;
  bool seen_ellipsis = false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* o = items[i];
    if (o == Py_Ellipsis) {
      EMBER_CHECK_INDEX(!seen_ellipsis, "an index can only have a single ellipsis ('...')");
      seen_ellipsis = true;
    } else if (const Tensor* a = adv_tensor(i)) {
      consumed += tensor_index_dims(*a);
    } else if (o != Py_None && !PyBool_Check(o)) {
      ++consumed;
    }
  }
  EMBER_CHECK_INDEX(t.dim() > 0 || consumed == 0,
                    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                    "in C++ to convert a 0-dim tensor to a number");
  EMBER_CHECK_INDEX(consumed <= t.dim(), "too many indices for tensor of dimension ", t.dim());
  DimVector sizes, strides;
  IndexList adv;
  int64_t covered = 0;  // dims of the view that adv's entries stand for
  bool has_mask = false, has_int_index = false;
  bool changed = false;
  int64_t offset = t.offset();
  int64_t d = 0;  // next source dim
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* o = items[i];
    if (const Tensor* a = adv_tensor(i)) {
      // adv holds one entry per index item: a mask stands for all the dims it covers.
      for (; covered < static_cast<int64_t>(sizes.size()); ++covered) adv.emplace_back();
      if (is_bool_tensor(*a) && a->dim() == 0) {
        // A 0-d mask adds a unit dim that the mask (as [1]) then selects or empties.
        sizes.push_back(1);
        strides.push_back(0);
        changed = true;
        adv.push_back(reshape(*a, {1}));
        ++covered;
        continue;
      }
      adv.push_back(*a);
      has_mask |= is_bool_tensor(*a);
      has_int_index |= !is_bool_tensor(*a);
      int64_t k = tensor_index_dims(*a);
      covered += k;
      for (int64_t j = 0; j < k; ++j, ++d) {
        sizes.push_back(t.sizes()[d]);
        strides.push_back(t.strides()[d]);
      }
      continue;
    }
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
      changed = true;
    } else if (PyBool_Check(o)) {
      sizes.push_back(o == Py_True ? 1 : 0);
      strides.push_back(1);
      changed = true;
    } else if (PySlice_Check(o)) {
      Py_ssize_t start, stop, step;
      if (PySlice_Unpack(o, &start, &stop, &step) < 0) throw python_error();
      EMBER_CHECK_VALUE(step > 0, "step must be greater than zero");
      int64_t size = t.sizes()[d];
      Py_ssize_t len = PySlice_AdjustIndices(size, &start, &stop, step);
      sizes.push_back(len);
      strides.push_back(t.strides()[d] * step);
      offset += start * t.strides()[d];  // also for an empty slice: PyTorch keeps its (clamped) start
      kind = "SliceBackward0";
      changed |= len != size;
      ++d;
    } else if (is_basic_int(o)) {
      int64_t idx = to_int64(o), size = t.sizes()[d];
      EMBER_CHECK_INDEX(idx >= -size && idx < size, "index ", idx, " is out of bounds for dimension ", d, " with size ",
                        size);
      if (idx < 0) idx += size;
      offset += idx * t.strides()[d];
      kind = "SelectBackward0";
      changed = true;
      ++d;
    } else {
      fail(ErrorKind::Index,
           "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
           "are valid indices (got ",
           Py_TYPE(o)->tp_name, ")");
    }
  }
  for (; d < t.dim(); ++d) {
    sizes.push_back(t.sizes()[d]);
    strides.push_back(t.strides()[d]);
  }
  Indexed r;
  r.has_adv = !adv.empty();
  r.has_mask = has_mask && !has_int_index;
  r.adv = std::move(adv);
  // Pure advanced indexing uses t itself, so IndexBackward0 links straight to t.
  if (!changed && r.has_adv) {
    r.view = t;
    return r;
  }
  r.view = make_view(t, sizes, strides, offset);
  record_view(t, r.view, kind);
  return r;
}

}  // namespace

// The aten op torch's profiler shows for an index expression: its one basic op, or index for
// tensor / list indices. A tuple is named by its first element that is not a whole-dim `:` or
// `...` (those make no op).
static bool whole_dim(PyObject* o) {
  if (o == Py_Ellipsis) return true;
  if (!PySlice_Check(o)) return false;
  PySliceObject* sl = reinterpret_cast<PySliceObject*>(o);
  return sl->start == Py_None && sl->stop == Py_None && sl->step == Py_None;
}

static const char* index_op_name(PyObject* index) {
  if (PyTuple_Check(index)) {
    Py_ssize_t i = 0;
    while (i + 1 < PyTuple_GET_SIZE(index) && whole_dim(PyTuple_GET_ITEM(index, i))) ++i;
    if (PyTuple_GET_SIZE(index) > 0) index = PyTuple_GET_ITEM(index, i);
  }
  if (PySlice_Check(index)) return "aten::slice";
  if (index == Py_None) return "aten::unsqueeze";
  if (index == Py_Ellipsis) return "aten::alias";
  if (is_basic_int(index)) return "aten::select";
  return "aten::index";
}

PyObject* tensor_getitem(PyObject* self, PyObject* index) {
  EMBER_PY_TRY
  TORCH_FUNCTION_OP("__getitem__", nullptr, self, index, nullptr)
  const Tensor& t = unpack(self);
  OpScope prof_(index_op_name(index), {&t});
  Indexed r = apply_index(t, index);
  if (!r.has_adv) return wrap(r.view);  // a view: a conjugate view's keeps the bit
  return wrap(ag::index(resolved_operand(r.view), r.adv));
  EMBER_PY_CATCH
}

int tensor_setitem(PyObject* self, PyObject* index, PyObject* value) {
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(value, "Tensor does not support item deletion");
  if (g_torch_function_state) [[unlikely]] {
    PyObject* tf_r_;
    if (torch_function_operator("__setitem__", nullptr, self, index, value, &tf_r_)) {
      Py_XDECREF(tf_r_);
      return tf_r_ ? 0 : -1;
    }
  }
  const Tensor& t = unpack(self);
  check_inplace(t, "index_put_");
  Indexed r;
  const char* basic = index_op_name(index);
  if (basic[6] == 'i') {  // "aten::index": the index_put_ below is the whole op
    r = apply_index(t, index);
  } else {
    OpScope prof_(basic, {&t});
    r = apply_index(t, index);
  }
  Tensor view = r.view;
  Tensor src = is_tensor(value) ? unpack(value) : scalar_tensor(to_scalar(value), t.dtype());
  // x[i] = v drops v's leading unit dims (PyTorch's slicePrefix1sSize); index_put_ itself does not
  while (src.dim() > 0 && src.sizes()[0] == 1) src = ag::select(src, 0, 0);
  src = resolved_operand(src);
  if (view.impl()->conj) {  // a conjugate view stores conjugates: write conj(src) through its bitless view
    view = ag::conj_view(view);
    src = ag::conj_physical(src);
  }
  if (r.has_adv) {
    // PyTorch casts the value only on its masked_fill_ path: the whole index is one bool
    // tensor of at least one dim and the value is 0-d. Otherwise the dtypes must match.
    // (None, slices, ints and Ellipsis around it do not count; lists are index tensors.)
    PyObject* only = nullptr;
    int n_tensor = 0;
    auto see = [&](PyObject* item) {
      if (is_tensor(item) || PyList_Check(item)) {
        ++n_tensor;
        only = item;
      }
    };
    if (PyTuple_Check(index)) {
      for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(index); ++i) see(PyTuple_GET_ITEM(index, i));
    } else {
      see(index);
    }
    bool fill_path = n_tensor == 1 && is_tensor(only) && unpack(only).dtype() == ScalarType::Bool &&
                     unpack(only).dim() > 0 && src.dim() == 0;
    if (r.has_mask && fill_path && src.dtype() != t.dtype()) src = ag::_to_copy(src, t.dtype());
    // Otherwise tensor values must match (index_put_'s rule); Python numbers were made in t's dtype.
    EMBER_CHECK(src.dtype() == t.dtype(), "Index put requires the source and destination dtypes match, got ",
                legacy_name(t.dtype()), " for the destination and ", legacy_name(src.dtype()), " for the source.");
    OpScope prof_("aten::index_put_", {&view, &src});
    ag::index_put_(view, r.adv, src, false);
    return 0;
  }
  OpScope prof_(is_tensor(value) ? "aten::copy_" : "aten::fill_", {&view, &src});
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
