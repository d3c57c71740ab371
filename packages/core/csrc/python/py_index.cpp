// Tensor.__getitem__/__setitem__. Basic indices (ints, slices, None, Ellipsis,
// bools) produce a view first; tensor, list and mask indices then go through
// advanced indexing (ag::index / ag::index_put_) on that view, each recording
// its autograd node. While a profiler records, the view is made one basic index at a time
// (select, slice, unsqueeze: each its own top-level event, as aten's applySlicing makes them).
#include "../autograd/formulas_index.h"
#include "../autograd/view_grad.h"
#include "../iter/elementwise_iter.h"
#include "arg_parser.h"
#include "autograd_ops.h"
#include "core/profiler_op.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/index/index_advanced.h"
#include "ops/shape/shape_internal.h"
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

// A new unit dim's stride, as unsqueeze gives it before source dim d.
int64_t unit_stride(const Tensor& t, int64_t d) { return d < t.dim() ? t.strides()[d] * t.sizes()[d] : 1; }

// The view made step by step while a profiler records: each basic index is aten's op on the
// view so far (its event top-level, as aten's applySlicing calls it), at dim `pos` of that view.
struct Steps {
  bool on = false;
  Tensor cur;  // (held only while on: no reference count traffic otherwise)
  bool stepped = false;
  void unsqueeze(int64_t pos) {
    cur = profiler::nested_op("aten::unsqueeze", {&cur, nullptr}, [&] { return ember::unsqueeze(cur, pos); });
    stepped = true;
  }
  void select(int64_t pos, int64_t idx) {
    cur = profiler::nested_op("aten::select", {&cur, nullptr, nullptr}, [&] { return ember::select(cur, pos, idx); });
    stepped = true;
  }
  void slice(int64_t pos, int64_t start, int64_t len, int64_t step) {
    cur = slice_op(cur, pos, start, len, step);
    stepped = true;
  }
};

