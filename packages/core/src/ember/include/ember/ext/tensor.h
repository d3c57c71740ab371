// ember's public C++ API, part 2: Tensor, a handle on the core's tensor (same object Python
// sees), its methods and the free functions / factories. Every op is one call through the
// function table (abi.h) into the core's autograd-aware ops, so C++ calls record autograd
// exactly like Python calls. Errors raised by the core keep their Python type.
#pragma once
#include <Python.h>
#include <pybind11/pytypes.h>

#include "types.h"

namespace ember {
namespace EMBER_EXT_NS {

// TORCH_CHECK_TYPE's exception: pybind11 raises its builtin_exception types as themselves.
class TypeError : public pybind11::type_error {
 public:
  explicit TypeError(const std::string& m) : pybind11::type_error(m) {}
};

namespace detail {
// Set by the import hook (python.h) of a Python extension; fetched lazily otherwise.
inline const EmberExtApi* g_api = nullptr;

inline std::string core_version() {
  PyObject* m = PyImport_ImportModule("ember");
  if (!m) return "?";
  PyObject* v = PyObject_GetAttrString(m, "__version__");
  Py_DECREF(m);
  const char* s = v ? PyUnicode_AsUTF8(v) : nullptr;
  std::string out = s ? s : "?";
  Py_XDECREF(v);
  PyErr_Clear();
  return out;
}

inline bool older(uint32_t have, uint32_t want) { return have < want; }

// Imports ember (so ember.Tensor is registered) and checks the ABI tag. On failure sets an
// ImportError naming both API versions and returns null.
inline const EmberExtApi* import_api(const char* ext_name) {
  if (g_api) return g_api;
  PyObject* m = PyImport_ImportModule("ember");
  if (!m) return nullptr;
  Py_DECREF(m);
  auto* a = static_cast<const EmberExtApi*>(PyCapsule_Import(EMBER_EXT_CAPSULE_NAME, 0));
  if (!a) return nullptr;
  if (a->abi_major != EMBER_EXT_ABI_MAJOR || older(a->abi_minor, EMBER_EXT_ABI_MINOR)) {
    std::string msg = str("ember C++ extension '", ext_name, "' was built against the ember C++ API ",
                          EMBER_EXT_ABI_MAJOR, ".", EMBER_EXT_ABI_MINOR,
                          " but the installed ember-core ", core_version(), " provides C++ API ",
                          a->abi_major, ".", a->abi_minor,
                          "; rebuild the extension against this ember (delete its build directory "
                          "and load it again, or rerun setup.py)");
    PyErr_SetString(PyExc_ImportError, msg.c_str());
    return nullptr;
  }
  g_api = a;
  return a;
}
inline const EmberExtApi* api() {
  if (__builtin_expect(g_api != nullptr, 1)) return g_api;
  if (!import_api("<extension>")) throw pybind11::error_already_set();
  return g_api;
}
// The core reports failures as a set Python exception; rethrow it through the C++ stack.
inline void* check(void* p) {
  if (__builtin_expect(p == nullptr, 0)) throw pybind11::error_already_set();
  return p;
}
inline EmberExtScalar one() { return Scalar(int64_t{1}).raw(); }
}  // namespace detail

class Tensor;
using TensorList = ArrayRef<Tensor>;

// accessor<T, N>(): strided element access; operator[] peels one dimension at a time.
template <class T>
class TensorAccessorBase {
 public:
  TensorAccessorBase(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  int64_t size(int64_t d) const { return sizes_[d]; }
  int64_t stride(int64_t d) const { return strides_[d]; }
  T* data() const { return data_; }

 protected:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};
template <class T, size_t N>
class TensorAccessor : public TensorAccessorBase<T> {
 public:
  using TensorAccessorBase<T>::TensorAccessorBase;
  TensorAccessor<T, N - 1> operator[](int64_t i) const {
    return TensorAccessor<T, N - 1>(this->data_ + this->strides_[0] * i, this->sizes_ + 1, this->strides_ + 1);
  }
};
template <class T>
class TensorAccessor<T, 1> : public TensorAccessorBase<T> {
 public:
  using TensorAccessorBase<T>::TensorAccessorBase;
  T& operator[](int64_t i) const { return this->data_[this->strides_[0] * i]; }
};

// x.type(): old extension code passes it to AT_DISPATCH_*; converts to its ScalarType.
struct DeprecatedTypeProperties {
  ScalarType st;
  operator ScalarType() const { return st; }
  ScalarType scalarType() const { return st; }
};

class Tensor {
 public:
  Tensor() = default;
  // Adopts one reference the core handed out (table results are new references).
  static Tensor adopt(void* impl) {
    Tensor t;
    t.impl_ = impl;
    return t;
  }
  Tensor(const Tensor& o) : impl_(o.impl_) {
    if (impl_) detail::api()->retain(impl_);
  }
  Tensor(Tensor&& o) noexcept : impl_(o.impl_) { o.impl_ = nullptr; }
  Tensor& operator=(const Tensor& o) {
    Tensor(o).swap(*this);
    return *this;
  }
  Tensor& operator=(Tensor&& o) noexcept {
    Tensor(std::move(o)).swap(*this);
    return *this;
  }
  ~Tensor() {
    if (impl_) detail::g_api->release(impl_);
  }
  void swap(Tensor& o) noexcept { std::swap(impl_, o.impl_); }

