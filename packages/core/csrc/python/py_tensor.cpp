// _C.TensorBase: object lifetime, attributes, hand-written methods and the
// Python operator protocol. Op methods (add, sum, ...) come from bindings.cpp.
#include "py_tensor.h"
#include "autocast.h"
#include "py_autograd.h"
#include "py_profiler.h"
#include "py_torch_function.h"

#include <structmember.h>

#include <new>
#include <vector>

#include "arg_parser.h"
#include "entry_ops.h"
#include "ops.h"
#include "py_conj_fallback.h"
#include "py_types.h"

namespace ember::python {

PyTypeObject* TensorBaseType = nullptr;
PyTypeObject* g_tensor_class = nullptr;
PyObject* g_size_class = nullptr;

// ---------------------------------------------------------------- lifetime

PyObject* wrap_as(PyTypeObject* cls, Tensor t) {
  PyObject* obj = cls->tp_alloc(cls, 0);
  if (!obj) throw python_error();
  TensorImpl* impl = t.impl();
  new (&reinterpret_cast<PyTensor*>(obj)->t) Tensor(std::move(t));
  impl->pyobj = obj;
  return obj;
}

PyObject* wrap(Tensor t) {
  if (!t.defined()) Py_RETURN_NONE;
  TensorImpl* impl = t.impl();
  if (PyObject* o = impl->pyobj) {
    Py_INCREF(o);
    return o;
  }
  // A result nothing else can see yet (its own storage, no view, nothing saved it) starts at version
  // 0, as a kernel's result in aten: the fills and copies an op ran on its own output are not
  // in-place ops of the user's (torch.zeros(3)._version == 0).
  Ref<StorageImpl>& st = impl->storage;
  if (st && impl->refcount_.load(std::memory_order_relaxed) == 1 && st->refcount_.load(std::memory_order_relaxed) == 1)
    st->version.store(0, std::memory_order_relaxed);
  return wrap_as(g_tensor_class ? g_tensor_class : TensorBaseType, std::move(t));
}

PyObject* wrap(bool b) { return PyBool_FromLong(b); }
PyObject* wrap(const Scalar& s) {
  if (s.is_bool()) return PyBool_FromLong(s.to_bool());
  if (s.is_uint64()) return PyLong_FromUnsignedLongLong(static_cast<uint64_t>(s.int_bits()));  // a uint64 past 2^63
  if (s.is_int()) return PyLong_FromLongLong(s.to_int());
  if (s.is_complex()) return PyComplex_FromDoubles(s.to_double(), s.imag());
  return PyFloat_FromDouble(s.to_double());
}
PyObject* wrap(TensorList ts) {
  PyObject* tup = PyTuple_New(static_cast<Py_ssize_t>(ts.size()));
  if (!tup) throw python_error();
  for (size_t i = 0; i < ts.size(); ++i) PyTuple_SET_ITEM(tup, i, wrap(std::move(ts[i])));
  return tup;
}

// PyTorch prints return types one field per line: "torch.return_types.max(\nvalues=...,\nindices=...)".
static PyObject* return_type_repr(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  std::string out = std::string(type->tp_name) + "(\n";
  Py_ssize_t n = PyTuple_GET_SIZE(self);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* r = PyObject_Repr(PyTuple_GET_ITEM(self, i));
    if (!r) return nullptr;
    out += std::string(type->tp_members[i].name) + "=" + PyUnicode_AsUTF8(r) + (i + 1 < n ? ",\n" : ")");
    Py_DECREF(r);
  }
  return PyUnicode_FromString(out.c_str());
}

// torch.return_types.<name>: a structseq per name, made on first use (names live forever).
PyTypeObject* return_type(const std::string& name, const std::vector<std::string>& fields) {
  static std::vector<std::pair<std::string, PyTypeObject*>> cache;
  for (auto& kv : cache)
    if (kv.first == name) return kv.second;
  auto* members = new PyStructSequence_Field[fields.size() + 1];
  size_t i = 0;
  for (const std::string& f : fields) members[i++] = {(new std::string(f))->c_str(), nullptr};
  members[i] = {nullptr, nullptr};
  std::string* qual = new std::string("torch.return_types." + name);
  auto* desc = new PyStructSequence_Desc{qual->c_str(), nullptr, members, static_cast<int>(fields.size())};
  PyTypeObject* type = PyStructSequence_NewType(desc);
  if (!type) throw python_error();
  type->tp_repr = return_type_repr;
  PyType_Modified(type);
  cache.emplace_back(name, type);
  return type;
}

static PyTypeObject* return_type(const char* name, std::initializer_list<const char*> fields) {
  return return_type(std::string(name), std::vector<std::string>(fields.begin(), fields.end()));
}

