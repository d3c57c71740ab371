// grid_sample on the GPU: a thread per output point running the CPU's per-point work
// (kernels/grid_sample_points.h: the same taps, rules and sums over the channels); the input
// gradient adds atomically (the order of a position's terms is the device's, as in PyTorch's CUDA
// kernel; half types add in a float buffer rounded once), the grid gradient is each point's own.
#include <type_traits>

#include "kernels/cuda/device_scratch.h"
#include "kernels/cuda/grid_sample_kernels.h"
#include "kernels/cuda/index_device.cuh"
#include "kernels/grid_sample_points.h"

namespace ember::cuda {

namespace {

using idx::kBlock;

template <class G>
struct AtomicAdd {
  template <class A>
  __device__ static void apply(G* p, A v) {
    idx::atomic_add(p, static_cast<G>(v));
  }
};

template <class T, class G>
using Ctx = pool::grid::Ctx<T, G, AtomicAdd<G>>;

template <class T, class G>
__global__ void points_kernel(const Ctx<T, G> k, bool fwd) {
  const int64_t total = k.g.N * k.P;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    if (k.g.dims == 2) pool::grid::point2(k, i / k.P, i % k.P, fwd);
    else pool::grid::point3(k, i / k.P, i % k.P, fwd);
  }
}

template <class T, class G>
void launch(const Ctx<T, G>& k, bool fwd, const char* what) {
  points_kernel<T, G><<<grid_for(k.g.N * k.P), kBlock, 0, current_stream(-1)>>>(k, fwd);
  check_launch(what);
}

template <class T>
void run(const pool::GridSampleGeometry& g, const void* x, const void* grid, const void* gy, void* y, void* gx,
         void* ggrid, int device) {
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2], P = g.out[0] * g.out[1] * g.out[2];
  if (g.N * P == 0) return;
  const T* xs = static_cast<const T*>(x);
  const T* gs = static_cast<const T*>(grid);
  const T* gys = static_cast<const T*>(gy);
  if (y)
    return launch(Ctx<T, T>{g, xs, gs, nullptr, static_cast<T*>(y), nullptr, nullptr, in_plane, P}, true,
                  "grid_sample kernel");
  using A = opmath_t<T>;
  if constexpr (std::is_same_v<A, T>) {
    launch(Ctx<T, T>{g, xs, gs, gys, nullptr, static_cast<T*>(gx), static_cast<T*>(ggrid), in_plane, P}, false,
           "grid_sample backward kernel");
  } else {
    const int64_t n = gx ? g.N * g.C * in_plane : 0;
    DeviceArray<float> acc(n, device);
    if (n) acc.zero();
    launch(Ctx<T, float>{g, xs, gs, gys, nullptr, n ? acc.get() : nullptr, static_cast<T*>(ggrid), in_plane, P}, false,
           "grid_sample backward kernel");
    if (n) {
      idx::round_into<T><<<grid_for(n), kBlock, 0, current_stream(-1)>>>(acc.get(), static_cast<T*>(gx), n);
      check_launch("grid_sample backward kernel");
    }
  }
}

}  // namespace

void grid_sample(ScalarType dt, const char* name, const pool::GridSampleGeometry& g, const void* x, const void* grid,
                 void* y) {
  const int device = device_of(y, name);
  const LaunchDevice on(device);
  EMBER_DISPATCH_FLOAT(dt, name, [&] { run<scalar_t>(g, x, grid, nullptr, y, nullptr, nullptr, device); });
}

void grid_sample_backward(ScalarType dt, const char* name, const pool::GridSampleGeometry& g, const void* gy,
                          const void* x, const void* grid, void* gx, void* ggrid) {
  const int device = device_of(gy, name);
  const LaunchDevice on(device);
  EMBER_DISPATCH_FLOAT(dt, name, [&] { run<scalar_t>(g, x, grid, gy, nullptr, gx, ggrid, device); });
}

}  // namespace ember::cuda