  bool defined() const { return impl_ != nullptr; }
  void* unsafeGetTensorImpl() const { return impl_; }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }

  // ---- metadata ----
  EmberExtMeta meta() const {
    EmberExtMeta m;
    detail::api()->meta(live(), &m);
    return m;
  }
  int64_t dim() const { return meta().ndim; }
  int64_t ndimension() const { return dim(); }
  IntArrayRef sizes() const {
    EmberExtMeta m = meta();
    return IntArrayRef(m.sizes, static_cast<size_t>(m.ndim));
  }
  IntArrayRef strides() const {
    EmberExtMeta m = meta();
    return IntArrayRef(m.strides, static_cast<size_t>(m.ndim));
  }
  int64_t size(int64_t d) const { return sizes()[wrap(d)]; }
  int64_t stride(int64_t d) const { return strides()[wrap(d)]; }
  int64_t numel() const { return meta().numel; }
  int64_t storage_offset() const { return meta().storage_offset; }
  ScalarType scalar_type() const { return static_cast<ScalarType>(meta().dtype); }
  ScalarType dtype() const { return scalar_type(); }
  DeprecatedTypeProperties type() const { return {scalar_type()}; }
  size_t element_size() const { return elementSize(scalar_type()); }
  size_t itemsize() const { return element_size(); }
  size_t nbytes() const { return element_size() * static_cast<size_t>(numel()); }
  Device device() const {
    EmberExtMeta m = meta();
    return Device(static_cast<DeviceType>(m.device_type), static_cast<DeviceIndex>(m.device_index));
  }
  bool is_cpu() const { return meta().device_type == 0; }
  bool is_cuda() const { return meta().device_type == 1; }
  bool is_contiguous() const { return meta().is_contiguous != 0; }
  bool is_floating_point() const { return isFloatingType(scalar_type()); }
  TensorOptions options() const { return TensorOptions(scalar_type()).device(device()); }

  // ---- data access ----
  void* data_ptr() const { return meta().data; }
  template <class T>
  T* data_ptr() const {
    EmberExtMeta m = meta();
    constexpr ScalarType want = CppTypeToScalarType<std::remove_const_t<T>>::value;
    TORCH_CHECK(static_cast<ScalarType>(m.dtype) == want, "expected scalar type ", want,
                " but found ", static_cast<ScalarType>(m.dtype));
    return static_cast<T*>(m.data);
  }
  template <class T>
  const T* const_data_ptr() const { return data_ptr<const T>(); }
  template <class T>
  T* mutable_data_ptr() const { return data_ptr<T>(); }
  template <class T>
  T* data() const { return data_ptr<T>(); }
  template <class T, size_t N>
  TensorAccessor<T, N> accessor() const {
    EmberExtMeta m = meta();
    TORCH_CHECK(m.ndim == static_cast<int64_t>(N), "TensorAccessor expected ", N, " dims but tensor has ", m.ndim);
    return TensorAccessor<T, N>(data_ptr<T>(), m.sizes, m.strides);
  }
  Scalar item() const {
    EmberExtScalar s;
    if (detail::api()->item(live(), &s) < 0) throw pybind11::error_already_set();
    return Scalar(s);
  }
  template <class T>
  T item() const { return item().to<T>(); }