// A tuple of new references, or the op's named struct sequence when it has field names.
static PyObject* pack_results(std::initializer_list<PyObject*> items, const char* name,
                              std::initializer_list<const char*> fields) {
  if (fields.size() == 0) {
    PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(items.size()));
    if (!t) throw python_error();
    Py_ssize_t i = 0;
    for (PyObject* o : items) PyTuple_SET_ITEM(t, i++, o);
    return t;
  }
  PyObject* res = PyStructSequence_New(return_type(name, fields));
  if (!res) throw python_error();
  Py_ssize_t i = 0;
  for (PyObject* o : items) PyStructSequence_SET_ITEM(res, i++, o);
  return res;
}

PyObject* wrap_tuple(std::tuple<Tensor, Tensor> r, const char* name, std::initializer_list<const char*> fields) {
  return pack_results({wrap(std::move(std::get<0>(r))), wrap(std::move(std::get<1>(r)))}, name, fields);
}

PyObject* wrap_tuple(std::tuple<Tensor, Tensor, Tensor> r, const char* name,
                     std::initializer_list<const char*> fields) {
  return pack_results(
      {wrap(std::move(std::get<0>(r))), wrap(std::move(std::get<1>(r))), wrap(std::move(std::get<2>(r)))}, name,
      fields);
}

static void tensor_dealloc(PyObject* self) {
  PyTensor* p = reinterpret_cast<PyTensor*>(self);
  if (p->t.defined() && p->t.impl()->pyobj == self) p->t.impl()->pyobj = nullptr;
  p->t.~Tensor();
  Py_TYPE(self)->tp_free(self);
}

// ---------------------------------------------------------------- attributes

#define SELF (unpack(self))

static PyObject* make_size(IntArrayRef s) {
  // ember.Size is a tuple subclass with no extra state: allocate it directly
  // and fill the items, rather than building a tuple and calling Size(...).
  auto n = static_cast<Py_ssize_t>(s.size());
  PyTypeObject* cls = g_size_class ? reinterpret_cast<PyTypeObject*>(g_size_class) : &PyTuple_Type;
  PyObject* r = cls == &PyTuple_Type ? PyTuple_New(n) : cls->tp_alloc(cls, n);
  if (!r) throw python_error();
  for (Py_ssize_t i = 0; i < n; ++i) PyTuple_SET_ITEM(r, i, PyLong_FromLongLong(s[i]));
  return r;
}

