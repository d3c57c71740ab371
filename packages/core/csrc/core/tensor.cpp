#include "tensor.h"

#include <algorithm>
#include <cstring>

#include "allocator.h"
#include "grad_mode.h"
#include "size_math.h"

namespace ember {

// A tensor made under inference_mode is an inference tensor (views take their base's flag instead).
TensorImpl::TensorImpl() : is_inference(InferenceMode::is_enabled()) {}
// ~TensorImpl is defined with the graph types in autograd/node.cpp: it unregisters the tensor
// from its grad_fn, which core does not see.

void TensorImpl::refresh() {
  int64_t n = checked_numel(sizes);  // a view (expand, as_strided) may ask for absurd sizes
  numel = n;
  bool c = true;
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) {
      c = false;
      break;
    }
    expected *= sizes[i];
  }
  contiguous = c || n == 0;
}

// aten's TensorImpl::size(d) / stride(d): a 0-d tensor has no dim to wrap to (an IndexError).
int64_t Tensor::size(int64_t d) const {
  EMBER_CHECK_INDEX(dim() > 0, "Dimension specified as ", d, " but tensor has no dimensions");
  return impl_->sizes[wrap_dim(d, dim())];
}
int64_t Tensor::stride(int64_t d) const {
  EMBER_CHECK_INDEX(dim() > 0, "Dimension specified as ", d, " but tensor has no dimensions");
  return impl_->strides[wrap_dim(d, dim())];
}

// Defined by the CUDA backend (kernels/device_transfer.h; its stub raises "not compiled with CUDA").
void device_to_host(void* dst, const void* src, int device, size_t nbytes, bool non_blocking);

Scalar Tensor::item() const {
  EMBER_CHECK(numel() == 1, "a Tensor with ", numel(), " elements cannot be converted to Scalar");
  EMBER_CHECK(!device().is_meta(), "Tensor.item() cannot be called on meta tensors");
  const char* p = raw();
  alignas(16) char host[16];
  if (!device().is_cpu()) {  // a device tensor's one element, copied to the host first (as PyTorch's item())
    device_to_host(host, p, device().index, itemsize(), false);
    p = host;
  }
  switch (dtype()) {
    case ScalarType::Bool:
      return Scalar(*reinterpret_cast<const uint8_t*>(p) != 0);
    case ScalarType::UInt8:
      return Scalar(int64_t(*reinterpret_cast<const uint8_t*>(p)));
    case ScalarType::Int8:
      return Scalar(int64_t(*reinterpret_cast<const int8_t*>(p)));
    case ScalarType::Int16:
      return Scalar(int64_t(*reinterpret_cast<const int16_t*>(p)));
    case ScalarType::Int32:
      return Scalar(int64_t(*reinterpret_cast<const int32_t*>(p)));
    case ScalarType::Int64:
      return Scalar(*reinterpret_cast<const int64_t*>(p));
    case ScalarType::Float16:
      return Scalar(double(float(*reinterpret_cast<const Half*>(p))));
    case ScalarType::BFloat16:
      return Scalar(double(float(*reinterpret_cast<const BFloat16*>(p))));
    case ScalarType::Float32:
      return Scalar(double(*reinterpret_cast<const float*>(p)));
    case ScalarType::Float64:
      return Scalar(*reinterpret_cast<const double*>(p));
    case ScalarType::ComplexFloat:
      return Scalar(impl_->conj ? std::conj(*reinterpret_cast<const std::complex<float>*>(p))
                                : *reinterpret_cast<const std::complex<float>*>(p));
    case ScalarType::ComplexDouble:
      return Scalar(impl_->conj ? std::conj(*reinterpret_cast<const std::complex<double>*>(p))
                                : *reinterpret_cast<const std::complex<double>*>(p));
    case ScalarType::ComplexHalf: {
      const std::complex<float> z = *reinterpret_cast<const ComplexHalf*>(p);
      return Scalar(impl_->conj ? std::conj(z) : z);
    }
    case ScalarType::UInt16:
      return Scalar(int64_t(*reinterpret_cast<const uint16_t*>(p)));
    case ScalarType::UInt32:
      return Scalar(int64_t(*reinterpret_cast<const uint32_t*>(p)));
    case ScalarType::UInt64:
      return Scalar::from_uint64(*reinterpret_cast<const uint64_t*>(p));
    default:
      fail(ErrorKind::Runtime, "item: unsupported dtype");
  }
}