  // ---- autograd ----
  bool requires_grad() const { return meta().requires_grad != 0; }
  Tensor& set_requires_grad(bool on) {
    if (detail::api()->set_requires_grad(live(), on) < 0) throw pybind11::error_already_set();
    return *this;
  }
  Tensor& requires_grad_(bool on = true) { return set_requires_grad(on); }
  Tensor grad() const { return adopt(detail::api()->grad(live())); }
  Tensor detach() const { return un(EMBER_U_DETACH); }

  // ---- ops (by their PyTorch names) ----
  Tensor sin() const { return un(EMBER_U_SIN); }
  Tensor cos() const { return un(EMBER_U_COS); }
  Tensor tan() const { return un(EMBER_U_TAN); }
  Tensor exp() const { return un(EMBER_U_EXP); }
  Tensor log() const { return un(EMBER_U_LOG); }
  Tensor tanh() const { return un(EMBER_U_TANH); }
  Tensor sigmoid() const { return un(EMBER_U_SIGMOID); }
  Tensor relu() const { return un(EMBER_U_RELU); }
  Tensor neg() const { return un(EMBER_U_NEG); }
  Tensor abs() const { return un(EMBER_U_ABS); }
  Tensor sqrt() const { return un(EMBER_U_SQRT); }
  Tensor rsqrt() const { return un(EMBER_U_RSQRT); }
  Tensor square() const { return un(EMBER_U_SQUARE); }
  Tensor floor() const { return un(EMBER_U_FLOOR); }
  Tensor sign() const { return un(EMBER_U_SIGN); }
  Tensor clone() const { return un(EMBER_U_CLONE); }
  Tensor contiguous() const { return un(EMBER_U_CONTIGUOUS); }
  Tensor t() const { return un(EMBER_U_T); }
  Tensor sum() const { return un(EMBER_U_SUM); }
  Tensor mean() const { return un(EMBER_U_MEAN); }
  Tensor max() const { return un(EMBER_U_MAX); }
  Tensor min() const { return un(EMBER_U_MIN); }
  Tensor& zero_() { un(EMBER_U_ZERO_); return *this; }
  Tensor sum(IntArrayRef dim, bool keepdim = false) const { return ints(EMBER_I_SUM_DIM, dim, keepdim); }
  Tensor sum(int64_t dim, bool keepdim = false) const { return ints(EMBER_I_SUM_DIM, IntArrayRef(dim), keepdim); }
  Tensor mean(IntArrayRef dim, bool keepdim = false) const { return ints(EMBER_I_MEAN_DIM, dim, keepdim); }
  Tensor mean(int64_t dim, bool keepdim = false) const { return ints(EMBER_I_MEAN_DIM, IntArrayRef(dim), keepdim); }

