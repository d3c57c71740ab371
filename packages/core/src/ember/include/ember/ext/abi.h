/* The C ABI between ember-core (_C) and C++ extensions: one table of plain C function
 * pointers, published by _C as the capsule `ember._C._cpp_api`.
 *
 * Why a capsule and not linking against _C: the core's C++ symbols stay hidden (the whole
 * core is not an exported API), extensions need no -l flag nor rpath, and the only contract
 * is this struct. Rules that keep a built extension working across core releases:
 *   - entries are only ever APPENDED (a new entry bumps EMBER_EXT_ABI_MINOR);
 *   - removing or changing an entry bumps EMBER_EXT_ABI_MAJOR;
 *   - op ids in the enums below are append-only for the same reason.
 * An extension built against major M, minor m loads on a core with major M and minor >= m;
 * anything else is refused at import with both versions in the message.
 * All entries expect the caller to hold the GIL or be a thread Python knows about; on
 * failure they return NULL (or -1) with a Python exception set. */
#ifndef EMBER_EXT_ABI_H
#define EMBER_EXT_ABI_H
#include <stdint.h>

#ifndef EMBER_EXT_ABI_MAJOR
#define EMBER_EXT_ABI_MAJOR 1
#endif
#ifndef EMBER_EXT_ABI_MINOR
#define EMBER_EXT_ABI_MINOR 0
#endif
#define EMBER_EXT_CAPSULE_NAME "ember._C._cpp_api"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _object PyObject;

/* dtype codes are PyTorch's c10::ScalarType numbers, so user code comparing them works. */
enum EmberExtDtype {
  EMBER_EXT_UINT8 = 0, EMBER_EXT_INT8 = 1, EMBER_EXT_INT16 = 2, EMBER_EXT_INT32 = 3,
  EMBER_EXT_INT64 = 4, EMBER_EXT_FLOAT16 = 5, EMBER_EXT_FLOAT32 = 6, EMBER_EXT_FLOAT64 = 7,
  EMBER_EXT_BOOL = 11, EMBER_EXT_BFLOAT16 = 15, EMBER_EXT_UNDEFINED = -1
};

typedef struct EmberExtMeta {
  int64_t ndim;
  const int64_t* sizes;   /* valid while the tensor lives and is not resized in place */
  const int64_t* strides;
  int64_t numel;
  int64_t storage_offset;
  void* data;             /* first element (offset applied) */
  int32_t dtype;          /* EmberExtDtype */
  int32_t device_type;    /* 0 cpu, 1 cuda */
  int32_t device_index;   /* -1: none */
  int32_t is_contiguous;
  int32_t requires_grad;
  int32_t reserved;
} EmberExtMeta;

typedef struct EmberExtScalar {
  int32_t kind; /* 0 float, 1 int, 2 bool */
  double f;
  int64_t i;
} EmberExtScalar;

enum EmberExtUnary {
  EMBER_U_SIN, EMBER_U_COS, EMBER_U_TAN, EMBER_U_EXP, EMBER_U_LOG, EMBER_U_TANH, EMBER_U_SIGMOID,
  EMBER_U_RELU, EMBER_U_NEG, EMBER_U_ABS, EMBER_U_SQRT, EMBER_U_RSQRT, EMBER_U_SQUARE,
  EMBER_U_FLOOR, EMBER_U_SIGN, EMBER_U_CLONE, EMBER_U_CONTIGUOUS, EMBER_U_T, EMBER_U_SUM,
  EMBER_U_MEAN, EMBER_U_MAX, EMBER_U_MIN, EMBER_U_ZERO_, EMBER_U_DETACH
};
enum EmberExtBinary {
  EMBER_B_ADD, EMBER_B_SUB, EMBER_B_MUL, EMBER_B_DIV, EMBER_B_MM, EMBER_B_MATMUL, EMBER_B_BMM,
  EMBER_B_POW, EMBER_B_MAXIMUM, EMBER_B_MINIMUM, EMBER_B_ADD_, EMBER_B_SUB_, EMBER_B_MUL_,
  EMBER_B_DIV_, EMBER_B_COPY_, EMBER_B_EQ, EMBER_B_NE, EMBER_B_LT, EMBER_B_LE, EMBER_B_GT,
  EMBER_B_GE
};
enum EmberExtInts {
  EMBER_I_VIEW, EMBER_I_RESHAPE, EMBER_I_PERMUTE, EMBER_I_EXPAND, EMBER_I_SUM_DIM,
  EMBER_I_MEAN_DIM, EMBER_I_TRANSPOSE, EMBER_I_NARROW, EMBER_I_SELECT, EMBER_I_UNSQUEEZE,
  EMBER_I_SQUEEZE, EMBER_I_FLATTEN, EMBER_I_SOFTMAX, EMBER_I_LOG_SOFTMAX, EMBER_I_REPEAT
};
enum EmberExtList { EMBER_L_CAT, EMBER_L_STACK };

typedef struct EmberExtApi {
  uint32_t abi_major;
  uint32_t abi_minor;
  uint32_t struct_size;       /* sizeof(EmberExtApi) in the core */
  const char* core_version;   /* reserved (extensions read ember.__version__) */
  void (*retain)(void* t);
  void (*release)(void* t);
  void (*meta)(void* t, EmberExtMeta* out);
  /* A new reference to the TensorImpl behind an ember.Tensor (same storage), or NULL with no
   * error set when `o` is not a tensor. */
  void* (*from_py)(PyObject* o);
  PyObject* (*to_py)(void* t); /* new reference; the tensor's existing Python object if any */
  void* (*empty)(const int64_t* sizes, int64_t ndim, int32_t dtype, int32_t device_type,
                 int32_t device_index);
  void* (*unary)(int32_t op, void* a);
  void* (*binary)(int32_t op, void* a, void* b, EmberExtScalar alpha);
  /* op on (a, scalar) or, with reverse, (scalar, a): the scalar is wrapped as Python does. */
  void* (*scalar_op)(int32_t op, void* a, EmberExtScalar s, int32_t reverse);
  void* (*ints_op)(int32_t op, void* a, const int64_t* ints, int64_t n, int64_t flag);
  void* (*list_op)(int32_t op, void* const* ts, int64_t n, int64_t dim);
  void* (*to_dtype)(void* a, int32_t dtype, int32_t copy);
  void* (*fill_)(void* a, EmberExtScalar s);
  int (*item)(void* a, EmberExtScalar* out);
  int (*set_requires_grad)(void* a, int32_t on);
  void* (*grad)(void* a); /* NULL with no error set when there is no grad */
  int (*grad_enabled)(void);
  void (*set_grad_enabled)(int32_t on);
} EmberExtApi;

#ifdef __cplusplus
}
#endif
#endif
