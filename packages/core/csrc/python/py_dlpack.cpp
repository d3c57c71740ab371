// DLPack interop: ember tensors out as DLPack capsules, capsules from other
// libraries (NumPy, PyTorch, ...) in as ember tensors, zero-copy both ways.
// Python decides the protocol policy (ember/_tensor_dlpack.py); this file only
// builds and consumes the C structs.
#include <cstring>
#include <memory>

#include "dlpack.h"
#include "py_tensor.h"

namespace ember::python {
namespace {

const char* const kLegacyName = "dltensor";
const char* const kUsedLegacyName = "used_dltensor";
const char* const kVersionedName = "dltensor_versioned";
const char* const kUsedVersionedName = "used_dltensor_versioned";

DLDataType to_dl_dtype(ScalarType t) {
  const uint8_t bits = static_cast<uint8_t>(element_size(t) * 8);
  switch (t) {
    case ScalarType::Bool:
      return {kDLBool, 8, 1};
    case ScalarType::UInt8:
    case ScalarType::UInt16:
    case ScalarType::UInt32:
    case ScalarType::UInt64:
      return {kDLUInt, bits, 1};
    case ScalarType::Int8:
    case ScalarType::Int16:
    case ScalarType::Int32:
    case ScalarType::Int64:
      return {kDLInt, bits, 1};
    case ScalarType::Float16:
    case ScalarType::Float32:
    case ScalarType::Float64:
      return {kDLFloat, bits, 1};
    case ScalarType::BFloat16:
      return {kDLBfloat, 16, 1};
    case ScalarType::ComplexHalf:
    case ScalarType::ComplexFloat:
    case ScalarType::ComplexDouble:
      return {kDLComplex, bits, 1};
    default:
      fail(ErrorKind::Type, "to_dlpack: unsupported dtype ", dtype_name(t));
  }
}

ScalarType from_dl_dtype(DLDataType d) {
  EMBER_CHECK(d.lanes == 1, "from_dlpack: vector dtypes (lanes=", d.lanes, ") are not supported");
  switch (d.code) {
    case kDLBool:
      if (d.bits == 8) return ScalarType::Bool;
      break;
    case kDLUInt:
      switch (d.bits) {
        case 8:
          return ScalarType::UInt8;
        case 16:
          return ScalarType::UInt16;
        case 32:
          return ScalarType::UInt32;
        case 64:
          return ScalarType::UInt64;
      }
      break;
    case kDLInt:
      switch (d.bits) {
        case 8:
          return ScalarType::Int8;
        case 16:
          return ScalarType::Int16;
        case 32:
          return ScalarType::Int32;
        case 64:
          return ScalarType::Int64;
      }
      break;
    case kDLFloat:
      switch (d.bits) {
        case 16:
          return ScalarType::Float16;
        case 32:
          return ScalarType::Float32;
        case 64:
          return ScalarType::Float64;
      }
      break;
    case kDLBfloat:
      if (d.bits == 16) return ScalarType::BFloat16;
      break;
    case kDLComplex:
      if (d.bits == 32) return ScalarType::ComplexHalf;
      if (d.bits == 64) return ScalarType::ComplexFloat;
      if (d.bits == 128) return ScalarType::ComplexDouble;
      break;
  }
  static const char* const names[] = {"kDLInt",    "kDLUInt",    "kDLFloat", "kDLOpaqueHandle",
                                      "kDLBfloat", "kDLComplex", "kDLBool"};
  fail(ErrorKind::Runtime,
       "Unsupported dtype in DLTensor: ", d.code < 7 ? names[d.code] : "type code " + std::to_string(d.code), " with ",
       int(d.bits),
       " bits (ember supports bool, uint8/16/32/64, int8/16/32/64, float16/32/64, bfloat16 and complex64/128)");
}

// Everything an exported DLTensor points at: the storage (kept alive until the
// consumer calls the deleter) and the shape/stride arrays.
struct ExportCtx {
  Ref<StorageImpl> storage;
  std::unique_ptr<int64_t[]> dims;  // shape then strides; never null, even for 0-d
  DLManagedTensor legacy{};
  DLManagedTensorVersioned versioned{};
};

// Deleters may run on any thread, with or without the GIL: dropping a storage
// reference is plain C++ (a storage over Python memory takes the GIL itself).
void delete_legacy(DLManagedTensor* m) { delete static_cast<ExportCtx*>(m->manager_ctx); }
void delete_versioned(DLManagedTensorVersioned* m) { delete static_cast<ExportCtx*>(m->manager_ctx); }

// A capsule that was never consumed still owns its tensor.
void legacy_capsule_destructor(PyObject* cap) {
  if (!PyCapsule_IsValid(cap, kLegacyName)) return;  // consumed: renamed to used_dltensor
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, kLegacyName));
  if (m && m->deleter) m->deleter(m);
}
void versioned_capsule_destructor(PyObject* cap) {
  if (!PyCapsule_IsValid(cap, kVersionedName)) return;
  auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, kVersionedName));
  if (m && m->deleter) m->deleter(m);
}