  Tensor add(const Tensor& o, const Scalar& alpha = 1) const { return bin(EMBER_B_ADD, o, alpha); }
  Tensor sub(const Tensor& o, const Scalar& alpha = 1) const { return bin(EMBER_B_SUB, o, alpha); }
  Tensor mul(const Tensor& o) const { return bin(EMBER_B_MUL, o); }
  Tensor div(const Tensor& o) const { return bin(EMBER_B_DIV, o); }
  Tensor add(const Scalar& s) const { return sc(EMBER_B_ADD, s); }
  Tensor sub(const Scalar& s) const { return sc(EMBER_B_SUB, s); }
  Tensor mul(const Scalar& s) const { return sc(EMBER_B_MUL, s); }
  Tensor div(const Scalar& s) const { return sc(EMBER_B_DIV, s); }
  Tensor pow(const Tensor& o) const { return bin(EMBER_B_POW, o); }
  Tensor pow(const Scalar& s) const { return sc(EMBER_B_POW, s); }
  Tensor mm(const Tensor& o) const { return bin(EMBER_B_MM, o); }
  Tensor matmul(const Tensor& o) const { return bin(EMBER_B_MATMUL, o); }
  Tensor bmm(const Tensor& o) const { return bin(EMBER_B_BMM, o); }
  Tensor maximum(const Tensor& o) const { return bin(EMBER_B_MAXIMUM, o); }
  Tensor minimum(const Tensor& o) const { return bin(EMBER_B_MINIMUM, o); }
  Tensor eq(const Tensor& o) const { return bin(EMBER_B_EQ, o); }
  Tensor ne(const Tensor& o) const { return bin(EMBER_B_NE, o); }
  Tensor lt(const Tensor& o) const { return bin(EMBER_B_LT, o); }
  Tensor le(const Tensor& o) const { return bin(EMBER_B_LE, o); }
  Tensor gt(const Tensor& o) const { return bin(EMBER_B_GT, o); }
  Tensor ge(const Tensor& o) const { return bin(EMBER_B_GE, o); }
  Tensor eq(const Scalar& s) const { return sc(EMBER_B_EQ, s); }
  Tensor lt(const Scalar& s) const { return sc(EMBER_B_LT, s); }
  Tensor gt(const Scalar& s) const { return sc(EMBER_B_GT, s); }
  Tensor& add_(const Tensor& o, const Scalar& alpha = 1) { bin(EMBER_B_ADD_, o, alpha); return *this; }
  Tensor& sub_(const Tensor& o, const Scalar& alpha = 1) { bin(EMBER_B_SUB_, o, alpha); return *this; }
  Tensor& mul_(const Tensor& o) { bin(EMBER_B_MUL_, o); return *this; }
  Tensor& div_(const Tensor& o) { bin(EMBER_B_DIV_, o); return *this; }
  Tensor& add_(const Scalar& s) { sc(EMBER_B_ADD_, s); return *this; }
  Tensor& sub_(const Scalar& s) { sc(EMBER_B_SUB_, s); return *this; }
  Tensor& mul_(const Scalar& s) { sc(EMBER_B_MUL_, s); return *this; }
  Tensor& div_(const Scalar& s) { sc(EMBER_B_DIV_, s); return *this; }
  Tensor& copy_(const Tensor& src, bool /*non_blocking*/ = false) { bin(EMBER_B_COPY_, src); return *this; }
  Tensor& fill_(const Scalar& s) {
    adopt(detail::check(detail::api()->fill_(live(), s.raw())));
    return *this;
  }

  Tensor view(IntArrayRef s) const { return ints(EMBER_I_VIEW, s); }
  Tensor reshape(IntArrayRef s) const { return ints(EMBER_I_RESHAPE, s); }
  Tensor view_as(const Tensor& o) const { return view(o.sizes()); }
  Tensor reshape_as(const Tensor& o) const { return reshape(o.sizes()); }
  Tensor permute(IntArrayRef d) const { return ints(EMBER_I_PERMUTE, d); }
  Tensor expand(IntArrayRef s) const { return ints(EMBER_I_EXPAND, s); }
  Tensor expand_as(const Tensor& o) const { return expand(o.sizes()); }
  Tensor repeat(IntArrayRef r) const { return ints(EMBER_I_REPEAT, r); }
  Tensor transpose(int64_t a, int64_t b) const { return ints(EMBER_I_TRANSPOSE, {a, b}); }
  Tensor narrow(int64_t d, int64_t start, int64_t len) const { return ints(EMBER_I_NARROW, {d, start, len}); }
  Tensor select(int64_t d, int64_t i) const { return ints(EMBER_I_SELECT, {d, i}); }
  Tensor unsqueeze(int64_t d) const { return ints(EMBER_I_UNSQUEEZE, {d}); }
  Tensor squeeze(int64_t d) const { return ints(EMBER_I_SQUEEZE, {d}); }
  Tensor flatten(int64_t start = 0, int64_t end = -1) const { return ints(EMBER_I_FLATTEN, {start, end}); }
  Tensor softmax(int64_t d) const { return ints(EMBER_I_SOFTMAX, {d}); }
  Tensor log_softmax(int64_t d) const { return ints(EMBER_I_LOG_SOFTMAX, {d}); }
  Tensor operator[](int64_t i) const { return select(0, i); }

