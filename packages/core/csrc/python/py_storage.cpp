// Storage-level primitives for the pure-Python layers that move raw bytes:
// serialization (ember.save/load), shared memory (ember.multiprocessing) and
// DLPack. Small on purpose: Python decides the policy, these only expose facts.
#include "../core/size_math.h"
#include "ops/core/checks.h"
#include "py_tensor.h"
#include "py_types.h"

namespace ember::python {
namespace {

int64_t to_i64(PyObject* o) {
  int64_t v = PyLong_AsLongLong(o);
  if (v == -1 && PyErr_Occurred()) throw python_error();
  return v;
}

DimVector int_list(PyObject* seq, const char* what) {
  PyObject* fast = PySequence_Fast(seq, what);
  if (!fast) throw python_error();
  DimVector out;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); ++i) {
    int64_t v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, i));
    if (v == -1 && PyErr_Occurred()) {
      Py_DECREF(fast);
      throw python_error();
    }
    out.push_back(v);
  }
  Py_DECREF(fast);
  return out;
}

const Tensor& tensor_arg(PyObject* o, const char* fn) {
  EMBER_CHECK_TYPE(is_tensor(o), fn, "(): expected a Tensor, got ", Py_TYPE(o)->tp_name);
  return unpack(o);
}

// _storage_info(t) -> (key, data_ptr, nbytes, shared): key identifies the
// storage (equal for tensors that share it); data_ptr is its first byte.
PyObject* storage_info(PyObject*, PyObject* o) {
  EMBER_PY_TRY
  const StorageImpl& s = tensor_arg(o, "_storage_info").storage();
  return Py_BuildValue("(KKnO)", (unsigned long long)(uintptr_t)&s, (unsigned long long)(uintptr_t)s.data,
                       (Py_ssize_t)s.nbytes, s.shared ? Py_True : Py_False);
  EMBER_PY_CATCH
}

// _as_strided_storage(t, sizes, strides, offset): a view of t's whole storage
// with the given geometry (elements of t's dtype), bounds-checked.
PyObject* as_strided_storage(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(nargs == 4, "_as_strided_storage expects 4 arguments");
  const Tensor& t = tensor_arg(args[0], "_as_strided_storage");
  DimVector sizes = int_list(args[1], "sizes"), strides = int_list(args[2], "strides");
  int64_t offset = to_i64(args[3]);
  EMBER_CHECK_VALUE(sizes.size() == strides.size(), "_as_strided_storage: ", sizes.size(), " sizes but ",
                    strides.size(), " strides");
  EMBER_CHECK(offset >= 0, "_as_strided_storage: negative storage offset ", offset);
  for (size_t i = 0; i < sizes.size(); ++i)
    EMBER_CHECK(strides[i] >= 0, "_as_strided_storage: negative stride in ", shape_str(strides));
  // Checked arithmetic: sizes and strides come from files and other processes.
  size_t need = strided_nbytes(sizes, strides, offset, t.itemsize());
  EMBER_CHECK(need <= t.storage().nbytes, "setStorage: sizes ", shape_str(sizes), ", strides ", shape_str(strides),
              ", storage offset ", offset, " and itemsize ", t.itemsize(), " require a storage of size ", need,
              " but the storage has ", t.storage().nbytes, " bytes");
  Tensor v = make_view(t, sizes, strides, offset);
  return wrap(std::move(v));
  EMBER_PY_CATCH
}

// _set_(self, source): self takes source's storage and geometry (Tensor.set_).
PyObject* set_from(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(nargs == 2, "_set_ expects 2 arguments");
  const Tensor& self = tensor_arg(args[0], "set_");
  const Tensor& src = tensor_arg(args[1], "set_");
  EMBER_CHECK_TYPE(self.dtype() == src.dtype(), "set_(): expected source of dtype ", legacy_name(self.dtype()),
                   ", got ", legacy_name(src.dtype()));
  check_view_inplace(self, false);  // as_strided_ / set_ on a piece of split: autograd's refusal
  TensorImpl* s = self.impl();
  s->storage = src.impl()->storage;
  s->sizes = src.impl()->sizes;
  s->strides = src.impl()->strides;
  s->offset = src.impl()->offset;
  s->refresh();
  self.bump_version();
  Py_INCREF(args[0]);
  return args[0];
  EMBER_PY_CATCH
}

