// Upsampling on the GPU (nearest, nearest-exact, linear / bilinear / trilinear, bicubic): each
// dim's taps (input positions and weights) are built on the host by the CPU's rules
// (upsample::dim_taps) and uploaded once per call; the forward is a thread per output element
// summing its taps in op-math (D outermost, W innermost, as the CPU's nested sums), the backward a
// thread per output gradient adding each tap's share atomically (the order of a position's terms
// is the device's, as in PyTorch's CUDA kernels; half types add in a float buffer, as the CPU). aten's channels-last
// bilinear form is a CPU rounding detail: the GPU takes the plain weights.
#include <type_traits>
#include <vector>

#include "kernels/cuda/device_scratch.h"
#include "kernels/cuda/index_device.cuh"
#include "kernels/cuda/upsample_kernels.h"

namespace ember::cuda {

namespace {

using idx::atomic_add;
using idx::kBlock;
using idx::round_into;
using upsample::Taps;

// The three dims' taps on the device: dim d's positions at idx + off[d], weights at w + off[d].
template <class A>
struct TapArgs {
  int64_t in[3], out[3];
  int taps[3];
  int64_t off[3];
  const int64_t* idx;
  const A* w;
};

// f(position in the input plane, weight) for each tap of output o of a plane, D outermost and W
// innermost (the CPU's nested sums).
template <class A, class F>
__device__ __forceinline__ void each_tap(const TapArgs<A>& t, int64_t o, const F& f) {
  const int64_t ow = o % t.out[2], oh = o / t.out[2] % t.out[1], od = o / (t.out[1] * t.out[2]);
  for (int a = 0; a < t.taps[0]; ++a) {
    const int64_t ka = t.off[0] + od * t.taps[0] + a;
    for (int c = 0; c < t.taps[1]; ++c) {
      const int64_t kc = t.off[1] + oh * t.taps[1] + c;
      const int64_t row = (t.idx[ka] * t.in[1] + t.idx[kc]) * t.in[2];
      const A wac = t.w[ka] * t.w[kc];
      for (int e = 0; e < t.taps[2]; ++e) {
        const int64_t ke = t.off[2] + ow * t.taps[2] + e;
        f(row + t.idx[ke], wac * t.w[ke]);
      }
    }
  }
}

template <class D, class A>
__global__ void forward_kernel(const D* x, D* y, int64_t planes, const TapArgs<A> t) {
  const int64_t out_plane = t.out[0] * t.out[1] * t.out[2], in_plane = t.in[0] * t.in[1] * t.in[2];
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < planes * out_plane;
       i += int64_t(gridDim.x) * blockDim.x) {
    const D* xb = x + i / out_plane * in_plane;
    A sum = A(0);
    each_tap(t, i % out_plane, [&](int64_t pos, A w) { sum += w * static_cast<A>(xb[pos]); });
    y[i] = static_cast<D>(sum);
  }
}

// gx (G: D, or float for the half types) += each output gradient's share of its taps.
template <class G, class D, class A>
__global__ void backward_kernel(G* gx, const D* gy, int64_t planes, const TapArgs<A> t) {
  const int64_t out_plane = t.out[0] * t.out[1] * t.out[2], in_plane = t.in[0] * t.in[1] * t.in[2];
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < planes * out_plane;
       i += int64_t(gridDim.x) * blockDim.x) {
    G* xb = gx + i / out_plane * in_plane;
    const A g = static_cast<A>(gy[i]);
    each_tap(t, i % out_plane, [&](int64_t pos, A w) { atomic_add(xb + pos, static_cast<G>(w * g)); });
  }
}

template <class scalar_t>
void run(const upsample::Geometry& g, int64_t planes, char* x, char* y, bool backward, int device) {
  using A = opmath_t<scalar_t>;
  using D = idx::dev_t<scalar_t>;
  TapArgs<A> t{};
  std::vector<int64_t> idx;
  std::vector<A> w;
  for (int d = 0; d < 3; ++d) {
    const Taps<A> dt = upsample::dim_taps<scalar_t>(g, d, !backward);
    t.in[d] = g.in[d];
    t.out[d] = g.out[d];
    t.taps[d] = dt.taps;
    t.off[d] = static_cast<int64_t>(idx.size());
    idx.insert(idx.end(), dt.idx.begin(), dt.idx.end());
    w.insert(w.end(), dt.w.begin(), dt.w.end());
  }
  const Uploaded idx_d(idx.data(), idx.size() * sizeof(int64_t), device);
  const Uploaded w_d(w.data(), w.size() * sizeof(A), device);
  t.idx = idx_d.as<int64_t>();
  t.w = w_d.as<A>();
  const int64_t total = planes * g.out[0] * g.out[1] * g.out[2];
  const D* gy = reinterpret_cast<const D*>(y);
  if (!backward) {
    forward_kernel<D, A><<<grid_for(total), kBlock, 0, current_stream(-1)>>>(reinterpret_cast<const D*>(x),
                                                                             reinterpret_cast<D*>(y), planes, t);
  } else if constexpr (std::is_same_v<A, D>) {
    backward_kernel<D, D, A>
        <<<grid_for(total), kBlock, 0, current_stream(-1)>>>(reinterpret_cast<D*>(x), gy, planes, t);
  } else {
    const int64_t n = planes * g.in[0] * g.in[1] * g.in[2];
    DeviceArray<float> acc(n, device);
    acc.zero();
    backward_kernel<float, D, A><<<grid_for(total), kBlock, 0, current_stream(-1)>>>(acc.get(), gy, planes, t);
    round_into<D><<<grid_for(n), kBlock, 0, current_stream(-1)>>>(acc.get(), reinterpret_cast<D*>(x), n);
  }
  check_launch(backward ? "upsample backward kernel" : "upsample kernel");
}

}  // namespace

void upsample(const upsample::Geometry& g, ScalarType dt, int64_t planes, char* x, char* y, bool backward,
              const upsample::ClForm&) {
  if (planes * g.out[0] * g.out[1] * g.out[2] == 0) return;
  const int device = device_of(backward ? x : y, upsample::mode_name(g.mode, g.n));
  const LaunchDevice on(device);
  EMBER_DISPATCH_FLOAT(dt, upsample::mode_name(g.mode, g.n), [&] { run<scalar_t>(g, planes, x, y, backward, device); });
}

}  // namespace ember::cuda