  Tensor to(ScalarType t, bool /*non_blocking*/ = false, bool copy = false) const {
    return adopt(detail::check(detail::api()->to_dtype(live(), static_cast<int32_t>(t), copy)));
  }
  Tensor to(const TensorOptions& o, bool /*non_blocking*/ = false, bool copy = false) const {
    TORCH_CHECK(!o.has_device() || o.device().type() == device().type(),
                "ember C++ API: to(device) across devices is not supported yet");
    return to(o.has_dtype() ? o.dtype() : scalar_type(), false, copy);
  }
  Tensor to(Device d, ScalarType t, bool nb = false, bool copy = false) const {
    return to(TensorOptions(t).device(d), nb, copy);
  }
  Tensor cpu() const { return *this; }
  Tensor toType(ScalarType t) const { return to(t); }
  Tensor& operator+=(const Tensor& o) { return add_(o); }
  Tensor& operator-=(const Tensor& o) { return sub_(o); }
  Tensor& operator*=(const Tensor& o) { return mul_(o); }
  Tensor& operator/=(const Tensor& o) { return div_(o); }
  Tensor& operator+=(const Scalar& s) { return add_(s); }
  Tensor& operator-=(const Scalar& s) { return sub_(s); }
  Tensor& operator*=(const Scalar& s) { return mul_(s); }
  Tensor& operator/=(const Scalar& s) { return div_(s); }
  Tensor operator-() const { return neg(); }

  // Used by the free functions below (not part of PyTorch's surface).
  void* live() const {
    TORCH_CHECK(impl_ != nullptr, "ember C++ API: the tensor is undefined");
    return impl_;
  }
  Tensor rsc(int32_t op, const Scalar& s) const {  // scalar OP tensor
    return adopt(detail::check(detail::api()->scalar_op(op, live(), s.raw(), 1)));
  }