// Apply basic indices to t (the view is recorded for autograd) and collect the
// advanced ones against the view's dims. for_set: __setitem__'s rules (a lone whole-dim slice
// makes no slice op; no alias of an unchanged tensor).
Indexed apply_index(const Tensor& t, PyObject* index, bool for_set) {
  const char* kind = "AsStridedBackward0";
  PyObject* single[1] = {index};
  PyObject* const* items = single;
  Py_ssize_t n = 1;
  bool lone = true;  // a lone index (not a tuple): getitem slices it even when it spans the dim
  if (PyTuple_Check(index)) {
    lone = false;
    items = &PyTuple_GET_ITEM(index, 0);
    n = PyTuple_GET_SIZE(index);
  } else if (list_as_tuple(index)) {
    lone = false;
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
  Steps steps;
  steps.on = profiler::active();
  if (steps.on) steps.cur = t;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* o = items[i];
    const int64_t pos = static_cast<int64_t>(sizes.size());  // the dim this index acts on in the view so far
    if (const Tensor* a = adv_tensor(i)) {
      // adv holds one entry per index item: a mask stands for all the dims it covers.
      for (; covered < static_cast<int64_t>(sizes.size()); ++covered) adv.emplace_back();
      if (is_bool_tensor(*a) && a->dim() == 0) {
        // A 0-d mask adds a unit dim that the mask (as [1]) then selects or empties.
        if (steps.on) steps.unsqueeze(pos);
        sizes.push_back(1);
        strides.push_back(unit_stride(t, d));
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
      if (steps.on) steps.unsqueeze(pos);
      sizes.push_back(1);
      strides.push_back(unit_stride(t, d));
      kind = "UnsqueezeBackward0";
      changed = true;
    } else if (PyBool_Check(o)) {
      // (aten then indexes the new dim with a [0] / [] index tensor: a copy, where ember keeps a view)
      if (steps.on) steps.unsqueeze(pos);
      if (steps.on && o == Py_False) steps.cur = slice_view(steps.cur, pos, 0, 0);
      sizes.push_back(o == Py_True ? 1 : 0);
      strides.push_back(unit_stride(t, d));
      changed = true;
    } else if (PySlice_Check(o)) {
      Py_ssize_t start, stop, step;
      if (PySlice_Unpack(o, &start, &stop, &step) < 0) throw python_error();
      EMBER_CHECK_VALUE(step > 0, "step must be greater than zero");
      int64_t size = t.sizes()[d];
      // aten skips a slice from 0 to (at least) the end with step 1, but not a lone getitem one
      bool whole = start == 0 && stop >= size && step == 1 && (for_set || !lone);
      Py_ssize_t len = PySlice_AdjustIndices(size, &start, &stop, step);
      if (steps.on && !whole) steps.slice(pos, start, len, step);
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
      if (steps.on) steps.select(pos, idx);
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
  auto whole_view = [&] { return make_view(t, sizes, strides, offset); };
  if (steps.stepped && steps.cur.sizes().equals(sizes) && steps.cur.strides().equals(strides) &&
      steps.cur.offset() == offset) {
    r.view = steps.cur;  // the steps' view (the same geometry)
  } else if (steps.on && !steps.stepped && !r.has_adv && !for_set) {
    r.view = profiler::nested_op("aten::alias", {&t}, whole_view);  // x[...], x[:, :]: aten's alias
  } else {
    r.view = whole_view();
  }
  record_view(t, r.view, kind);
  return r;
}

}  // namespace

PyObject* tensor_getitem(PyObject* self, PyObject* index) {
  EMBER_PY_TRY
  TORCH_FUNCTION_OP("__getitem__", nullptr, self, index, nullptr)
  const Tensor& t = unpack(self);
  Indexed r = apply_index(t, index, false);
  if (!r.has_adv) return wrap(r.view);      // a view: a conjugate view's keeps the bit
  OpScope prof_("aten::index", {&r.view});  // after the basic indices' ops, as aten's dispatch_index
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
  Indexed r = apply_index(t, index, true);  // (a bad index is the error before a leaf's)
  // basic indexing writes through a view of t, as PyTorch's message says; advanced indexing is t's index_put_
  const AutogradMeta* m = t.impl()->autograd.get();
  // (x[...] = v is x's own copy_)
  EMBER_CHECK(r.has_adv || index == Py_Ellipsis || !GradMode::is_enabled() || !m || !m->requires_grad || m->grad_fn,
              "a view of a leaf Variable that requires grad is being used in an in-place operation.");
  // (basic indexing: the view written through is checked, as PyTorch names it: "Output 0 of Select")
  check_inplace(r.has_adv || index == Py_Ellipsis ? t : r.view, "index_put_");
  Tensor view = r.view;
  Tensor src = is_tensor(value) ? unpack(value) : scalar_tensor(to_scalar(value), t.dtype());
  // x[i] = v views v without its leading unit dims (PyTorch's slicePrefix1sSize; index_put_ itself
  // does not) and, on the copy path, only where the shapes differ
  const bool same_shape = view.sizes().equals(src.sizes());
  int64_t lead = 0;
  while (lead < src.dim() && src.sizes()[lead] == 1) ++lead;
  if (r.has_adv ? lead > 0 : (!same_shape && src.dim() > 0))
    src = ag::view(src, IntArrayRef(src.sizes().begin() + lead, static_cast<size_t>(src.dim() - lead)));
  // aten broadcasts the value with expand before its copy_ (expand's errors for a value that does not fit)
  if (!r.has_adv && !same_shape && src.dim() > 0 && !src.sizes().equals(view.sizes()))
    src = ag::expand(src, view.sizes());
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
  // aten's copy_to: copy_ for the same shapes, else fill_ (a copy_ inside) from a 0-d value
  OpScope prof_(src.dim() == 0 && !same_shape ? "aten::fill_" : "aten::copy_", {&view, &src});
  if (GradMode::is_enabled() && (t.requires_grad() || src.requires_grad())) {
    ag::copy_(view, src, false);  // records CopySlices on t's base
    return 0;
  }
  profiler::nested_op("aten::copy_", {&view, &src}, [&] { copy_into(view, src); });
  t.bump_version();
  return 0;
  EMBER_PY_CATCH_INT
}

}  // namespace ember::python
