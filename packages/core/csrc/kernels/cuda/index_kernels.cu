// IndexKernels' CUDA entries along one dim: the range check of an index, gather / scatter (with
// every reduction of the CPU kernels: kernels/cpu/index/scatter_gather.cpp), index_select /
// index_copy / index_add / index_fill's whole slices and the flat take / put_ (index_rows.cpp).
// One thread per index element over a grid-stride loop; writes that may meet (scatter, index_add,
// put_ with accumulate) are atomic, so their order, and a float sum's last bits, is the device's.
// A plain write to one place from two indices keeps one of them, as in PyTorch on CUDA. The
// kernels check their indices (a bad one skipped and recorded, kernels/cuda/device_error.h), so
// none of these ops waits for the device.
#include "kernels/cuda/device_error.cuh"
#include "kernels/cuda/index_device.cuh"
#include "kernels/cuda/index_kernels.h"

namespace ember::cuda {

using namespace idx;
using indexing::Reduce;

namespace {

// [outer, n, inner] of a contiguous tensor around dim (a 0-d one as one element).
struct Split3 {
  int64_t outer = 1, n = 1, inner = 1;
};
Split3 split3(const Tensor& t, int64_t dim) {
  const DimVector s = indexing::sizes1(t);
  Split3 r;
  for (int64_t d = 0; d < dim; ++d) r.outer *= s[d];
  r.n = s[dim];
  for (int64_t d = dim + 1; d < static_cast<int64_t>(s.size()); ++d) r.inner *= s[d];
  return r;
}

__global__ void first_bad_kernel(const int64_t* p, int64_t n, int64_t size, unsigned long long* first) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    if (static_cast<uint64_t>(p[i]) >= static_cast<uint64_t>(size))
      atomicMin(first, static_cast<unsigned long long>(i));
}

// Index v of a dim of size n, checked and wrapped as `c` says: in range, or -1 once recorded
// for the next wait for the device (the caller then skips it).
__device__ __forceinline__ int64_t checked_index(int64_t v, int64_t n, const indexing::IndexCheck& c,
                                                 DeviceErrorRecord* err) {
  const int64_t w = c.negative_ok && v < 0 ? v + n : v;
  if (static_cast<uint64_t>(w) < static_cast<uint64_t>(n)) return w;
  report_device_error(err, c.code, v, c.dim, n);
  return -1;
}

// out (contiguous, the index's shape) = input at the index along dim; a bad index writes 0 and
// is recorded for the next wait for the device (never read outside the input).
template <class U>
__global__ void gather_kernel(const U* x, const int64_t* ip, U* out, const Geometry3 g, int dim, int64_t size,
                              int64_t n, DeviceErrorRecord* err) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t rem = i, xo = 0;
    for (int d = g.nd - 1; d >= 0; --d) {
      const int64_t c = rem % g.size[d];
      rem /= g.size[d];
      if (d != dim) xo += c * g.st[0][d];
    }
    const int64_t v = checked_index(ip[i], size, {kScatterGatherOutOfBounds, dim, false}, err);
    out[i] = v >= 0 ? x[xo + v * g.st[0][dim]] : U{};
  }
}

template <Reduce R, class D>
__device__ __forceinline__ void reduce_at(D* p, D s) {
  if constexpr (R == Reduce::None) *p = s;
  else if constexpr (R == Reduce::Add) atomic_add(p, s);
  else if constexpr (R == Reduce::Mul) atomic_apply(p, MulOf<D>{s});
  else if constexpr (R == Reduce::Max) atomic_apply(p, MaxOf<D>{s});
  else atomic_apply(p, MinOf<D>{s});
}

// self (strided) at the index along dim (op)= src (strided, the index's position) or the value; a
// bad index is recorded for the next wait for the device and writes nothing.
template <Reduce R, bool S, class D>
__global__ void scatter_kernel(D* self, const int64_t* ip, const D* src, D value, const Geometry3 g, int dim,
                               int64_t size, int64_t n, DeviceErrorRecord* err) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t rem = i, so = 0, ro = 0;
    for (int d = g.nd - 1; d >= 0; --d) {
      const int64_t c = rem % g.size[d];
      rem /= g.size[d];
      if (d != dim) so += c * g.st[0][d];
      ro += c * g.st[2][d];
    }
    const int64_t v = checked_index(ip[i], size, {kScatterGatherOutOfBounds, dim, false}, err);
    if (v >= 0) reduce_at<R>(self + so + v * g.st[0][dim], S ? src[ro] : value);
  }
}