 private:
  size_t wrap(int64_t d) const {
    int64_t n = dim();
    TORCH_CHECK_INDEX(d >= -n && d < (n == 0 ? 1 : n), "Dimension out of range (expected to be in range of [",
                      -n, ", ", n - 1, "], but got ", d, ")");
    return static_cast<size_t>(d < 0 ? d + n : d);
  }
  Tensor un(int32_t op) const { return adopt(detail::check(detail::api()->unary(op, live()))); }
  Tensor bin(int32_t op, const Tensor& o, const Scalar& alpha = 1) const {
    return adopt(detail::check(detail::api()->binary(op, live(), o.live(), alpha.raw())));
  }
  Tensor sc(int32_t op, const Scalar& s) const {
    return adopt(detail::check(detail::api()->scalar_op(op, live(), s.raw(), 0)));
  }
  Tensor ints(int32_t op, IntArrayRef v, int64_t flag = 0) const {
    return adopt(detail::check(
        detail::api()->ints_op(op, live(), v.data(), static_cast<int64_t>(v.size()), flag)));
  }
  void* impl_ = nullptr;
};

// ---- operators ----
inline Tensor operator+(const Tensor& a, const Tensor& b) { return a.add(b); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return a.sub(b); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return a.mul(b); }
inline Tensor operator/(const Tensor& a, const Tensor& b) { return a.div(b); }
inline Tensor operator+(const Tensor& a, const Scalar& s) { return a.add(s); }
inline Tensor operator-(const Tensor& a, const Scalar& s) { return a.sub(s); }
inline Tensor operator*(const Tensor& a, const Scalar& s) { return a.mul(s); }
inline Tensor operator/(const Tensor& a, const Scalar& s) { return a.div(s); }
inline Tensor operator+(const Scalar& s, const Tensor& a) { return a.add(s); }
inline Tensor operator*(const Scalar& s, const Tensor& a) { return a.mul(s); }
inline Tensor operator-(const Scalar& s, const Tensor& a) { return a.rsc(EMBER_B_SUB, s); }
inline Tensor operator/(const Scalar& s, const Tensor& a) { return a.rsc(EMBER_B_DIV, s); }
inline Tensor operator==(const Tensor& a, const Tensor& b) { return a.eq(b); }
inline Tensor operator!=(const Tensor& a, const Tensor& b) { return a.ne(b); }
inline Tensor operator<(const Tensor& a, const Tensor& b) { return a.lt(b); }
inline Tensor operator<=(const Tensor& a, const Tensor& b) { return a.le(b); }
inline Tensor operator>(const Tensor& a, const Tensor& b) { return a.gt(b); }
inline Tensor operator>=(const Tensor& a, const Tensor& b) { return a.ge(b); }

// ---- free functions by their PyTorch names ----
#define EMBER_EXT_FREE_UNARY(f) \
  inline Tensor f(const Tensor& x) { return x.f(); }
EMBER_EXT_FREE_UNARY(sin)
EMBER_EXT_FREE_UNARY(cos)
EMBER_EXT_FREE_UNARY(tan)
EMBER_EXT_FREE_UNARY(exp)
EMBER_EXT_FREE_UNARY(log)
EMBER_EXT_FREE_UNARY(tanh)
EMBER_EXT_FREE_UNARY(sigmoid)
EMBER_EXT_FREE_UNARY(relu)
EMBER_EXT_FREE_UNARY(neg)
EMBER_EXT_FREE_UNARY(abs)
EMBER_EXT_FREE_UNARY(sqrt)
EMBER_EXT_FREE_UNARY(rsqrt)
EMBER_EXT_FREE_UNARY(square)
EMBER_EXT_FREE_UNARY(floor)
EMBER_EXT_FREE_UNARY(sign)
EMBER_EXT_FREE_UNARY(clone)
EMBER_EXT_FREE_UNARY(t)
EMBER_EXT_FREE_UNARY(sum)
EMBER_EXT_FREE_UNARY(mean)
#undef EMBER_EXT_FREE_UNARY
inline Tensor sum(const Tensor& x, IntArrayRef d, bool keepdim = false) { return x.sum(d, keepdim); }
inline Tensor mean(const Tensor& x, IntArrayRef d, bool keepdim = false) { return x.mean(d, keepdim); }
inline Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha = 1) { return a.add(b, alpha); }
inline Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha = 1) { return a.sub(b, alpha); }
inline Tensor mul(const Tensor& a, const Tensor& b) { return a.mul(b); }
inline Tensor div(const Tensor& a, const Tensor& b) { return a.div(b); }
inline Tensor pow(const Tensor& a, const Tensor& b) { return a.pow(b); }
inline Tensor pow(const Tensor& a, const Scalar& b) { return a.pow(b); }
inline Tensor mm(const Tensor& a, const Tensor& b) { return a.mm(b); }
inline Tensor matmul(const Tensor& a, const Tensor& b) { return a.matmul(b); }
inline Tensor bmm(const Tensor& a, const Tensor& b) { return a.bmm(b); }
inline Tensor maximum(const Tensor& a, const Tensor& b) { return a.maximum(b); }
inline Tensor minimum(const Tensor& a, const Tensor& b) { return a.minimum(b); }
inline Tensor transpose(const Tensor& x, int64_t a, int64_t b) { return x.transpose(a, b); }
inline Tensor reshape(const Tensor& x, IntArrayRef s) { return x.reshape(s); }
inline Tensor softmax(const Tensor& x, int64_t d) { return x.softmax(d); }
inline Tensor log_softmax(const Tensor& x, int64_t d) { return x.log_softmax(d); }
inline Tensor narrow(const Tensor& x, int64_t d, int64_t s, int64_t l) { return x.narrow(d, s, l); }
inline Tensor addmm(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta = 1,
                    const Scalar& alpha = 1) {
  return self.mul(beta).add(a.mm(b).mul(alpha));
}
inline Tensor list_op(int32_t op, ArrayRef<Tensor> ts, int64_t dim) {
  std::vector<void*> ps;
  ps.reserve(ts.size());
  for (const Tensor& t : ts) ps.push_back(t.live());
  return Tensor::adopt(detail::check(detail::api()->list_op(op, ps.data(), static_cast<int64_t>(ps.size()), dim)));
}
inline Tensor cat(ArrayRef<Tensor> ts, int64_t dim = 0) { return list_op(EMBER_L_CAT, ts, dim); }
inline Tensor stack(ArrayRef<Tensor> ts, int64_t dim = 0) { return list_op(EMBER_L_STACK, ts, dim); }