static PyObject* get_shape(PyObject* self, void* prop) {
  TORCH_FUNCTION_GETTER(self, prop)
  EMBER_PY_TRY return make_size(SELF.sizes());
  EMBER_PY_CATCH
}
static PyObject* get_dtype(PyObject* self, void* prop) {
  TORCH_FUNCTION_GETTER(self, prop)
  PyObject* d = dtype_object(SELF.dtype());
  Py_INCREF(d);
  return d;
}
static PyObject* get_device(PyObject* self, void* prop) {
  TORCH_FUNCTION_GETTER(self, prop)
  return new_device(SELF.device());
}
static PyObject* get_ndim(PyObject* self, void* prop) {
  TORCH_FUNCTION_GETTER(self, prop)
  return PyLong_FromLongLong(SELF.dim());
}
static PyObject* get_requires_grad(PyObject* self, void* prop) {
  TORCH_FUNCTION_GETTER(self, prop)
  return PyBool_FromLong(SELF.requires_grad());
}
static int set_requires_grad(PyObject* self, PyObject* v, void* prop) {
  EMBER_PY_TRY
  if (prop) {  // requires_grad_() comes without: the method was dispatched already
    TORCH_FUNCTION_SETTER(self, prop, v)
  }
  EMBER_CHECK_TYPE(v && PyBool_Check(v), "requires_grad must be a bool");
  bool want = v == Py_True;
  TensorImpl* impl = SELF.impl();
  if (impl->autograd && impl->autograd->grad_fn) {
    EMBER_CHECK(want,
                "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
    return 0;
  }
  if (want) {
    EMBER_CHECK(!impl->is_inference || InferenceMode::is_enabled(),
                "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
    EMBER_CHECK(is_floating_or_complex(SELF.dtype()), "only Tensors of floating point dtype can require gradients");
    if (!impl->autograd) impl->autograd = std::make_unique<AutogradMeta>();
  }
  if (impl->autograd) impl->autograd->requires_grad = want;
  return 0;
  EMBER_PY_CATCH_INT
}
static PyObject* get_grad(PyObject* self, void* prop) {
  TORCH_FUNCTION_GETTER(self, prop)
  auto* m = SELF.impl()->autograd.get();
  if (m && m->grad_fn && !m->retains_grad && !m->grad.defined()) {
    if (PyErr_WarnEx(PyExc_UserWarning,
                     "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
                     "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
                     "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
                     "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
                     "instead. See github.com/pytorch/pytorch/pull/30531 for more informations.",
                     1) < 0)
      return nullptr;
  }
  return wrap(m ? m->grad : Tensor());
}
static PyObject* get_grad_fn(PyObject* self, void* prop) {
  TORCH_FUNCTION_GETTER(self, prop)
  EMBER_PY_TRY
  auto* m = SELF.impl()->autograd.get();
  if (!m || !m->grad_fn) Py_RETURN_NONE;
  return wrap_node(m->grad_fn);
  EMBER_PY_CATCH
}
static PyObject* get_is_leaf(PyObject* self, void* prop) {
  TORCH_FUNCTION_GETTER(self, prop)
  auto* m = SELF.impl()->autograd.get();
  return PyBool_FromLong(!m || !m->grad_fn);
}
static PyObject* get_output_nr(PyObject* self, void* prop) {
  TORCH_FUNCTION_GETTER(self, prop)
  auto* m = SELF.impl()->autograd.get();
  return PyLong_FromLong(m ? m->output_nr : 0);
}
static int set_grad(PyObject* self, PyObject* v, void* prop) {
  EMBER_PY_TRY
  TORCH_FUNCTION_SETTER(self, prop, v)
  TensorImpl* impl = SELF.impl();
  if (!v || v == Py_None) {
    if (impl->autograd) impl->autograd->grad = Tensor();
    return 0;
  }
  EMBER_CHECK_TYPE(is_tensor(v), "assigned grad expected to be a Tensor or None but got grad of type ",
                   Py_TYPE(v)->tp_name);
  const Tensor& g = unpack(v);
  EMBER_CHECK(g.sizes().equals(SELF.sizes()), "attempting to assign a gradient of size '", shape_str(g.sizes()),
              "' to a tensor of size '", shape_str(SELF.sizes()),
              "'. Please ensure that the gradient and the "
              "tensor are the same size");
  const int8_t want = impl->autograd ? impl->autograd->grad_dtype : AutogradMeta::kGradDtypeOwn;
  const ScalarType allowed = want >= 0 ? static_cast<ScalarType>(want) : SELF.dtype();
  EMBER_CHECK(want == AutogradMeta::kGradDtypeAny || g.dtype() == allowed,
              "attempting to assign a gradient with dtype '", c_type_name(g.dtype()), "' to a tensor with grad_dtype '",
              legacy_name(allowed),
              "'. The gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the "
              "tensor's grad_dtype attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with "
              "caution. Diverging the dtypes of a tensor and its gradient may break downstream systems that assume "
              "they match.");
  if (!impl->autograd) impl->autograd = std::make_unique<AutogradMeta>();
  impl->autograd->grad = g;
  return 0;
  EMBER_PY_CATCH_INT
}
static PyObject* get_false(PyObject* self, void* prop) {
  TORCH_FUNCTION_GETTER(self, prop)
  Py_RETURN_FALSE;
}
static PyObject* get_data(PyObject* self, void* prop) {
  EMBER_PY_TRY
  TORCH_FUNCTION_GETTER(self, prop)
  Tensor d = make_view(SELF, SELF.sizes(), SELF.strides(), SELF.offset());
  drop_view(d.impl());
  d.impl()->track_version = false;  // in-place through .data is invisible to autograd
  return wrap(std::move(d));
  EMBER_PY_CATCH
}
static int set_data(PyObject* self, PyObject* v, void* prop) {
  EMBER_PY_TRY
  TORCH_FUNCTION_SETTER(self, prop, v)
  EMBER_CHECK_TYPE(v && is_tensor(v), "Variable data has to be a tensor, but got ", v ? Py_TYPE(v)->tp_name : "None");
  TensorImpl* dst = SELF.impl();
  TensorImpl* src = unpack(v).impl();
  // PyTorch's compatible shallow-copy types: a meta tensor and one with memory are not
  EMBER_CHECK(dst->device().is_meta() == src->device().is_meta(),
              "Attempted to call `variable.set_data(tensor)`, but `variable` and `tensor` have incompatible tensor "
              "type.");
  dst->storage = src->storage;
  dst->sizes = src->sizes;
  dst->strides = src->strides;
  dst->offset = src->offset;
  dst->dtype = src->dtype;
  dst->refresh();
  return 0;
  EMBER_PY_CATCH_INT
}
static PyObject* get_T(PyObject* self, void* prop) {
  EMBER_PY_TRY
  TORCH_FUNCTION_GETTER(self, prop)
  const Tensor& t = SELF;
  OpScope prof_("aten::numpy_T", {&t});  // as torch: numpy_T, then the permute it calls
  OpScope prof_permute("aten::permute", {&t});
  if (t.dim() != 0 && t.dim() != 2)
    PyErr_WarnEx(PyExc_UserWarning,
                 "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
                 "deprecated and it will throw an error in a future release. Consider `x.mT` to transpose "
                 "batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the "
                 "dimensions of a tensor.",
                 1);
  DimVector perm;
  for (int64_t d = t.dim() - 1; d >= 0; --d) perm.push_back(d);
  return wrap(entry::permute(t, perm));
  EMBER_PY_CATCH
}
static PyObject* get_mT(PyObject* self, void* prop) {
  EMBER_PY_TRY
  TORCH_FUNCTION_GETTER(self, prop)
  EMBER_CHECK(SELF.dim() >= 2, "tensor.mT is only supported on matrices or batches of matrices. Got ", SELF.dim(),
              "-D tensor.");
  OpScope prof_("aten::mT", {&SELF});  // as torch: mT, then the transpose it calls
  return wrap(entry::transpose(SELF, -2, -1));
  EMBER_PY_CATCH
}
static PyObject* get_itemsize(PyObject* self, void* prop) {
  TORCH_FUNCTION_GETTER(self, prop)
  return PyLong_FromSize_t(SELF.itemsize());
}
static PyObject* get_nbytes(PyObject* self, void* prop) {
  TORCH_FUNCTION_GETTER(self, prop)
  return PyLong_FromSize_t(SELF.itemsize() * SELF.numel());
}
static PyObject* get_layout(PyObject*, void*);
static PyObject* get_is_cuda(PyObject* self, void* prop) {
  TORCH_FUNCTION_GETTER(self, prop)
  return PyBool_FromLong(SELF.device().is_cuda());
}
static PyObject* get_is_meta(PyObject* self, void* prop) {
  TORCH_FUNCTION_GETTER(self, prop)
  return PyBool_FromLong(SELF.device().is_meta());
}
static PyObject* get_is_cpu(PyObject* self, void* prop) {
  TORCH_FUNCTION_GETTER(self, prop)
  return PyBool_FromLong(SELF.device().is_cpu());
}
static PyObject* get_version(PyObject* self, void* prop) {
  TORCH_FUNCTION_GETTER(self, prop)
  EMBER_PY_TRY
  EMBER_CHECK(!SELF.impl()->is_inference, "Inference tensors do not track version counter.");
  return PyLong_FromUnsignedLong(SELF.version());
  EMBER_PY_CATCH
}
static PyObject* get_base(PyObject* self, void* prop) {
  TORCH_FUNCTION_GETTER(self, prop)
  return wrap(Tensor(SELF.impl()->base));
}
static PyObject* get_retains_grad(PyObject* self, void* prop) {
  TORCH_FUNCTION_GETTER(self, prop)
  auto* m = SELF.impl()->autograd.get();
  return PyBool_FromLong(m && m->retains_grad);
}

static PyObject* g_strided = nullptr;
static PyObject* get_layout(PyObject* self, void* prop) {
  TORCH_FUNCTION_GETTER(self, prop)
  Py_INCREF(g_strided);
  return g_strided;
}

// The closure is the property's name: __torch_function__ receives Tensor.<name>.__get__ / __set__.
#define PROPERTY(name, get, set) {name, get, set, nullptr, const_cast<char*>(name)}
static PyGetSetDef tensor_getset[] = {PROPERTY("shape", get_shape, nullptr),
                                      PROPERTY("dtype", get_dtype, nullptr),
                                      PROPERTY("device", get_device, nullptr),
                                      PROPERTY("ndim", get_ndim, nullptr),
                                      PROPERTY("requires_grad", get_requires_grad, set_requires_grad),
                                      PROPERTY("grad", get_grad, set_grad),
                                      PROPERTY("grad_dtype", tensor_get_grad_dtype, tensor_set_grad_dtype),
                                      PROPERTY("grad_fn", get_grad_fn, nullptr),
                                      PROPERTY("is_leaf", get_is_leaf, nullptr),
                                      PROPERTY("output_nr", get_output_nr, nullptr),
                                      PROPERTY("data", get_data, set_data),
                                      PROPERTY("T", get_T, nullptr),
                                      PROPERTY("mT", get_mT, nullptr),
                                      PROPERTY("H", tensor_get_H, nullptr),
                                      PROPERTY("mH", tensor_get_mH, nullptr),
                                      PROPERTY("itemsize", get_itemsize, nullptr),
                                      PROPERTY("nbytes", get_nbytes, nullptr),
                                      PROPERTY("layout", get_layout, nullptr),
                                      PROPERTY("is_cuda", get_is_cuda, nullptr),
                                      PROPERTY("is_cpu", get_is_cpu, nullptr),
                                      PROPERTY("is_sparse", get_false, nullptr),
                                      PROPERTY("is_quantized", get_false, nullptr),
                                      PROPERTY("is_meta", get_is_meta, nullptr),
                                      PROPERTY("is_nested", get_false, nullptr),
                                      PROPERTY("_version", get_version, nullptr),
                                      PROPERTY("_base", get_base, nullptr),
                                      PROPERTY("retains_grad", get_retains_grad, nullptr),
                                      {nullptr, nullptr, nullptr, nullptr, nullptr}};
#undef PROPERTY

// ---------------------------------------------------------------- methods

static int64_t dim_arg(PyObject* o) { return to_int64(o); }

// A 0-d tensor has no size or stride to read, though dims 0 and -1 wrap: aten's IndexError (never sizes()[0]).
static int64_t scalar_checked_dim(const Tensor& t, int64_t d) {
  EMBER_CHECK_INDEX(t.dim() > 0 || (d != 0 && d != -1), "Dimension specified as ", d, " but tensor has no dimensions");
  return d;
}
static PyObject* m_size(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_TRY
  TORCH_FUNCTION_METHOD("size", self, args, nargs, kw)
  PyObject* d = nargs ? args[0] : (kw && PyTuple_GET_SIZE(kw) ? args[0] : nullptr);
  if (!d || d == Py_None) return make_size(SELF.sizes());
  return PyLong_FromLongLong(SELF.size(scalar_checked_dim(SELF, dim_arg(d))));
  EMBER_PY_CATCH
}
static PyObject* m_stride(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_TRY
  TORCH_FUNCTION_METHOD("stride", self, args, nargs, kw)
  PyObject* d = nargs ? args[0] : (kw && PyTuple_GET_SIZE(kw) ? args[0] : nullptr);
  if (!d || d == Py_None) {
    PyObject* tup = PyTuple_New(SELF.dim());
    for (int64_t i = 0; i < SELF.dim(); ++i) PyTuple_SET_ITEM(tup, i, PyLong_FromLongLong(SELF.strides()[i]));
    return tup;
  }
  return PyLong_FromLongLong(SELF.stride(scalar_checked_dim(SELF, dim_arg(d))));
  EMBER_PY_CATCH
}
// ndimension too: PyTorch hands both over as Tensor.dim (nelement as numel).
static PyObject* m_dim(PyObject* self, PyObject*) {
  TORCH_FUNCTION_SELF("dim", self, nullptr, 0)
  return PyLong_FromLongLong(SELF.dim());
}
static PyObject* m_numel(PyObject* self, PyObject*) {
  TORCH_FUNCTION_SELF("numel", self, nullptr, 0)
  return PyLong_FromLongLong(SELF.numel());
}
static PyObject* m_storage_offset(PyObject* self, PyObject*) {
  TORCH_FUNCTION_SELF("storage_offset", self, nullptr, 0)
  return PyLong_FromLongLong(SELF.offset());
}
static PyObject* m_element_size(PyObject* self, PyObject*) {
  TORCH_FUNCTION_SELF("element_size", self, nullptr, 0)
  return PyLong_FromSize_t(SELF.itemsize());
}
static PyObject* m_data_ptr(PyObject* self, PyObject*) {
  TORCH_FUNCTION_SELF("data_ptr", self, nullptr, 0)
  const Tensor& t = SELF;
  // no memory (meta): PyTorch's address is the element offset from a null base
  if (!t.storage().data) return PyLong_FromSize_t(static_cast<size_t>(t.offset()) * t.itemsize());
  return PyLong_FromVoidPtr(t.raw());
}
// is_contiguous(memory_format=torch.contiguous_format): preserve_format asks the plain question, a
// channels-last format whether the tensor is dense in it (aten's rule, size-1 dims skipped).
static PyObject* m_is_contiguous(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_TRY
  TORCH_FUNCTION_METHOD("is_contiguous", self, args, nargs, kwnames)
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  EMBER_CHECK_TYPE(nargs + nkw <= 1 && (nkw == 0 || PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0),
                                                                                     "memory_format") == 0),
                   "is_contiguous() takes at most one argument, memory_format");
  PyObject* fmt = nargs + nkw == 1 ? args[0] : Py_None;
  EMBER_CHECK_TYPE(fmt == Py_None || Py_TYPE(fmt) == MemoryFormatType,
                   "is_contiguous(): argument 'memory_format' must be torch.memory_format, not ",
                   Py_TYPE(fmt)->tp_name);
  const MemoryFormat mf =
      fmt == Py_None ? MemoryFormat::Contiguous : static_cast<MemoryFormat>(reinterpret_cast<PyEnumConst*>(fmt)->value);
  const Tensor& t = SELF;
  if (mf == MemoryFormat::ChannelsLast || mf == MemoryFormat::ChannelsLast3d)
    return PyBool_FromLong(follows_memory_format(t.sizes(), t.strides(), mf));
  return PyBool_FromLong(t.is_contiguous());
  EMBER_PY_CATCH
}
static PyObject* m_item(PyObject* self, PyObject*) {
  EMBER_PY_TRY
  TORCH_FUNCTION_SELF("item", self, nullptr, 0) return wrap(SELF.item());
  EMBER_PY_CATCH
}
static PyObject* m_tolist(PyObject* self, PyObject*) {
  EMBER_PY_TRY
  TORCH_FUNCTION_SELF("tolist", self, nullptr, 0) return tensor_to_list(SELF);
  EMBER_PY_CATCH
}
static PyObject* m_is_floating_point(PyObject* self, PyObject*) {
  TORCH_FUNCTION_SELF("is_floating_point", self, nullptr, 0)
  return PyBool_FromLong(SELF.is_floating());
}
static PyObject* m_is_complex(PyObject* self, PyObject*) {
  TORCH_FUNCTION_SELF("is_complex", self, nullptr, 0)
  return PyBool_FromLong(is_complex(SELF.dtype()));
}
static PyObject* m_is_signed(PyObject* self, PyObject*) {
  TORCH_FUNCTION_SELF("is_signed", self, nullptr, 0)
  return PyBool_FromLong(is_signed(SELF.dtype()));
}
static PyObject* m_get_device(PyObject* self, PyObject*) {
  TORCH_FUNCTION_SELF("get_device", self, nullptr, 0)
  Device d = SELF.device();
  return PyLong_FromLong(d.is_cuda() ? d.index : -1);
}
static PyObject* m_is_inference(PyObject* self, PyObject*) {
  TORCH_FUNCTION_SELF("is_inference", self, nullptr, 0)
  return PyBool_FromLong(SELF.impl()->is_inference);
}
static PyObject* m_requires_grad_(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  TORCH_FUNCTION_METHOD("requires_grad_", self, args, nargs, kw)
  PyObject* v = nargs ? args[0] : (kw && PyTuple_GET_SIZE(kw) ? args[0] : Py_True);
  if (set_requires_grad(self, v, nullptr) < 0) return nullptr;
  Py_INCREF(self);
  return self;
}
static PyObject* m_retain_grad(PyObject* self, PyObject*) {
  EMBER_PY_TRY
  TORCH_FUNCTION_METHOD("retain_grad", self, nullptr, 0, nullptr)
  retain_grad(SELF);
  Py_RETURN_NONE;
  EMBER_PY_CATCH
}
static PyObject* m_is_view(PyObject* self, PyObject*) {
  TORCH_FUNCTION_SELF("_is_view", self, nullptr, 0)
  return PyBool_FromLong(static_cast<bool>(SELF.impl()->base));
}
// unsafe_split / unsafe_chunk: their pieces may be modified in place under autograd.
static PyObject* m_lift_view_restriction(PyObject* self, PyObject*) {
  SELF.impl()->creation_meta = kViewDefault;
  Py_RETURN_NONE;
}
static PyObject* m_make_subclass(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject*) {
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(nargs >= 2 && PyType_Check(args[0]) && is_tensor(args[1]),
                   "_make_subclass(cls, data, require_grad=False)");
  PyTypeObject* cls = reinterpret_cast<PyTypeObject*>(args[0]);
  EMBER_CHECK_TYPE(PyType_IsSubtype(cls, TensorBaseType), "cls must be a Tensor subclass");
  const Tensor& data = unpack(args[1]);
  Tensor alias = make_view(data, data.sizes(), data.strides(), data.offset());
  drop_view(alias.impl());
  PyObject* obj = wrap_as(cls, alias);
  if (nargs >= 3 && args[2] == Py_True && set_requires_grad(obj, Py_True, nullptr) < 0) {
    Py_DECREF(obj);
    return nullptr;
  }
  return obj;
  EMBER_PY_CATCH
}

