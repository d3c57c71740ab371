// Device code on the emulator: kernels are plain C++ functions that every emulated thread calls
// in turn, each on its own fiber; __syncthreads and the warp collectives switch fibers
// (src/scheduler.cpp). All of a kernel runs on one host thread, one block after another, so the
// atomics are plain read-modify-writes and __shared__ variables are function statics.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

#include "cuda_runtime_api.h"

struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
using uint3 = dim3;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __align__(n) alignas(n)
#define __shared__ static

namespace emu {

struct Builtins {
  dim3 thread_idx, block_idx, block_dim, grid_dim;
};
extern EMU_EXPORT Builtins builtins;

EMU_EXPORT void syncthreads();
EMU_EXPORT int syncthreads_op(int op, int predicate);  // 0: count, 1: and, 2: or
EMU_EXPORT void* dynamic_shared();
// Fills a static __shared__ variable with garbage the first time the running block reaches it.
EMU_EXPORT void fresh_shared(void* p, size_t bytes);
// A warp collective: every live lane of the warp calls it with the same kind; lanes wait for the rest.
enum WarpKind { kSyncWarp, kBallot, kShflIdx, kShflUp, kShflDown, kShflXor };
EMU_EXPORT uint64_t warp_collective(int kind, unsigned mask, uint64_t value, int arg, int width);

struct Config {
  dim3 grid, block;
  size_t shared;
  cudaStream_t stream;
  Config(dim3 g, dim3 b, size_t s = 0, cudaStream_t st = nullptr) : grid(g), block(b), shared(s), stream(st) {}
};

struct Kernel {
  virtual ~Kernel() = default;
  virtual void run_thread() = 0;  // the kernel body, for the current emulated thread
};
// Checks the configuration (the launch's error is cudaGetLastError's) and queues the grid.
EMU_EXPORT void launch_kernel(const Config& c, const char* name, Kernel* k);

template <class F, class Args>
struct KernelCall final : Kernel {
  KernelCall(F f_, Args a) : f(f_), args(std::move(a)) {}
  void run_thread() override { std::apply(f, args); }  // each thread's parameters are its own copies
  F f;
  Args args;
};

// `kernel<<<cfg>>>(args)` becomes
// `::emu::launch(::emu::Config(cfg), "kernel", [](auto&... a) { kernel(a...); }, args)`:
// the arguments are copied at the launch, as CUDA copies kernel parameters.
template <class F, class... A>
void launch(const Config& c, const char* name, F f, A&&... a) {
  using Args = std::tuple<std::decay_t<A>...>;
  launch_kernel(c, name, new KernelCall<F, Args>(f, Args(std::forward<A>(a)...)));
}

}  // namespace emu

#define threadIdx (::emu::builtins.thread_idx)
#define blockIdx (::emu::builtins.block_idx)
#define blockDim (::emu::builtins.block_dim)
#define gridDim (::emu::builtins.grid_dim)
constexpr int warpSize = 32;
// CUDA's math library puts these in the global namespace
using std::isfinite;
using std::isinf;
using std::isnan;
using std::signbit;

inline void __syncthreads() { emu::syncthreads(); }
inline int __syncthreads_count(int p) { return emu::syncthreads_op(0, p); }
inline int __syncthreads_and(int p) { return emu::syncthreads_op(1, p); }
inline int __syncthreads_or(int p) { return emu::syncthreads_op(2, p); }
inline void __syncwarp(unsigned mask = 0xffffffffu) { emu::warp_collective(emu::kSyncWarp, mask, 0, 0, 32); }
inline unsigned __ballot_sync(unsigned mask, int p) {
  return static_cast<unsigned>(emu::warp_collective(emu::kBallot, mask, p != 0, 0, 32));
}
inline int __any_sync(unsigned mask, int p) { return __ballot_sync(mask, p) != 0; }
inline int __all_sync(unsigned mask, int p) { return __ballot_sync(mask, p) == __ballot_sync(mask, 1); }

