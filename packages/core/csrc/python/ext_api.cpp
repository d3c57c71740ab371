// The function table behind ember's public C++ extension API (src/ember/include/ember/ext/).
// Extensions fetch it from the capsule `_C._cpp_api` instead of linking against _C: the core
// keeps its symbols hidden and the table (append-only, versioned in abi.h) is the whole ABI.
// Ops go through the ag:: wrappers, so a C++ call records autograd exactly like a Python one.
#include <optional>

#include "../../src/ember/include/ember/ext/abi.h"
#include "../autograd/grad_mode.h"
#include "autograd_ops.h"
#include "py_tensor.h"

namespace ember::python {
namespace {

// Entries may be called from a thread that released the GIL (py::gil_scoped_release in an
// extension): errors are Python exceptions, so take the GIL back for the call.
struct GilIfNeeded {
  PyGILState_STATE st{};
  bool took = false;
  GilIfNeeded() {
    if (!PyGILState_Check()) {
      st = PyGILState_Ensure();
      took = true;
    }
  }
  ~GilIfNeeded() {
    if (took) PyGILState_Release(st);
  }
};

void* give(Tensor t) {  // hand one reference of t's impl to the caller
  TensorImpl* p = t.impl();
  p->refcount_.fetch_add(1, std::memory_order_relaxed);
  return p;
}
// A new handle on a tensor the caller keeps owning (Ref's constructor adds a reference).
Tensor borrow(void* p) { return Tensor(Ref<TensorImpl>(static_cast<TensorImpl*>(p))); }

// Runs f, turning a C++ error into the Python exception the core would raise from Python.
template <class F>
void* guarded(F&& f) {
  GilIfNeeded gil;
  try {
    Tensor r = f();
    if (r.defined()) return give(std::move(r));
    PyErr_SetString(PyExc_RuntimeError, "ember C++ API: the op returned an undefined tensor");
  } catch (const python_error&) {
  } catch (const Error& e) {
    set_python_error(e);
  } catch (const std::bad_alloc&) {
    set_python_error(Error(ErrorKind::OutOfMemory, "DefaultCPUAllocator: not enough memory"));
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

ScalarType to_core(int32_t d) {
  switch (d) {
    case EMBER_EXT_UINT8:
      return ScalarType::UInt8;
    case EMBER_EXT_INT8:
      return ScalarType::Int8;
    case EMBER_EXT_INT16:
      return ScalarType::Int16;
    case EMBER_EXT_INT32:
      return ScalarType::Int32;
    case EMBER_EXT_INT64:
      return ScalarType::Int64;
    case EMBER_EXT_FLOAT16:
      return ScalarType::Float16;
    case EMBER_EXT_FLOAT32:
      return ScalarType::Float32;
    case EMBER_EXT_FLOAT64:
      return ScalarType::Float64;
    case EMBER_EXT_BOOL:
      return ScalarType::Bool;
    case EMBER_EXT_BFLOAT16:
      return ScalarType::BFloat16;
  }
  fail(ErrorKind::Type, "ember C++ API: unsupported dtype code ", d);
}
int32_t to_ext(ScalarType t) {
  static const int32_t map[] = {EMBER_EXT_BOOL,    EMBER_EXT_UINT8,  EMBER_EXT_INT8,    EMBER_EXT_INT16,
                                EMBER_EXT_INT32,   EMBER_EXT_INT64,  EMBER_EXT_FLOAT16, EMBER_EXT_BFLOAT16,
                                EMBER_EXT_FLOAT32, EMBER_EXT_FLOAT64};
  static_assert(sizeof(map) / sizeof(map[0]) == static_cast<int>(ScalarType::ComplexFloat));
  int i = static_cast<int>(t);
  if (is_complex(t)) fail(ErrorKind::Type, "ember C++ API: complex dtypes are not supported");
  return i >= 0 && i < static_cast<int>(ScalarType::ComplexFloat) ? map[i] : EMBER_EXT_UNDEFINED;
}
Scalar to_core(const EmberExtScalar& s) {
  if (s.kind == 2) return Scalar(s.i != 0);
  if (s.kind == 1) return Scalar(s.i);
  return Scalar(s.f);
}

void retain(void* p) { static_cast<TensorImpl*>(p)->refcount_.fetch_add(1, std::memory_order_relaxed); }
void release(void* p) {
  auto* t = static_cast<TensorImpl*>(p);
  if (t->refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    GilIfNeeded gil;  // the last reference may free autograd state holding Python hooks
    delete t;
  }
}

void meta(void* p, EmberExtMeta* m) {
  auto* t = static_cast<TensorImpl*>(p);
  m->ndim = static_cast<int64_t>(t->sizes.size());
  m->sizes = t->sizes.data();
  m->strides = t->strides.data();
  m->numel = t->numel;
  m->storage_offset = t->offset;
  m->data = t->storage->data ? t->data() : nullptr;
  m->dtype = to_ext(t->dtype);
  Device d = t->device();
  m->device_type = static_cast<int32_t>(d.type);
  m->device_index = d.index;
  m->is_contiguous = t->contiguous;
  const AutogradMeta* a = t->autograd.get();
  m->requires_grad = a && (a->requires_grad || a->grad_fn);
  m->reserved = 0;
}

void* from_py(PyObject* o) {
  if (!o || !is_tensor(o)) return nullptr;
  TensorImpl* p = unpack(o).impl();
  if (p) retain(p);
  return p;
}
PyObject* to_py(void* p) {
  GilIfNeeded gil;
  try {
    return wrap(borrow(p));
  } catch (const python_error&) {
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

void* empty_(const int64_t* sizes, int64_t ndim, int32_t dtype, int32_t dev_type, int32_t dev_index) {
  return guarded([&] {
    Device d{static_cast<DeviceType>(dev_type), static_cast<int8_t>(dev_index)};
    check_device_available(d);
    return empty(IntArrayRef(sizes, static_cast<size_t>(ndim)), to_core(dtype), d);
  });
}

Tensor unary_op(int32_t op, const Tensor& a) {
  switch (op) {
    case EMBER_U_SIN:
      return ag::sin(a);
    case EMBER_U_COS:
      return ag::cos(a);
    case EMBER_U_TAN:
      return ag::tan(a);
    case EMBER_U_EXP:
      return ag::exp(a);
    case EMBER_U_LOG:
      return ag::log(a);
    case EMBER_U_TANH:
      return ag::tanh(a);
    case EMBER_U_SIGMOID:
      return ag::sigmoid(a);
    case EMBER_U_RELU:
      return ag::relu(a);
    case EMBER_U_NEG:
      return ag::neg(a);
    case EMBER_U_ABS:
      return ag::abs(a);
    case EMBER_U_SQRT:
      return ag::sqrt(a);
    case EMBER_U_RSQRT:
      return ag::rsqrt(a);
    case EMBER_U_SQUARE:
      return ag::square(a);
    case EMBER_U_FLOOR:
      return ag::floor(a);
    case EMBER_U_SIGN:
      return ag::sign(a);
    case EMBER_U_CLONE:
      return ag::clone(a, std::nullopt);
    case EMBER_U_CONTIGUOUS:
      return a.is_contiguous() ? a : ag::contiguous(a, MemoryFormat::Contiguous);
    case EMBER_U_T:
      return ag::t(a);
    case EMBER_U_SUM:
      return ag::sum(a, std::nullopt);
    case EMBER_U_MEAN:
      return ag::mean(a, std::nullopt);
    case EMBER_U_MAX:
      return ag::max(a);
    case EMBER_U_MIN:
      return ag::min(a);
    case EMBER_U_ZERO_:
      return ag::zero_(a);
    case EMBER_U_DETACH:
      return detach(a);
  }
  fail(ErrorKind::NotImplemented, "ember C++ API: unknown unary op id ", op);
}

Tensor binary_op(int32_t op, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  switch (op) {
    case EMBER_B_ADD:
      return ag::add(a, b, alpha);
    case EMBER_B_SUB:
      return ag::sub(a, b, alpha);
    case EMBER_B_MUL:
      return ag::mul(a, b);
    case EMBER_B_DIV:
      return ag::div(a, b, std::nullopt);
    case EMBER_B_MM:
      return ag::mm(a, b);
    case EMBER_B_MATMUL:
      return ag::matmul(a, b);
    case EMBER_B_BMM:
      return ag::bmm(a, b);
    case EMBER_B_POW:
      return ag::pow(a, b);
    case EMBER_B_MAXIMUM:
      return ag::maximum(a, b);
    case EMBER_B_MINIMUM:
      return ag::minimum(a, b);
    case EMBER_B_ADD_:
      return ag::add_(a, b, alpha);
    case EMBER_B_SUB_:
      return ag::sub_(a, b, alpha);
    case EMBER_B_MUL_:
      return ag::mul_(a, b);
    case EMBER_B_DIV_:
      return ag::div_(a, b, std::nullopt);
    case EMBER_B_COPY_:
      return ag::copy_(a, b, false);
    case EMBER_B_EQ:
      return eq(a, b);
    case EMBER_B_NE:
      return ne(a, b);
    case EMBER_B_LT:
      return lt(a, b);
    case EMBER_B_LE:
      return le(a, b);
    case EMBER_B_GT:
      return gt(a, b);
    case EMBER_B_GE:
      return ge(a, b);
  }
  fail(ErrorKind::NotImplemented, "ember C++ API: unknown binary op id ", op);
}

void* unary(int32_t op, void* a) {
  return guarded([&] { return unary_op(op, borrow(a)); });
}
void* binary(int32_t op, void* a, void* b, EmberExtScalar alpha) {
  return guarded([&] { return binary_op(op, borrow(a), borrow(b), to_core(alpha)); });
}
void* scalar_op(int32_t op, void* a, EmberExtScalar s, int32_t reverse) {
  return guarded([&] {
    Tensor t = borrow(a);
    Tensor w = wrap_number(to_core(s), t);  // as Python wraps a number operand
    return reverse ? binary_op(op, w, t, Scalar(int64_t{1})) : binary_op(op, t, w, Scalar(int64_t{1}));
  });
}

void* ints_op(int32_t op, void* a, const int64_t* ints, int64_t n, int64_t flag) {
  return guarded([&] {
    Tensor t = borrow(a);
    IntArrayRef v(ints, static_cast<size_t>(n));
    auto need = [&](int64_t k) { EMBER_CHECK(n == k, "ember C++ API: op ", op, " expects ", k, " integers, got ", n); };
    switch (op) {
      case EMBER_I_VIEW:
        return ag::view(t, v);
      case EMBER_I_RESHAPE:
        return ag::reshape(t, v);
      case EMBER_I_PERMUTE:
        return ag::permute(t, v);
      case EMBER_I_EXPAND:
        return ag::expand(t, v, false);
      case EMBER_I_SUM_DIM:
        return ag::sum(t, std::optional<IntArrayRef>(v), flag != 0, std::nullopt);
      case EMBER_I_MEAN_DIM:
        return ag::mean(t, std::optional<IntArrayRef>(v), flag != 0, std::nullopt);
      case EMBER_I_TRANSPOSE:
        need(2);
        return ag::transpose(t, ints[0], ints[1]);
      case EMBER_I_NARROW:
        need(3);
        return ag::narrow(t, ints[0], ints[1], ints[2]);
      case EMBER_I_SELECT:
        need(2);
        return ag::select(t, ints[0], ints[1]);
      case EMBER_I_UNSQUEEZE:
        need(1);
        return ag::unsqueeze(t, ints[0]);
      case EMBER_I_SQUEEZE:
        need(1);
        return ag::squeeze(t, ints[0]);
      case EMBER_I_FLATTEN:
        need(2);
        return ag::flatten(t, ints[0], ints[1]);
      case EMBER_I_SOFTMAX:
        need(1);
        return ag::nn_softmax(t, ints[0], std::nullopt);
      case EMBER_I_LOG_SOFTMAX:
        need(1);
        return ag::nn_log_softmax(t, ints[0], std::nullopt);
      case EMBER_I_REPEAT:
        return ag::repeat(t, v);
    }
    fail(ErrorKind::NotImplemented, "ember C++ API: unknown op id ", op);
  });
}

void* list_op(int32_t op, void* const* ts, int64_t n, int64_t dim) {
  return guarded([&] {
    TensorList l;
    l.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) l.push_back(borrow(ts[i]));
    EMBER_CHECK(op == EMBER_L_CAT || op == EMBER_L_STACK, "ember C++ API: unknown list op id ", op);
    return op == EMBER_L_CAT ? ag::cat(l, dim) : ag::stack(l, dim);
  });
}

void* to_dtype(void* a, int32_t dtype, int32_t copy) {
  return guarded([&] {
    Tensor t = borrow(a);
    ScalarType d = to_core(dtype);
    if (d == t.dtype() && !copy) return t;
    return ag::_to_copy(t, d);
  });
}
void* fill(void* a, EmberExtScalar s) {
  return guarded([&] { return ag::fill_(borrow(a), to_core(s)); });
}
int item(void* a, EmberExtScalar* out) {
  GilIfNeeded gil;
  try {
    Scalar s = borrow(a).item();
    EMBER_CHECK(!s.is_complex(), "ember C++ API: item() of a complex tensor is not supported");
    out->kind = s.is_bool() ? 2 : s.is_float() ? 0 : 1;
    out->f = s.to_double();
    out->i = s.is_float() ? 0 : s.to_int();
    return 0;
  } catch (const Error& e) {
    set_python_error(e);
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return -1;
}
// requires_grad and .grad go through the Python attributes: one rule for leaf checks.
int set_requires_grad(void* a, int32_t on) {
  GilIfNeeded gil;
  PyObject* o = to_py(a);
  if (!o) return -1;
  int r = PyObject_SetAttrString(o, "requires_grad", on ? Py_True : Py_False);
  Py_DECREF(o);
  return r;
}
void* grad(void* a) {
  auto* t = static_cast<TensorImpl*>(a);
  if (!t->autograd || !t->autograd->grad.defined()) return nullptr;
  return give(t->autograd->grad);
}
int grad_enabled() { return GradMode::is_enabled(); }
void set_grad_enabled(int32_t on) { GradMode::set_enabled(on != 0); }

EmberExtApi g_api = {EMBER_EXT_ABI_MAJOR,
                     EMBER_EXT_ABI_MINOR,
                     sizeof(EmberExtApi),
                     nullptr,
                     retain,
                     release,
                     meta,
                     from_py,
                     to_py,
                     empty_,
                     unary,
                     binary,
                     scalar_op,
                     ints_op,
                     list_op,
                     to_dtype,
                     fill,
                     item,
                     set_requires_grad,
                     grad,
                     grad_enabled,
                     set_grad_enabled};

}  // namespace

}  // namespace ember::python

// Called from module init: publishes the table as _C._cpp_api.
void ember_init_ext_api(PyObject* module) {
  using namespace ember::python;
  g_api.core_version = "";  // extensions read ember.__version__ for messages
  PyObject* cap = PyCapsule_New(&g_api, EMBER_EXT_CAPSULE_NAME, nullptr);
  if (!cap || PyModule_AddObject(module, "_cpp_api", cap) < 0) {
    Py_XDECREF(cap);
    throw python_error();
  }
}