// Docstrings: text signature (for inspect.signature), then the text.
#define EMBER_DOC(sig, text) sig "\n--\n\n" text
static const char doc_size[] =
    EMBER_DOC("size($self, dim=None)",
              "The shape of the tensor as an ember.Size, or with ``dim`` the size of that one dimension (an "
              "int).\n\n>>> ember.zeros(2, 3).size()\ntorch.Size([2, 3])\n>>> ember.zeros(2, 3).size(-1)\n3");
static const char doc_stride[] = EMBER_DOC("stride($self, dim=None)",
                                           "How many elements apart neighbours lie in memory along each dimension (a "
                                           "tuple), or along ``dim`` only.\n\n>>> ember.zeros(2, 3).stride()\n(3, 1)");
static const char doc_dim[] =
    EMBER_DOC("dim($self)", "The number of dimensions of the tensor (``x.ndim``).\n\n>>> ember.zeros(2, 3).dim()\n2");
static const char doc_ndimension[] =
    EMBER_DOC("ndimension($self)", "The number of dimensions of the tensor; the same as ``dim()``.");
static const char doc_numel[] =
    EMBER_DOC("numel($self)",
              "The number of elements in the tensor (the product of its sizes).\n\n>>> ember.zeros(2, 3).numel()\n6");
static const char doc_nelement[] =
    EMBER_DOC("nelement($self)", "The number of elements in the tensor; the same as ``numel()``.");