DLDevice to_dl_device(Device d) {
  if (d.is_cpu()) return {kDLCPU, 0};
  return {kDLCUDA, d.index < 0 ? 0 : d.index};
}

// _to_dlpack(t, versioned, copied) -> PyCapsule sharing t's memory.
PyObject* to_dlpack(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  EMBER_PY_TRY
  EMBER_CHECK_TYPE(nargs == 3, "_to_dlpack expects (tensor, versioned, copied)");
  EMBER_CHECK_TYPE(is_tensor(args[0]), "to_dlpack: expected a Tensor, got ", Py_TYPE(args[0])->tp_name);
  const Tensor& t = unpack(args[0]);
  const bool versioned = PyObject_IsTrue(args[1]);
  const bool copied = PyObject_IsTrue(args[2]);
  const int64_t ndim = t.dim();

  auto ctx = std::make_unique<ExportCtx>();
  ctx->storage = t.impl()->storage;
  ctx->dims.reset(new int64_t[2 * ndim + 1]);
  for (int64_t i = 0; i < ndim; ++i) {
    ctx->dims[i] = t.sizes()[i];
    ctx->dims[ndim + i] = t.strides()[i];
  }
  DLTensor& dl = versioned ? ctx->versioned.dl_tensor : ctx->legacy.dl_tensor;
  dl.data = t.raw();
  dl.device = to_dl_device(t.device());
  dl.ndim = static_cast<int32_t>(ndim);
  dl.dtype = to_dl_dtype(t.dtype());
  dl.shape = ctx->dims.get();
  dl.strides = ctx->dims.get() + ndim;
  dl.byte_offset = 0;

  PyObject* cap;
  if (versioned) {
    ctx->versioned.version = {EMBER_DLPACK_MAJOR, EMBER_DLPACK_MINOR};
    ctx->versioned.manager_ctx = ctx.get();
    ctx->versioned.deleter = delete_versioned;
    ctx->versioned.flags = copied ? DLPACK_FLAG_BITMASK_IS_COPIED : 0;
    cap = PyCapsule_New(&ctx->versioned, kVersionedName, versioned_capsule_destructor);
  } else {
    ctx->legacy.manager_ctx = ctx.get();
    ctx->legacy.deleter = delete_legacy;
    cap = PyCapsule_New(&ctx->legacy, kLegacyName, legacy_capsule_destructor);
  }
  if (!cap) return nullptr;  // ctx still owned here: freed on return
  ctx.release();             // now owned by the capsule (and later its consumer)
  return cap;
  EMBER_PY_CATCH
}

// Storage deleter for imported memory: hand it back to the producer.
struct ImportCtx {
  void* managed;
  bool versioned;
};
void release_import(void*, void* p, size_t) {
  auto* c = static_cast<ImportCtx*>(p);
  if (c->versioned) {
    auto* m = static_cast<DLManagedTensorVersioned*>(c->managed);
    if (m->deleter) m->deleter(m);
  } else {
    auto* m = static_cast<DLManagedTensor*>(c->managed);
    if (m->deleter) m->deleter(m);
  }
  delete c;
}

Device from_dl_device(DLDevice d) {
  switch (d.device_type) {
    case kDLCPU:
    case kDLCUDAHost:  // pinned host memory is ordinary CPU memory to us
    case kDLROCMHost:
      return cpu_device();
    case kDLCUDA:
    case kDLCUDAManaged: {
      EMBER_CHECK(d.device_id >= 0 && d.device_id < 128, "from_dlpack: invalid CUDA device id ", d.device_id);
      Device dev{DeviceType::CUDA, static_cast<int8_t>(d.device_id)};
      check_device_available(dev);  // raises the no-CUDA error on CPU-only builds
      return dev;
    }
    default:
      fail(ErrorKind::Runtime, "from_dlpack: unsupported DLPack device type ", int(d.device_type),
           " (ember supports CPU", ", CUDA host and CUDA memory)");
  }
}

