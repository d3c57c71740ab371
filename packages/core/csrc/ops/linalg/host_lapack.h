// The LAPACK-backed ops on a GPU (cuda_support.yaml's `host` entries): LAPACK runs on the host,
// so an op given device tensors copies them to the CPU, runs its CPU body there and copies the
// results (pivots and info included) back to the device -- synchronizing, as PyTorch's CUDA
// linalg.eig, which also runs on the host, does. Each op opens with
//   if (host_lapack::on_device(A)) return host_lapack::back(op(host_lapack::host(A)), A.device());
#pragma once
#include <tuple>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "ops/core/internal.h"

namespace ember::host_lapack {

inline bool on_device(const Tensor& t) { return t.defined() && t.device().is_cuda(); }

inline Tensor host(const Tensor& t) { return on_device(t) ? to_device(t, cpu_device()) : t; }

inline Tensor back(const Tensor& t, Device d) { return t.defined() ? to_device(t, d) : t; }
inline TensorList back(const TensorList& ts, Device d) {
  TensorList r;
  r.reserve(ts.size());
  for (const Tensor& t : ts) r.push_back(back(t, d));
  return r;
}
template <class... Ts>
std::tuple<Ts...> back(const std::tuple<Ts...>& ts, Device d) {
  return std::apply([&](const auto&... t) { return std::tuple<Ts...>(back(t, d)...); }, ts);
}

}  // namespace ember::host_lapack