static const char doc_storage_offset[] =
    EMBER_DOC("storage_offset($self)",
              "Where the tensor's first element sits in its storage, counted in elements (non-zero for many "
              "views).\n\n>>> ember.arange(5)[2:].storage_offset()\n2");
static const char doc_element_size[] = EMBER_DOC(
    "element_size($self)", "The size in bytes of one element (4 for float32).\n\n>>> ember.zeros(1).element_size()\n4");
static const char doc_data_ptr[] =
    EMBER_DOC("data_ptr($self)", "The memory address of the tensor's first element, as an int.");
static const char doc_is_contiguous[] =
    EMBER_DOC("is_contiguous($self, memory_format=None)",
              "True when the elements are laid out in memory in row-major order with no gaps.\n\n>>> x = "
              "ember.zeros(2, 3)\n>>> x.is_contiguous(), x.t().is_contiguous()\n(True, False)");
static const char doc_item[] = EMBER_DOC(
    "item($self)", "The value of a one-element tensor as a Python number.\n\n>>> ember.tensor([2.5]).item()\n2.5");
static const char doc_tolist[] =
    EMBER_DOC("tolist($self)",
              "The tensor's values as (nested) Python lists of numbers; a 0-dimensional tensor gives a number.\n\n>>> "
              "ember.tensor([[1, 2], [3, 4]]).tolist()\n[[1, 2], [3, 4]]");
