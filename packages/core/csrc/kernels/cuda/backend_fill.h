// A Backend whose every entry calls one function that raises: the CUDA stub of a build without
// EMBER_CUDA fills its whole table so ("Torch not compiled with CUDA enabled"), and the CUDA
// backend starts from it ("... not implemented for 'CUDA'") before setting the kernels it has.
#pragma once
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

template <class T, void (*Raise)()>
LapackKernels<T> lapack() {
  const Raising<Raise> f;
  // one per LapackKernels entry (12 real-or-geev, 10 complex): one left out would be a null pointer
  return {f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f};
}
static_assert(sizeof(LapackKernels<float>) == 22 * sizeof(void (*)()),
              "a LapackKernels entry was added: add an f above");

template <class T, void (*Raise)()>
MatrixPasses<T> matrix() {
  const Raising<Raise> f;
  return {f, f, f, f, f};
}

template <void (*Raise)()>
Backend raising_backend(DeviceType device) {
  const Raising<Raise> f;
  Backend b{};
  b.device = device;
  fill_pointwise_with(b.pointwise, f);
  b.copy = {f, f};
  b.reduce = {f, f, f};
  b.gemm = {f, f, f, f, f, f, f, f};
  b.conv = {f, f, f};
  b.pool = {f, f, f, f, f, f, f, f, f};
  b.index = {f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f};
  b.shape = {f, f, f, f};
  b.linalg = {lapack<float, Raise>(), lapack<double, Raise>(), f, f};
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
  b.matrix = {matrix<float, Raise>(), matrix<double, Raise>(), f, f};
  b.complex = {f, f, f, f, f, f, f};
  return b;
}

}  // namespace ember::backend_fill
