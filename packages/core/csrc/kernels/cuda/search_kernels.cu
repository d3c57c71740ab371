// Binning and counting on the GPU (kernels/cpu/index/search_kernels.cpp on the CPU): searchsorted's
// binary search, a thread per value; bincount and histc's counts added atomically (histc counts
// in double, exact, then rounds once into the output's dtype, as the CPU kernel does). Every
// array is device memory: the op bodies (ops/index/index_search.cpp) convert the values to double
// on the device and check indices there before these run.
#include "kernels/cuda/index_device.cuh"
#include "kernels/cuda/index_kernels.h"

namespace ember::cuda {

using namespace idx;

namespace {

template <class O>
__global__ void search_kernel(const indexing::SearchArgs a, O* out) {
  const int64_t per_row = a.rows_in > 1 ? a.n_values / a.rows_in : a.n_values;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < a.n_values;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t row = a.rows_in > 1 ? i / (per_row > 1 ? per_row : 1) : 0;
    const double* base = a.boundaries + row * a.len;
    const int64_t* ord = a.order ? a.order + row * a.len : nullptr;
    const double x = a.values[i];
    int64_t l = 0, h = a.len;
    while (l < h) {
      const int64_t m = l + (h - l) / 2;
      const double b = ord ? base[ord[m]] : base[m];
      // PyTorch's comparisons: a NaN value goes past every boundary (index len).
      const bool go_right = a.right ? !(b > x) : !(b >= x);
      if (go_right) l = m + 1;
      else h = m;
    }
    out[i] = static_cast<O>(l);
  }
}

template <class S>
__global__ void bincount_kernel(const int64_t* ip, const S* w, int64_t n, S* out) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    if constexpr (std::is_same_v<S, int64_t>) atomic_add(out + ip[i], int64_t(1));
    else atomic_add(out + ip[i], w[i]);
  }
}

// The CPU kernel's bin arithmetic: edges and every step rounded to the input's dtype T.
template <class T>
__global__ void histc_kernel(const double* v, int64_t n, T l, T h, int64_t bins, double* counts) {
  using A = acc_t<T>;
  const T nb = static_cast<T>(A(bins));
  const T width = static_cast<T>(A(h) - A(l));
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const T x = static_cast<T>(v[i]);
    if (!(A(x) >= A(l) && A(x) <= A(h))) continue;  // NaN is skipped too
    const T d = static_cast<T>(A(x) - A(l));
    const T pos = static_cast<T>(A(static_cast<T>(A(d) * A(nb))) / A(width));
    int64_t b = static_cast<int64_t>(A(pos));
    if (b >= bins) b = bins - 1;
    atomicAdd(counts + b, 1.0);
  }
}

template <class T>
__global__ void store_counts_kernel(const double* counts, int64_t bins, T* out) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < bins; i += int64_t(gridDim.x) * blockDim.x)
    out[i] = static_cast<T>(counts[i]);
}

}  // namespace

void searchsorted(const indexing::SearchArgs& a, const Tensor& out) {
  if (a.n_values == 0) return;
  const LaunchDevice on(out.device().index);
  if (out.dtype() == ScalarType::Int32)
    search_kernel<int32_t><<<blocks_for(a.n_values), kBlock, 0, current_stream(-1)>>>(a, out.data<int32_t>());
  else search_kernel<int64_t><<<blocks_for(a.n_values), kBlock, 0, current_stream(-1)>>>(a, out.data<int64_t>());
  check_launch("searchsorted kernel");
}

void bincount(const Tensor& index, const Tensor& weights, const Tensor& out) {
  const int64_t n = index.numel();
  if (n == 0) return;
  const LaunchDevice on(out.device().index);
  const int64_t* ip = index.data<int64_t>();
  if (!weights.defined())
    bincount_kernel<int64_t><<<blocks_for(n), kBlock, 0, current_stream(-1)>>>(ip, nullptr, n, out.data<int64_t>());
  else if (out.dtype() == ScalarType::Float32)
    bincount_kernel<float>
        <<<blocks_for(n), kBlock, 0, current_stream(-1)>>>(ip, weights.data<float>(), n, out.data<float>());
  else
    bincount_kernel<double>
        <<<blocks_for(n), kBlock, 0, current_stream(-1)>>>(ip, weights.data<double>(), n, out.data<double>());
  check_launch("bincount kernel");
}

void histc(const double* v, int64_t n, double lo, double hi, const Tensor& out) {
  const int64_t bins = out.numel();
  if (bins == 0) return;
  const int device = out.device().index;
  const LaunchDevice on(device);
  DeviceArray<double> counts(bins, device);
  counts.zero();
  EMBER_DISPATCH_FLOAT(out.dtype(), "histc", [&] {
    using T = scalar_t;
    if (n > 0)
      histc_kernel<T><<<blocks_for(n), kBlock, 0, current_stream(-1)>>>(v, n, static_cast<T>(lo), static_cast<T>(hi),
                                                                        bins, counts.get());
    store_counts_kernel<T><<<blocks_for(bins), kBlock, 0, current_stream(-1)>>>(counts.get(), bins, out.data<T>());
  });
  check_launch("histc kernel");
}

}  // namespace ember::cuda