// _storage_as(t, dtype): the whole of t's storage as a flat tensor of dtype (nbytes / itemsize
// elements from byte 0; the bytes of a partial last element left out): what UntypedStorage
// indexes, copies and views tensors through.
PyObject* storage_as(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(nargs == 2, "_storage_as expects 2 arguments");
  const Tensor& t = tensor_arg(args[0], "_storage_as");
  const ScalarType dt = parse_dtype(args[1]);
  auto impl = make_ref<TensorImpl>();
  impl->storage = t.impl()->storage;
  impl->dtype = dt;
  impl->sizes = {static_cast<int64_t>(t.storage().nbytes / element_size(dt))};
  impl->strides = {1};
  impl->is_inference = t.impl()->is_inference;
  impl->refresh();
  return wrap(Tensor(std::move(impl)));
  EMBER_PY_CATCH
}

// _storage_resize_(t, nbytes): t's storage resized in place to exactly nbytes.
PyObject* storage_resize(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(nargs == 2, "_storage_resize_ expects 2 arguments");
  const Tensor& t = tensor_arg(args[0], "_storage_resize_");
  const int64_t n = to_i64(args[1]);
  EMBER_CHECK(n >= 0, "Storage size must be non-negative, got ", n);
  set_storage_nbytes(t.storage(), static_cast<size_t>(n));
  Py_RETURN_NONE;
  EMBER_PY_CATCH
}

// _storage_slice(t, start, stop): a uint8 tensor over a new storage aliasing bytes [start, stop)
// of t's (UntypedStorage's s[a:b]); it keeps the parent alive, and the parent stops being
// resizable, since moving its memory would leave the slice dangling.
PyObject* storage_slice(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(nargs == 3, "_storage_slice expects 3 arguments");
  const Tensor& t = tensor_arg(args[0], "_storage_slice");
  const int64_t start = to_i64(args[1]), stop = to_i64(args[2]);
  StorageImpl& parent = t.storage();
  EMBER_CHECK(0 <= start && start <= stop && static_cast<size_t>(stop) <= parent.nbytes, "_storage_slice: [", start,
              ", ", stop, ") is outside a storage of ", parent.nbytes, " bytes");
  parent.resizable = false;
  auto s = make_ref<StorageImpl>();
  s->data = static_cast<char*>(parent.data) + start;
  s->nbytes = static_cast<size_t>(stop - start);
  s->device = parent.device;
  s->ctx = new Ref<StorageImpl>(t.impl()->storage);
  s->deleter = [](void*, void* ctx, size_t) { delete static_cast<Ref<StorageImpl>*>(ctx); };
  s->resizable = false;
  s->shared = parent.shared;
  auto impl = make_ref<TensorImpl>();
  impl->storage = s;
  impl->dtype = ScalarType::UInt8;
  impl->sizes = {stop - start};
  impl->strides = {1};
  impl->refresh();
  return wrap(Tensor(std::move(impl)));
  EMBER_PY_CATCH
}

// _storage_resizable(t): whether resize_ may move t's storage (False for memory ember does not own).
PyObject* storage_resizable(PyObject*, PyObject* o) {
  EMBER_PY_TRY
  const StorageImpl& s = tensor_arg(o, "_storage_resizable").storage();
  return PyBool_FromLong(s.resizable);
  EMBER_PY_CATCH
}

// _mark_shared(t, flag): record that t's storage lives in shared memory.
PyObject* mark_shared(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(nargs == 2, "_mark_shared expects 2 arguments");
  tensor_arg(args[0], "_mark_shared").storage().shared = PyObject_IsTrue(args[1]);
  Py_RETURN_NONE;
  EMBER_PY_CATCH
}

PyMethodDef storage_functions[] = {
    {"_storage_info", storage_info, METH_O, nullptr},
    {"_as_strided_storage", (PyCFunction)(void (*)())as_strided_storage, METH_FASTCALL, nullptr},
    {"_set_", (PyCFunction)(void (*)())set_from, METH_FASTCALL, nullptr},
    {"_storage_as", (PyCFunction)(void (*)())storage_as, METH_FASTCALL, nullptr},
    {"_storage_resize_", (PyCFunction)(void (*)())storage_resize, METH_FASTCALL, nullptr},
    {"_storage_slice", (PyCFunction)(void (*)())storage_slice, METH_FASTCALL, nullptr},
    {"_storage_resizable", storage_resizable, METH_O, nullptr},
    {"_mark_shared", (PyCFunction)(void (*)())mark_shared, METH_FASTCALL, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

void init_storage(PyObject* module) {
  if (PyModule_AddFunctions(module, storage_functions) < 0) throw python_error();
}

}  // namespace ember::python