// Position e of the [outer, m, inner] slab that the index's rows make: its block o, index i, column k.
struct RowPos {
  int64_t o, i, k;
};
__device__ __forceinline__ RowPos row_pos(int64_t e, int64_t m, int64_t inner) {
  const int64_t r = e / inner;
  return {r / m, r % m, e % inner};
}

// The slab kernels' common arguments: the index (m values) of a dim of n, rows of `inner`
// elements, `total` elements in the slab, the check and where a bad index goes.
struct Rows {
  const int64_t* ip;
  int64_t m, n, inner, total;
  indexing::IndexCheck check;
  DeviceErrorRecord* err;
};

template <class U>
__global__ void select_rows_kernel(const U* x, U* dst, const Rows r) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < r.total; e += int64_t(gridDim.x) * blockDim.x) {
    const RowPos p = row_pos(e, r.m, r.inner);
    const int64_t v = checked_index(r.ip[p.i], r.n, r.check, r.err);
    dst[e] = v >= 0 ? x[(p.o * r.n + v) * r.inner + p.k] : U{};
  }
}

template <class U>
__global__ void copy_rows_kernel(U* dst, const U* src, const Rows r) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < r.total; e += int64_t(gridDim.x) * blockDim.x) {
    const RowPos p = row_pos(e, r.m, r.inner);
    const int64_t v = checked_index(r.ip[p.i], r.n, r.check, r.err);
    if (v >= 0) dst[(p.o * r.n + v) * r.inner + p.k] = src[e];
  }
}

template <bool Unit, class D>
__global__ void add_rows_kernel(D* dst, const D* src, acc_t<D> a, const Rows r) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < r.total; e += int64_t(gridDim.x) * blockDim.x) {
    const RowPos p = row_pos(e, r.m, r.inner);
    const int64_t v = checked_index(r.ip[p.i], r.n, r.check, r.err);
    if (v < 0) continue;
    D* d = dst + (p.o * r.n + v) * r.inner + p.k;
    if constexpr (Unit) atomic_add(d, src[e]);
    else atomic_add_scaled(d, src[e], a);
  }
}

template <class U>
__global__ void fill_rows_kernel(U* dst, U value, const Rows r) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < r.total; e += int64_t(gridDim.x) * blockDim.x) {
    const RowPos p = row_pos(e, r.m, r.inner);
    const int64_t v = checked_index(r.ip[p.i], r.n, r.check, r.err);
    if (v >= 0) dst[(p.o * r.n + v) * r.inner + p.k] = value;
  }
}

// take / put_: the flat tensor as one row of n (its numel), m indices.
template <class U>
__global__ void take_kernel(const U* x, U* out, const Rows r) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < r.m; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t v = checked_index(r.ip[i], r.n, r.check, r.err);
    out[i] = v >= 0 ? x[v] : U{};
  }
}

template <bool Acc, class D>
__global__ void put_kernel(D* dst, const D* src, const Rows r) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < r.m; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t v = checked_index(r.ip[i], r.n, r.check, r.err);
    if (v < 0) continue;
    if constexpr (Acc) atomic_add(dst + v, src[i]);
    else dst[v] = src[i];
  }
}

// The slab of a contiguous t around dim that `index` picks, checked as `check` says.
Rows rows_of(const Tensor& t, int64_t dim, const Tensor& index, const indexing::IndexCheck& check) {
  const Split3 s = split3(t, dim);
  const int64_t m = index.numel();
  return {index.data<int64_t>(), m, s.n, s.inner, s.outer * m * s.inner, check, device_error_record(t.device().index)};
}

// take / put_'s flat tensor: one row of numel elements.
Rows flat_rows(const Tensor& t, const Tensor& index, const indexing::IndexCheck& check) {
  const int64_t m = index.numel();
  return {index.data<int64_t>(), m, t.numel(), 1, m, check, device_error_record(t.device().index)};
}

}  // namespace

int64_t first_out_of_range(const int64_t* ip, int64_t n, int64_t size) {
  if (n <= 0) return n;
  const int device = device_of(ip, "index");
  const LaunchDevice on(device);
  DeviceArray<unsigned long long> first(1, device);
  const cudaError_t e = cudaMemsetAsync(first.get(), 0xff, sizeof(unsigned long long), current_stream(-1));
  EMBER_CHECK(e == cudaSuccess, "CUDA error: ", cudaGetErrorString(e), " (index check)");
  first_bad_kernel<<<blocks_for(n), kBlock, 0, current_stream(-1)>>>(ip, n, size, first.get());
  check_launch("index range check");
  const unsigned long long r = first.first();
  return r < static_cast<unsigned long long>(n) ? static_cast<int64_t>(r) : n;
}