namespace emu {
template <class T>
T shuffle(int kind, unsigned mask, T v, int arg, int width) {
  static_assert(sizeof(T) <= 8, "a shuffle moves at most 8 bytes");
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  bits = warp_collective(kind, mask, bits, arg, width);
  std::memcpy(&v, &bits, sizeof(T));
  return v;
}
}  // namespace emu
template <class T>
T __shfl_sync(unsigned mask, T v, int lane, int width = 32) {
  return emu::shuffle(emu::kShflIdx, mask, v, lane, width);
}
template <class T>
T __shfl_up_sync(unsigned mask, T v, unsigned d, int width = 32) {
  return emu::shuffle(emu::kShflUp, mask, v, int(d), width);
}
template <class T>
T __shfl_down_sync(unsigned mask, T v, unsigned d, int width = 32) {
  return emu::shuffle(emu::kShflDown, mask, v, int(d), width);
}
template <class T>
T __shfl_xor_sync(unsigned mask, T v, int m, int width = 32) {
  return emu::shuffle(emu::kShflXor, mask, v, m, width);
}

// one host thread runs the grid: every write is seen by the next read, on the host too
inline void __threadfence() {}
inline void __threadfence_system() {}

// ---- atomics: one host thread runs the whole grid, so a plain read-modify-write is atomic ----
template <class T, class U>
T atomicAdd(T* p, U v) {
  T old = *p;
  *p = static_cast<T>(old + v);
  return old;
}
template <class T, class U>
T atomicSub(T* p, U v) {
  T old = *p;
  *p = static_cast<T>(old - v);
  return old;
}
template <class T, class U>
T atomicExch(T* p, U v) {
  T old = *p;
  *p = static_cast<T>(v);
  return old;
}
template <class T, class U>
T atomicMin(T* p, U v) {
  T old = *p;
  if (static_cast<T>(v) < old) *p = static_cast<T>(v);
  return old;
}
template <class T, class U>
T atomicMax(T* p, U v) {
  T old = *p;
  if (old < static_cast<T>(v)) *p = static_cast<T>(v);
  return old;
}
template <class T, class U>
T atomicAnd(T* p, U v) {
  T old = *p;
  *p = static_cast<T>(old & v);
  return old;
}
template <class T, class U>
T atomicOr(T* p, U v) {
  T old = *p;
  *p = static_cast<T>(old | v);
  return old;
}
template <class T, class U, class V>
T atomicCAS(T* p, U compare, V v) {
  T old = *p;
  if (old == static_cast<T>(compare)) *p = static_cast<T>(v);
  return old;
}

// ---- intrinsics: the host's IEEE arithmetic rounds to nearest already ----
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __ddiv_rn(double a, double b) { return a / b; }
inline float __fdividef(float a, float b) { return a / b; }
inline float __expf(float a) { return std::exp(a); }
inline float __logf(float a) { return std::log(a); }
inline float __sinf(float a) { return std::sin(a); }
inline float __cosf(float a) { return std::cos(a); }
inline float __powf(float a, float b) { return std::pow(a, b); }
inline float rsqrtf(float a) { return 1.0f / std::sqrt(a); }
inline double rsqrt(double a) { return 1.0 / std::sqrt(a); }
inline int __popc(unsigned v) { return __builtin_popcount(v); }
inline int __popcll(unsigned long long v) { return __builtin_popcountll(v); }
inline int __clz(int v) { return v == 0 ? 32 : __builtin_clz(static_cast<unsigned>(v)); }
inline int __clzll(long long v) { return v == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(v)); }
inline int __ffs(int v) { return __builtin_ffs(v); }
inline int __ffsll(long long v) { return __builtin_ffsll(v); }
inline unsigned __umulhi(unsigned a, unsigned b) { return static_cast<unsigned>((uint64_t(a) * b) >> 32); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
template <class T>
T __ldg(const T* p) {
  return *p;
}
inline float __int_as_float(int v) {
  float f;
  std::memcpy(&f, &v, 4);
  return f;
}
inline int __float_as_int(float f) {
  int v;
  std::memcpy(&v, &f, 4);
  return v;
}
inline float __uint_as_float(unsigned v) {
  float f;
  std::memcpy(&f, &v, 4);
  return f;
}
inline unsigned __float_as_uint(float f) {
  unsigned v;
  std::memcpy(&v, &f, 4);
  return v;
}
inline double __longlong_as_double(long long v) {
  double d;
  std::memcpy(&d, &v, 8);
  return d;
}
inline long long __double_as_longlong(double d) {
  long long v;
  std::memcpy(&v, &d, 8);
  return v;
}
[[noreturn]] inline void __trap() { __builtin_trap(); }