int64_t wrap_dim(int64_t d, int64_t ndim) {
  int64_t n = ndim == 0 ? 1 : ndim;  // 0-d tensors accept dim 0 and -1
  EMBER_CHECK_INDEX(d >= -n && d < n, "Dimension out of range (expected to be in range of [", -n, ", ", n - 1,
                    "], but got ", d, ")");
  return d < 0 ? d + n : d;
}

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector st(sizes.size());
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    st[i] = s;
    // Also for zero-size tensors, as in PyTorch: empty((0, 2**32, 2**32)) has no stride for dim 0.
    if (__builtin_mul_overflow(s, sizes[i] > 1 ? sizes[i] : 1, &s) && i > 0)
      fail(ErrorKind::Runtime, "Stride calculation overflowed");
  }
  return st;
}

int64_t compute_numel(IntArrayRef sizes) { return checked_numel(sizes); }

std::string shape_str(IntArrayRef sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(sizes[i]);
  }
  return s + "]";
}

// kernels/cuda (or its stub): initialises CUDA on first use and raises PyTorch's errors (no
// driver, no GPU, an index out of range); -1 means the current device
int cuda_device_index(int index);

void check_device_available(Device d) {
  if (d.is_cuda()) (void)cuda_device_index(d.index);
}

void fail_two_devices(Device common, Device other, Device first) {
  if (common.is_meta() || other.is_meta())
    fail(ErrorKind::Runtime, "Tensor on device ", (first == common ? other : common).str(),
         " is not on the expected device ", first.str(), "!");
  fail(ErrorKind::Runtime, "Expected all tensors to be on the same device, but found at least two devices, ",
       common.str(), " and ", other.str(), "!");
}

static void cpu_deleter(void* data, void*, size_t nbytes) { cpu_free(data, nbytes); }
// a device storage's ctx holds its device index
static void cuda_deleter(void* data, void* ctx, size_t nbytes) {
  deallocate(data, nbytes, Device{DeviceType::CUDA, static_cast<int8_t>(reinterpret_cast<intptr_t>(ctx))});
}

// A fresh storage on `device` from its allocator (allocator.h), with the matching deleter.
static Ref<StorageImpl> new_storage(size_t nbytes, Device device) {
  if (device.is_meta()) {  // its size only: no memory, no deleter
    auto s = make_ref<StorageImpl>();
    s->nbytes = nbytes;
    s->device = device;
    return s;
  }
  if (!device.is_cpu()) device.index = static_cast<int8_t>(cuda_device_index(device.index));  // "cuda" -> "cuda:0"
  auto s = make_ref<StorageImpl>();
  s->data = allocate(nbytes, device);
  s->nbytes = nbytes;
  s->device = device.is_cpu() ? cpu_device() : device;  // a CPU tensor's device has no index, as in PyTorch
  s->deleter = device.is_cpu() ? cpu_deleter : cuda_deleter;
  if (!device.is_cpu()) s->ctx = reinterpret_cast<void*>(static_cast<intptr_t>(device.index));
  return s;
}

Ref<StorageImpl> new_cpu_storage(size_t nbytes) { return new_storage(nbytes, cpu_device()); }

// Moves s to a fresh block of nbytes on its device, keeping the first min(old, new) bytes (a CUDA
// storage's on the device: its bytes are never read on the host).
static void reallocate(StorageImpl& s, size_t nbytes) {
  if (s.device.is_meta()) {
    EMBER_CHECK(s.resizable, "Trying to resize storage that is not resizable");
    s.nbytes = nbytes;
    return;
  }
  EMBER_CHECK(s.resizable && (s.deleter == cpu_deleter || s.deleter == cuda_deleter),
              "Trying to resize storage that is not resizable");
  Ref<StorageImpl> fresh = new_storage(nbytes, s.device);
  copy_bytes(fresh->data, s.data, std::min(nbytes, s.nbytes), s.device);
  std::swap(s.data, fresh->data);  // fresh now holds the old block and frees it
  std::swap(s.nbytes, fresh->nbytes);
}