static const char doc_is_floating_point[] =
    EMBER_DOC("is_floating_point($self)",
              "True when the tensor's dtype is a floating-point type.\n\n>>> ember.zeros(1).is_floating_point()\nTrue");
static const char doc_is_complex[] =
    EMBER_DOC("is_complex($self)", "True when the tensor's dtype is complex (never, in ember).");
static const char doc_is_signed[] = EMBER_DOC(
    "is_signed($self)",
    "True when the dtype can hold negative numbers.\n\n>>> ember.zeros(1, dtype=ember.uint8).is_signed()\nFalse");
static const char doc_get_device[] =
    EMBER_DOC("get_device($self)", "The index of the device the tensor lives on; -1 for the CPU.");
static const char doc_is_inference[] =
    EMBER_DOC("is_inference($self)", "True when the tensor was made under ``ember.inference_mode()``.");
static const char doc_requires_grad_[] =
    EMBER_DOC("requires_grad_($self, requires_grad=True)",
              "Turns gradient recording for this tensor on (or off) in place and returns the tensor.\n\n>>> "
              "ember.zeros(2).requires_grad_().requires_grad\nTrue");
static const char doc_retain_grad[] = EMBER_DOC(
    "retain_grad($self)", "Asks autograd to keep the ``.grad`` of this non-leaf tensor after ``backward()``.");
