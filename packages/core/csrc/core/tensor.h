// TensorImpl (the shared state) and Tensor (a cheap handle to it).
// Sizes, strides and the offset are in elements; views share the storage.
#pragma once
#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "device.h"
#include "error.h"
#include "ref.h"
#include "scalar.h"
#include "scalar_type.h"
#include "small_vec.h"
#include "storage.h"

typedef struct _object PyObject;

namespace ember {

class Tensor;
struct AutogradMeta;

// How a view was made, for autograd's refusals of in-place ops on it (checks.cpp): in no_grad mode,
// as one of several outputs (split, chunk, unbind), or as a view of such a view.
enum ViewCreation : uint8_t { kViewDefault = 0, kViewNoGrad, kViewOfNoGradView, kViewMultiOutput };

struct TensorImpl : RefCounted {
  Ref<StorageImpl> storage;
  DimVector sizes;
  DimVector strides;
  int64_t offset = 0;
  int64_t numel = 1;
  ScalarType dtype = ScalarType::Float32;
  bool contiguous = true;       // cached: row-major with no gaps
  bool wrapped_number = false;  // a Python number turned into a 0-d tensor
  bool uint64_number = false;   // ... an int in [2^63, 2^64) held as its int64 bits (wrap_number)
  bool track_version = true;    // false for `.data` aliases (not seen by autograd)
  bool is_inference = false;
  bool conj = false;                       // a lazy conjugate view (PyTorch's conj bit): set only through set_conj
  uint8_t creation_meta = 0;               // a view's ViewCreation: which in-place ops autograd refuses on it
  std::unique_ptr<AutogradMeta> autograd;  // null: requires_grad=False and no grad
  Ref<TensorImpl> base;                    // the root tensor this is a view of
  PyObject* pyobj = nullptr;               // borrowed: the Python wrapper, if any

  TensorImpl();
  ~TensorImpl() override;
  // Recompute numel and the contiguity flag after sizes/strides change.
  void refresh();
  size_t itemsize() const { return element_size(dtype); }
  // null for a storage without memory (a meta tensor's, an empty one's): no offset applied to it
  char* data() const {
    char* p = static_cast<char*>(storage->data);
    return p ? p + offset * itemsize() : p;
  }
  Device device() const { return storage->device; }
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(Ref<TensorImpl> impl) : impl_(std::move(impl)) {}
  bool defined() const { return static_cast<bool>(impl_); }
  TensorImpl* impl() const { return impl_.get(); }
  const Ref<TensorImpl>& ref() const { return impl_; }
  bool same(const Tensor& o) const { return impl_ == o.impl_; }

  ScalarType dtype() const { return impl_->dtype; }
  Device device() const { return impl_->device(); }
  int64_t dim() const { return static_cast<int64_t>(impl_->sizes.size()); }
  IntArrayRef sizes() const { return impl_->sizes; }
  IntArrayRef strides() const { return impl_->strides; }
  int64_t size(int64_t d) const;
  int64_t stride(int64_t d) const;
  int64_t numel() const { return impl_->numel; }
  int64_t offset() const { return impl_->offset; }
  size_t itemsize() const { return impl_->itemsize(); }
  bool is_contiguous() const { return impl_->contiguous; }
  bool is_floating() const { return ember::is_floating(impl_->dtype); }
  char* raw() const { return impl_->data(); }
  template <class T>
  T* data() const {
    return reinterpret_cast<T*>(impl_->data());
  }
  // data<T>(), or null for an undefined tensor (a kernel's optional argument)
  template <class T>
  T* data_or_null() const {
    return defined() ? data<T>() : nullptr;
  }
  StorageImpl& storage() const { return *impl_->storage; }

  // In-place ops call this: bumps the shared version counter of the storage.
  void bump_version() const {
    if (impl_->track_version) impl_->storage->version.fetch_add(1, std::memory_order_relaxed);
  }
  uint32_t version() const { return impl_->storage->version.load(std::memory_order_relaxed); }

  inline bool requires_grad() const;
  Scalar item() const;