void resize_storage(StorageImpl& s, size_t nbytes) {
  if (nbytes > s.nbytes) reallocate(s, nbytes);
}

void set_storage_nbytes(StorageImpl& s, size_t nbytes) {
  if (nbytes != s.nbytes) reallocate(s, nbytes);
}

Tensor empty(IntArrayRef sizes, ScalarType dtype, Device device) {
  auto impl = make_ref<TensorImpl>();
  size_t nbytes = contiguous_layout(sizes, element_size(dtype), impl->strides, impl->numel);
  check_device_available(device);
  impl->sizes = to_vec(sizes);
  impl->dtype = dtype;
  impl->contiguous = true;
  impl->storage = new_storage(nbytes, device);
  return Tensor(std::move(impl));
}

Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device) {
  EMBER_CHECK(sizes.size() == strides.size(), "empty_strided: mismatch in length of strides and shape");
  size_t nbytes = strided_nbytes(sizes, strides, 0, element_size(dtype));
  check_device_available(device);
  auto impl = make_ref<TensorImpl>();
  impl->sizes = to_vec(sizes);
  impl->strides = to_vec(strides);
  impl->dtype = dtype;
  impl->refresh();
  impl->storage = new_storage(nbytes, device);
  return Tensor(std::move(impl));
}

Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  auto impl = make_ref<TensorImpl>();
  TensorImpl* b = base.impl();
  impl->storage = b->storage;
  impl->sizes = to_vec(sizes);
  impl->strides = to_vec(strides);
  impl->offset = offset;
  impl->dtype = b->dtype;
  impl->track_version = b->track_version;
  impl->is_inference = b->is_inference;
  impl->base = b->base ? b->base : base.ref();
  // made in no_grad mode, or inheriting its input's restriction (PyTorch's CreationMeta)
  impl->creation_meta = !GradMode::is_enabled()           ? kViewNoGrad
                        : b->creation_meta == kViewNoGrad ? kViewOfNoGradView
                                                          : b->creation_meta;
  impl->refresh();
  if (b->conj) set_conj(impl.get(), true);  // a view of a conjugate view reads conjugated values too
  return Tensor(std::move(impl));
}

Tensor restride_result(Tensor t, IntArrayRef sizes, IntArrayRef strides) {
  TensorImpl* impl = t.impl();
  if (t.ref().use_count() != 1 || impl->base || impl->autograd || impl->pyobj)
    return make_view(t, sizes, strides, t.offset());
  impl->sizes = to_vec(sizes);
  impl->strides = to_vec(strides);
  impl->refresh();
  return t;
}

std::atomic<int64_t> g_conj_views{0};

void set_conj(TensorImpl* impl, bool on) {
  if (impl->conj == on) return;
  impl->conj = on;
  g_conj_views.fetch_add(on ? 1 : -1, std::memory_order_relaxed);
}

Tensor physical_alias(const Tensor& t) {
  Tensor v = make_view(t, t.sizes(), t.strides(), t.offset());
  set_conj(v.impl(), false);
  return v;
}

Tensor scalar_tensor(const Scalar& s, ScalarType dtype) {
  Tensor t = empty({}, dtype);
  EMBER_DISPATCH_EVERY_TYPE(dtype, "scalar_tensor", [&] { *t.data<scalar_t>() = s.to<scalar_t>(); });
  return t;
}

Tensor wrap_scalar(const Scalar& s) {
  ScalarType dt = s.is_float() ? ScalarType::Float64 : s.type();
  Tensor t = scalar_tensor(s, dt);
  t.impl()->wrapped_number = true;
  return t;
}

Scalar number_value(const Tensor& t) {
  Scalar s = t.item();
  return t.impl()->uint64_number ? Scalar::from_uint64(static_cast<uint64_t>(s.int_bits())) : s;
}

Tensor wrap_number(const Scalar& s, const Tensor* const* beside, int n) {
  if (!s.is_uint64()) return wrap_scalar(s);
  bool floating = false;
  for (int j = 0; j < n; ++j) floating |= is_floating(beside[j]->dtype());
  if (floating) return wrap_scalar(Scalar(s.to_double()));
  Tensor t = wrap_scalar(Scalar(s.int_bits()));
  t.impl()->uint64_number = true;
  return t;
}

}  // namespace ember