#undef EMBER_DOC

static PyMethodDef handwritten_methods[] = {
    {"size", (PyCFunction)(void (*)())m_size, METH_FASTCALL | METH_KEYWORDS, doc_size},
    {"stride", (PyCFunction)(void (*)())m_stride, METH_FASTCALL | METH_KEYWORDS, doc_stride},
    {"dim", m_dim, METH_NOARGS, doc_dim},
    {"ndimension", m_dim, METH_NOARGS, doc_ndimension},
    {"numel", m_numel, METH_NOARGS, doc_numel},
    {"nelement", m_numel, METH_NOARGS, doc_nelement},
    {"storage_offset", m_storage_offset, METH_NOARGS, doc_storage_offset},
    {"element_size", m_element_size, METH_NOARGS, doc_element_size},
    {"data_ptr", m_data_ptr, METH_NOARGS, doc_data_ptr},
    {"is_contiguous", (PyCFunction)(void (*)())m_is_contiguous, METH_FASTCALL | METH_KEYWORDS, doc_is_contiguous},
    {"item", m_item, METH_NOARGS, doc_item},
    {"tolist", m_tolist, METH_NOARGS, doc_tolist},
    {"is_floating_point", m_is_floating_point, METH_NOARGS, doc_is_floating_point},
    {"is_complex", m_is_complex, METH_NOARGS, doc_is_complex},
    {"is_signed", m_is_signed, METH_NOARGS, doc_is_signed},
    {"get_device", m_get_device, METH_NOARGS, doc_get_device},
    {"is_inference", m_is_inference, METH_NOARGS, doc_is_inference},
    {"requires_grad_", (PyCFunction)(void (*)())m_requires_grad_, METH_FASTCALL | METH_KEYWORDS, doc_requires_grad_},
    {"retain_grad", m_retain_grad, METH_NOARGS, doc_retain_grad},
    {"_is_view", m_is_view, METH_NOARGS, nullptr},
    {"_lift_view_restriction", m_lift_view_restriction, METH_NOARGS, nullptr},
    {"_make_subclass", (PyCFunction)(void (*)())m_make_subclass, METH_FASTCALL | METH_STATIC, nullptr},
    {nullptr, nullptr, 0, nullptr}};

