// A Backend whose every entry is one generic function: one that raises (the CUDA stub of a build
// without EMBER_CUDA fills its whole table so, "Torch not compiled with CUDA enabled", and the CUDA
// backend starts from it, "... not implemented for 'CUDA'", before setting the kernels it has), or
// one that does nothing (the meta device's table, kernels/meta/backend_meta.cpp).
#pragma once
#include <type_traits>

#include "kernels/backend.h"

namespace ember::backend_fill {

// Converts to any function pointer type: an entry that calls Raise() whatever its signature.
template <void (*Raise)()>
struct Raising {
  template <class R, class... Args>
  static R entry(Args...) {
    Raise();
    __builtin_unreachable();
  }
  template <class R, class... Args>
  using Fn = R (*)(Args...);
  template <class R, class... Args>
  operator Fn<R, Args...>() const {  // NOLINT(google-explicit-constructor): that is the point
    return &entry<R, Args...>;
  }
};

// Converts to any function pointer type: an entry that does nothing and returns R{} (false, 0).
struct DoingNothing {
  template <class R, class... Args>
  static R entry(Args...) {
    if constexpr (!std::is_void_v<R>) return R{};
  }
  template <class R, class... Args>
  using Fn = R (*)(Args...);
  template <class R, class... Args>
  operator Fn<R, Args...>() const {  // NOLINT(google-explicit-constructor): that is the point
    return &entry<R, Args...>;
  }
};

template <class T, class F>
LapackKernels<T> lapack(const F& f) {
  // one per LapackKernels entry (12 real-or-geev, 10 complex): one left out would be a null pointer
  return {f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f};
}
static_assert(sizeof(LapackKernels<float>) == 22 * sizeof(void (*)()),
              "a LapackKernels entry was added: add an f above");

template <class T, class F>
MatrixPasses<T> matrix(const F& f) {
  return {f, f, f, f, f};
}

// Every entry of the table set to f (a Raising or DoingNothing).
template <class F>
Backend filled_backend(DeviceType device, const F& f) {
  Backend b{};
  b.device = device;
  fill_pointwise_with(b.pointwise, f);
  b.copy = {f, f};
  b.reduce = {f, f, f};
  b.gemm = {f, f, f, f, f, f, f, f};
  b.conv = {f, f, f};
  b.pool = {f, f, f, f, f, f, f, f, f};
  b.index = {f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f};
  b.shape = {f, f, f, f, f};
  b.linalg = {lapack<float>(f), lapack<double>(f), f, f};
  b.softmax = {f, f};
  b.attention = {f, f, f, f};
  b.random = {f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f};
  b.scan = {f, f};
  b.upsample = {f};
  b.norm = {f, f, f, f, f, f, f};
  b.sort = {f, f, f};
  b.rnn = {f, f, f, f};
  b.optim = {f, f};
  b.embedding = {f, f, f};
  b.loss = {f, f};
  b.fill = {f, f, f, f};
  b.matrix = {matrix<float>(f), matrix<double>(f), f, f};
  b.complex = {f, f, f, f, f, f, f};
  return b;
}

template <void (*Raise)()>
Backend raising_backend(DeviceType device) {
  return filled_backend(device, Raising<Raise>{});
}

}  // namespace ember::backend_fill