bool index_gather(const Tensor& input, int64_t dim, const Tensor& index, const Tensor& out) {
  const DimVector isz = indexing::sizes1(index), xst = indexing::strides1(input);
  const int64_t size = indexing::sizes1(input)[dim], n = index.numel();
  if (size == 0) return false;  // every index is out of range (the op has returned for an empty one)
  check_dims(static_cast<int64_t>(isz.size()), "gather");
  Geometry3 g{};
  g.nd = static_cast<int>(isz.size());
  for (int d = 0; d < g.nd; ++d) {
    g.size[d] = isz[d];
    g.st[0][d] = xst[d];
  }
  const LaunchDevice on(input.device().index);
  DeviceErrorRecord* err = device_error_record(input.device().index);
  by_itemsize(input.itemsize(), [&](auto tag) {
    using U = decltype(tag);
    gather_kernel<U><<<blocks_for(n), kBlock, 0, current_stream(-1)>>>(
        reinterpret_cast<const U*>(input.raw()), index.data<int64_t>(), reinterpret_cast<U*>(out.raw()), g,
        static_cast<int>(dim), size, n, err);
  });
  check_launch("gather kernel");
  return true;  // a bad index is the device's to report
}

void index_scatter(const char* name, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src,
                   const Tensor* value, Reduce red) {
  const int64_t n = index.numel();
  if (n == 0) return;
  const DimVector isz = indexing::sizes1(index), sst = indexing::strides1(self);
  check_dims(static_cast<int64_t>(isz.size()), name);
  Geometry3 g{};
  g.nd = static_cast<int>(isz.size());
  const DimVector rst = src ? indexing::strides1(*src) : DimVector(isz.size(), 0);
  for (int d = 0; d < g.nd; ++d) {
    g.size[d] = isz[d];
    g.st[0][d] = sst[d];
    g.st[2][d] = rst[d];
  }
  const LaunchDevice on(self.device().index);
  DeviceErrorRecord* err = device_error_record(self.device().index);
  const int64_t size = indexing::sizes1(self)[dim];
  EMBER_DISPATCH_ALL_AND_COMPLEX(self.dtype(), name, [&] {
    using D = dev_t<scalar_t>;
    D* sp = reinterpret_cast<D*>(self.raw());
    const D* rp = src ? reinterpret_cast<const D*>(src->raw()) : nullptr;
    const D v = src ? D{} : value_of<D>(*value);
    auto launch = [&](auto rc) {
      constexpr Reduce R = decltype(rc)::value;
      // a complex128 is two words: no compare-and-swap takes it whole
      if constexpr (sizeof(D) == 16 && R != Reduce::None && R != Reduce::Add) {
        dtype_not_implemented(name, self.dtype());
      } else {
        if (src)
          scatter_kernel<R, true, D><<<blocks_for(n), kBlock, 0, current_stream(-1)>>>(
              sp, index.data<int64_t>(), rp, v, g, static_cast<int>(dim), size, n, err);
        else
          scatter_kernel<R, false, D><<<blocks_for(n), kBlock, 0, current_stream(-1)>>>(
              sp, index.data<int64_t>(), rp, v, g, static_cast<int>(dim), size, n, err);
      }
    };
    switch (red) {
      case Reduce::None:
        return launch(std::integral_constant<Reduce, Reduce::None>{});
      case Reduce::Add:
        return launch(std::integral_constant<Reduce, Reduce::Add>{});
      case Reduce::Mul:
        return launch(std::integral_constant<Reduce, Reduce::Mul>{});
      case Reduce::Max:
        return launch(std::integral_constant<Reduce, Reduce::Max>{});
      case Reduce::Min:
        return launch(std::integral_constant<Reduce, Reduce::Min>{});
      default:
        fail(ErrorKind::Runtime, name, ": mean is the op's sum and count, never the kernel's");
    }
  });
  check_launch("scatter kernel");
}