static Py_hash_t tensor_hash(PyObject* self) { return _Py_HashPointer(self); }

// len(t): Tensor.__len__ to __torch_function__, whose answer is checked as Python checks a __len__'s.
static Py_ssize_t len_from_handler(PyObject* r) {
  if (!r) return -1;
  PyObject* i = PyNumber_Index(r);
  Py_DECREF(r);
  if (!i) return -1;
  const Py_ssize_t n = PyLong_AsSsize_t(i);
  Py_DECREF(i);
  if (n < 0 && !PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "__len__() should return >= 0");
  return n;
}

static Py_ssize_t mp_length(PyObject* self) {
  if (g_torch_function_state) [[unlikely]] {
    PyObject* r;
    if (torch_function_self("__len__", self, nullptr, 0, &r)) return len_from_handler(r);
  }
  const Tensor& t = SELF;
  if (t.dim() == 0) {
    PyErr_SetString(PyExc_TypeError, "len() of a 0-d tensor");
    return -1;
  }
  return static_cast<Py_ssize_t>(t.sizes()[0]);
}

static PyMappingMethods tensor_as_mapping = {mp_length, tensor_getitem, tensor_setitem};

// ---------------------------------------------------------------- type

void init_tensor_type(PyObject* module) {
  // Hand-written and generated methods share one table.
  static std::vector<PyMethodDef> methods;
  for (PyMethodDef* d = handwritten_methods; d->ml_name; ++d) methods.push_back(*d);
  for (PyMethodDef* d = generated_methods(); d->ml_name; ++d) methods.push_back(*d);
  methods.push_back({nullptr, nullptr, 0, nullptr});

  static PyTypeObject type = {PyVarObject_HEAD_INIT(nullptr, 0)};
  type.tp_name = "ember._C.TensorBase";
  type.tp_basicsize = sizeof(PyTensor);
  type.tp_dealloc = tensor_dealloc;
  // ember.Tensor (a Python subclass) is GC-tracked; these let the collector see
  // through a tensor's graph to Python hooks, so hook <-> tensor cycles are freed.
  type.tp_traverse = [](PyObject* self, visitproc visit, void* arg) -> int {
    return traverse_autograd(reinterpret_cast<PyTensor*>(self)->t, visit, arg);
  };
  type.tp_clear = [](PyObject* self) -> int {
    clear_autograd(reinterpret_cast<PyTensor*>(self)->t);
    return 0;
  };
  type.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  type.tp_doc = "The compiled base of ember.Tensor.";
  type.tp_as_number = &tensor_as_number;
  type.tp_as_mapping = &tensor_as_mapping;
  type.tp_richcompare = tensor_richcompare;
  type.tp_hash = tensor_hash;
  type.tp_methods = methods.data();
  type.tp_getset = tensor_getset;
  if (PyType_Ready(&type) < 0) throw python_error();
  TensorBaseType = &type;
  Py_INCREF(&type);
  PyModule_AddObject(module, "TensorBase", reinterpret_cast<PyObject*>(&type));
  g_strided = PyObject_GetAttrString(module, "strided");
  if (!g_strided) throw python_error();
}

}  // namespace ember::python