// _from_dlpack(capsule) -> Tensor over the capsule's memory; renames the capsule
// to "used_dltensor[_versioned]" so its producer-side destructor does nothing.
PyObject* from_dlpack(PyObject*, PyObject* cap) {
  EMBER_PY_TRY
  bool versioned;
  if (PyCapsule_IsValid(cap, kVersionedName)) {
    versioned = true;
  } else if (PyCapsule_IsValid(cap, kLegacyName)) {
    versioned = false;
  } else {
    fail(ErrorKind::Runtime,
         "from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed only "
         "once, so you might have already constructed a tensor from it once.");
  }
  void* managed = PyCapsule_GetPointer(cap, versioned ? kVersionedName : kLegacyName);
  if (!managed) throw python_error();
  DLTensor* dl;
  void* manager_ctx;
  bool ours;
  if (versioned) {
    auto* m = static_cast<DLManagedTensorVersioned*>(managed);
    EMBER_CHECK(m->version.major == EMBER_DLPACK_MAJOR, "from_dlpack: unsupported DLPack version ", m->version.major,
                ".", m->version.minor, " (ember supports 1.x)");
    dl = &m->dl_tensor;
    manager_ctx = m->manager_ctx;
    ours = m->deleter == delete_versioned;
  } else {
    auto* m = static_cast<DLManagedTensor*>(managed);
    dl = &m->dl_tensor;
    manager_ctx = m->manager_ctx;
    ours = m->deleter == delete_legacy;
  }

  // Validate everything before taking ownership: on error the capsule keeps it.
  EMBER_CHECK(dl->ndim >= 0 && dl->ndim <= 64, "from_dlpack: invalid ndim ", dl->ndim);
  EMBER_CHECK(dl->ndim == 0 || dl->shape, "from_dlpack: DLTensor has a null shape");
  const ScalarType dtype = from_dl_dtype(dl->dtype);
  const Device device = from_dl_device(dl->device);
  const int64_t item = static_cast<int64_t>(element_size(dtype));
  DimVector sizes, strides;
  for (int32_t i = 0; i < dl->ndim; ++i) {
    EMBER_CHECK(dl->shape[i] >= 0, "from_dlpack: negative size ", dl->shape[i], " in dimension ", i);
    sizes.push_back(dl->shape[i]);
  }
  if (dl->strides) {
    for (int32_t i = 0; i < dl->ndim; ++i) strides.push_back(dl->strides[i]);
  } else {
    strides = contiguous_strides(sizes);
  }
  // Bytes spanned from the first element to one past the last (0 when empty).
  bool empty = false;
  int64_t last = 0;
  for (int32_t i = 0; i < dl->ndim; ++i) {
    if (sizes[i] == 0) empty = true;
    if (sizes[i] > 1) {
      EMBER_CHECK(strides[i] >= 0, "from_dlpack: negative strides are not supported (stride ", strides[i],
                  " in dimension ", i, "); make a copy with positive strides first");
      int64_t span;
      EMBER_CHECK(
          !__builtin_mul_overflow(sizes[i] - 1, strides[i], &span) && !__builtin_add_overflow(last, span, &last),
          "from_dlpack: tensor extent overflows");
    } else if (strides[i] < 0) {
      strides[i] = 0;  // a size-0/1 dim's stride is never used; keep it non-negative
    }
  }
  int64_t nbytes = 0;
  EMBER_CHECK(empty || !__builtin_mul_overflow(last + 1, item, &nbytes), "from_dlpack: tensor extent overflows");
  char* first = static_cast<char*>(dl->data) + dl->byte_offset;

  auto impl = make_ref<TensorImpl>();
  impl->sizes = sizes;
  impl->strides = strides;
  impl->dtype = dtype;
  if (ours) {
    // One of ours coming back: reuse the storage itself, so the tensors share
    // its identity and version counter, not just its bytes.
    auto* ctx = static_cast<ExportCtx*>(manager_ctx);
    impl->storage = ctx->storage;
    const char* base = static_cast<const char*>(ctx->storage->data);
    impl->offset = base ? (first - base) / item : 0;
  } else {
    auto st = make_ref<StorageImpl>();
    st->data = first;
    st->nbytes = static_cast<size_t>(nbytes);
    st->device = device;
    st->resizable = false;
    impl->storage = st;
  }
  impl->refresh();
  // Take ownership: from here the storage (or, for ours, nobody) releases it.
  if (PyCapsule_SetName(cap, versioned ? kUsedVersionedName : kUsedLegacyName) != 0) throw python_error();
  if (ours) {
    if (versioned)
      static_cast<DLManagedTensorVersioned*>(managed)->deleter(static_cast<DLManagedTensorVersioned*>(managed));
    else static_cast<DLManagedTensor*>(managed)->deleter(static_cast<DLManagedTensor*>(managed));
  } else {
    StorageImpl& st = *impl->storage;
    st.ctx = new ImportCtx{managed, versioned};
    st.deleter = release_import;
  }
  return wrap(Tensor(std::move(impl)));
  EMBER_PY_CATCH
}

PyMethodDef dlpack_functions[] = {{"_to_dlpack", (PyCFunction)(void (*)())to_dlpack, METH_FASTCALL, nullptr},
                                  {"_from_dlpack", from_dlpack, METH_O, nullptr},
                                  {nullptr, nullptr, 0, nullptr}};

}  // namespace

void init_dlpack(PyObject* module) {
  if (PyModule_AddFunctions(module, dlpack_functions) < 0) throw python_error();
}

}  // namespace ember::python