bool select_rows(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& dst,
                 const indexing::IndexCheck& check) {
  const LaunchDevice on(x.device().index);
  const Rows r = rows_of(x, dim, index, check);
  if (r.total == 0) return true;
  by_itemsize(x.itemsize(), [&](auto tag) {
    using U = decltype(tag);
    select_rows_kernel<U><<<blocks_for(r.total), kBlock, 0, current_stream(-1)>>>(reinterpret_cast<const U*>(x.raw()),
                                                                                  reinterpret_cast<U*>(dst.raw()), r);
  });
  check_launch("index_select kernel");
  return true;  // a bad index is the device's to report
}

void copy_rows(const Tensor& dst, int64_t dim, const Tensor& index, const Tensor& src,
               const indexing::IndexCheck& check) {
  const LaunchDevice on(dst.device().index);
  const Rows r = rows_of(dst, dim, index, check);
  if (r.total == 0) return;
  by_itemsize(dst.itemsize(), [&](auto tag) {
    using U = decltype(tag);
    copy_rows_kernel<U><<<blocks_for(r.total), kBlock, 0, current_stream(-1)>>>(
        reinterpret_cast<U*>(dst.raw()), reinterpret_cast<const U*>(src.raw()), r);
  });
  check_launch("index_copy kernel");
}

void add_rows(const Tensor& dst, int64_t dim, const Tensor& index, const Tensor& src, const Scalar& alpha,
              const indexing::IndexCheck& check) {
  const LaunchDevice on(dst.device().index);
  const Rows r = rows_of(dst, dim, index, check);
  if (r.total == 0) return;
  EMBER_DISPATCH_ALL_AND_COMPLEX(dst.dtype(), "index_add", [&] {
    using D = dev_t<scalar_t>;
    using acc = opmath_t<scalar_t>;
    const acc a = alpha.to<acc>();
    acc_t<D> ad;
    static_assert(sizeof(ad) == sizeof(a), "op-math types agree");
    std::memcpy(&ad, &a, sizeof(a));
    D* dp = reinterpret_cast<D*>(dst.raw());
    const D* sp = reinterpret_cast<const D*>(src.raw());
    if (a == acc(1)) add_rows_kernel<true, D><<<blocks_for(r.total), kBlock, 0, current_stream(-1)>>>(dp, sp, ad, r);
    else add_rows_kernel<false, D><<<blocks_for(r.total), kBlock, 0, current_stream(-1)>>>(dp, sp, ad, r);
  });
  check_launch("index_add kernel");
}

void fill_rows(const Tensor& dst, int64_t dim, const Tensor& index, const Tensor& value,
               const indexing::IndexCheck& check) {
  const LaunchDevice on(dst.device().index);
  const Rows r = rows_of(dst, dim, index, check);
  if (r.total == 0) return;
  by_itemsize(dst.itemsize(), [&](auto tag) {
    using U = decltype(tag);
    fill_rows_kernel<U><<<blocks_for(r.total), kBlock, 0, current_stream(-1)>>>(reinterpret_cast<U*>(dst.raw()),
                                                                                value_of<U>(value), r);
  });
  check_launch("index_fill kernel");
}

void take(const Tensor& x, const Tensor& index, const Tensor& out, const indexing::IndexCheck& check) {
  if (index.numel() == 0) return;
  const LaunchDevice on(x.device().index);
  const Rows r = flat_rows(x, index, check);
  by_itemsize(x.itemsize(), [&](auto tag) {
    using U = decltype(tag);
    take_kernel<U><<<blocks_for(r.m), kBlock, 0, current_stream(-1)>>>(reinterpret_cast<const U*>(x.raw()),
                                                                       reinterpret_cast<U*>(out.raw()), r);
  });
  check_launch("take kernel");
}

void put(const Tensor& dst, const Tensor& index, const Tensor& src, bool accumulate,
         const indexing::IndexCheck& check) {
  if (index.numel() == 0) return;
  const LaunchDevice on(dst.device().index);
  const Rows r = flat_rows(dst, index, check);
  EMBER_DISPATCH_ALL_AND_COMPLEX(dst.dtype(), "put_", [&] {
    using D = dev_t<scalar_t>;
    D* dp = reinterpret_cast<D*>(dst.raw());
    const D* sp = reinterpret_cast<const D*>(src.raw());
    if (accumulate) put_kernel<true, D><<<blocks_for(r.m), kBlock, 0, current_stream(-1)>>>(dp, sp, r);
    else put_kernel<false, D><<<blocks_for(r.m), kBlock, 0, current_stream(-1)>>>(dp, sp, r);
  });
  check_launch("put kernel");
}

}  // namespace ember::cuda