 private:
  Ref<TensorImpl> impl_;
};

using TensorList = std::vector<Tensor>;

// What a tensor knows about gradients (autograd/node.h holds the graph types).
struct Node;
struct TensorHook;
struct AutogradMeta {
  bool requires_grad = false;  // set by the user on leaves
  bool retains_grad = false;
  uint32_t output_nr = 0;  // which output of grad_fn this tensor is
  // Tensor.grad_dtype of a leaf: kGradDtypeOwn (the tensor's dtype), kGradDtypeAny (None: any
  // dtype) or a ScalarType the accumulated gradient is cast to.
  static constexpr int8_t kGradDtypeOwn = -1, kGradDtypeAny = -2;
  int8_t grad_dtype = kGradDtypeOwn;
  Tensor grad;
  Ref<Node> grad_fn;                                                // null for leaves
  Node* grad_accumulator = nullptr;                                 // weak: the AccumulateGrad clears it when it dies
  std::vector<std::pair<int64_t, Ref<TensorHook>>> hooks;           // leaf grad hooks
  std::vector<std::pair<int64_t, Ref<TensorHook>>> post_acc_hooks;  // after .grad is written
  AutogradMeta();                                                   // out of line: the graph types are incomplete here
  ~AutogradMeta();
};

inline bool Tensor::requires_grad() const {
  const AutogradMeta* m = impl_->autograd.get();
  if (m && (m->requires_grad || m->grad_fn)) return true;
  // PyTorch's rule: a view made in no_grad mode requires grad while its base does (a leaf
  // without an accumulator: gradients through it reach nothing).
  if (impl_->creation_meta != kViewNoGrad || !impl_->base) return false;
  const AutogradMeta* b = impl_->base->autograd.get();
  return b && (b->requires_grad || b->grad_fn);
}

// The conjugate bit. Every tensor holding it is counted, so the Python bindings' conjugate
// fallback costs one load per op while no conjugate view is alive (python/py_conj_fallback.h).
extern std::atomic<int64_t> g_conj_views;
inline bool conj_views_alive() { return g_conj_views.load(std::memory_order_relaxed) != 0; }
inline bool is_conj_view(const Tensor& t) { return t.impl()->conj; }
void set_conj(TensorImpl* impl, bool on);
// The same memory and layout without the conjugate bit (the stored, unconjugated values).
Tensor physical_alias(const Tensor& t);

// Wrap a possibly negative dim into [0, ndim), with PyTorch's IndexError.
int64_t wrap_dim(int64_t d, int64_t ndim);
// Row-major strides for sizes.
DimVector contiguous_strides(IntArrayRef sizes);
int64_t compute_numel(IntArrayRef sizes);
std::string shape_str(IntArrayRef sizes);  // "[2, 3]"

// Raise unless tensors can live on `d` (CUDA goes through the backend stub).
void check_device_available(Device d);
// PyTorch's error for operands on two devices: `common` (the first one not the CPU) and `other`;
// where either is meta, its meta kernels' words, which expect the first operand's device (`first`).
[[noreturn]] void fail_two_devices(Device common, Device other, Device first);
[[noreturn]] void cuda_backend_unavailable();

// Allocate an uninitialised tensor.
Tensor empty(IntArrayRef sizes, ScalarType dtype, Device device = cpu_device());
Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device = cpu_device());
// No longer a view for autograd (detach, .data, a stolen gradient): no base, no restriction.
inline void drop_view(TensorImpl* impl) {
  impl->base.reset();
  impl->creation_meta = kViewDefault;
}

// A new tensor header over an existing storage (views).
Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset);
// An op's own fresh result given other sizes and strides over the same elements: in place when
// nothing else holds it (aten's _unsafe_view: still a result, with no _base), else a view.
Tensor restride_result(Tensor t, IntArrayRef sizes, IntArrayRef strides);
// A 0-d tensor holding a Python number, marked as wrapped for type promotion.
Tensor wrap_scalar(const Scalar& s);
// A number (Python's, or a kernel's Scalar argument) as an operand beside the tensors `beside`, as
// PyTorch wraps it. A uint64 number (an int in [2^63, 2^64), PyTorch's UInt64 Scalar) is exact
// beside a float tensor and taken modulo 2^64 beside integer ones (ember has no uint64 dtype: the
// wrapped number is float64 or int64 by the tensors' category); beside bools alone, result_type
// raises PyTorch's promotion error when the op promotes. Every other number is wrap_scalar.
Tensor wrap_number(const Scalar& s, const Tensor* const* beside, int n);
// A 0-d tensor's value as a Scalar; a uint64 number's is its value, not its int64 bits.
Scalar number_value(const Tensor& t);
inline Tensor wrap_number(const Scalar& s, const Tensor& beside) {
  const Tensor* b = &beside;
  return wrap_number(s, &b, 1);
}
Tensor scalar_tensor(const Scalar& s, ScalarType dtype);

}  // namespace ember