// ---- factories ----
inline Tensor empty(IntArrayRef size, const TensorOptions& o = {}) {
  Device d = o.device();
  Tensor t = Tensor::adopt(detail::check(detail::api()->empty(
      size.data(), static_cast<int64_t>(size.size()), static_cast<int32_t>(o.dtype()),
      static_cast<int32_t>(d.type()), d.index())));
  if (o.requires_grad()) t.set_requires_grad(true);
  return t;
}
inline Tensor full(IntArrayRef size, const Scalar& v, const TensorOptions& o = {}) {
  Tensor t = empty(size, TensorOptions(o).requires_grad(false));
  t.fill_(v);
  if (o.requires_grad()) t.set_requires_grad(true);
  return t;
}
inline Tensor zeros(IntArrayRef size, const TensorOptions& o = {}) { return full(size, 0, o); }
inline Tensor ones(IntArrayRef size, const TensorOptions& o = {}) { return full(size, 1, o); }
inline Tensor empty_like(const Tensor& x, const TensorOptions& o = {}) { return empty(x.sizes(), o.merged_with(x.options())); }
inline Tensor zeros_like(const Tensor& x, const TensorOptions& o = {}) { return zeros(x.sizes(), o.merged_with(x.options())); }
inline Tensor ones_like(const Tensor& x, const TensorOptions& o = {}) { return ones(x.sizes(), o.merged_with(x.options())); }
inline Tensor full_like(const Tensor& x, const Scalar& v, const TensorOptions& o = {}) {
  return full(x.sizes(), v, o.merged_with(x.options()));
}

// Grad mode guard (torch::NoGradGuard / at::AutoGradMode).
class AutoGradMode {
 public:
  explicit AutoGradMode(bool on) : prev_(detail::api()->grad_enabled() != 0) { detail::api()->set_grad_enabled(on); }
  ~AutoGradMode() { detail::api()->set_grad_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};
struct NoGradGuard : AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};

inline std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "[ Tensor (undefined) ]";
  return os << "[ ember." << toString(t.scalar_type()) << "Tensor of size " << t.sizes() << " ]";
}

}  // namespace ext
}  // namespace ember

// ---- AT_DISPATCH_*: run a lambda with scalar_t bound to the tensor's C++ element type ----
#define EMBER_EXT_CASE(enum_v, T, ...)    \
  case ::ember::ext::ScalarType::enum_v: { \
    using scalar_t = T;                    \
    return __VA_ARGS__();                  \
  }
#define EMBER_EXT_DISPATCH(TYPE, NAME, CASES, ...)                                              \
  [&] {                                                                                         \
    const ::ember::ext::ScalarType _st = ::ember::ext::ScalarType(TYPE);                        \
    switch (_st) {                                                                              \
      CASES(__VA_ARGS__)                                                                        \
      default:                                                                                  \
        throw ::ember::ext::Error(::ember::ext::detail::str('"', NAME, "\" not implemented for '", \
                                                            ::ember::ext::toString(_st), "'")); \
    }                                                                                           \
  }()
#define EMBER_EXT_FLOATS(...) EMBER_EXT_CASE(Double, double, __VA_ARGS__) EMBER_EXT_CASE(Float, float, __VA_ARGS__)
#define EMBER_EXT_INTS(...)                                                                \
  EMBER_EXT_CASE(Byte, uint8_t, __VA_ARGS__) EMBER_EXT_CASE(Char, int8_t, __VA_ARGS__)      \
  EMBER_EXT_CASE(Short, int16_t, __VA_ARGS__) EMBER_EXT_CASE(Int, int32_t, __VA_ARGS__)     \
  EMBER_EXT_CASE(Long, int64_t, __VA_ARGS__)
#define EMBER_EXT_FLOATS_HALF(...) EMBER_EXT_FLOATS(__VA_ARGS__) EMBER_EXT_CASE(Half, ::ember::ext::Half, __VA_ARGS__)
#define EMBER_EXT_FLOATS_HALF_BF16(...) \
  EMBER_EXT_FLOATS_HALF(__VA_ARGS__) EMBER_EXT_CASE(BFloat16, ::ember::ext::BFloat16, __VA_ARGS__)
#define EMBER_EXT_ALL(...) EMBER_EXT_FLOATS(__VA_ARGS__) EMBER_EXT_INTS(__VA_ARGS__)

#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) EMBER_EXT_DISPATCH(TYPE, NAME, EMBER_EXT_FLOATS, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...) \
  EMBER_EXT_DISPATCH(TYPE, NAME, EMBER_EXT_FLOATS_HALF, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND2(T1, T2, TYPE, NAME, ...) \
  EMBER_EXT_DISPATCH(TYPE, NAME, EMBER_EXT_FLOATS_HALF_BF16, __VA_ARGS__)
#define AT_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...) EMBER_EXT_DISPATCH(TYPE, NAME, EMBER_EXT_INTS, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...) EMBER_EXT_DISPATCH(TYPE, NAME, EMBER_EXT_ALL, __VA_ARGS__)
