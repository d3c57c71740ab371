// gather and scatter along one dim (kernels/backend.h, IndexKernels): the element moves, line by
// line over every other dim; scatter's reductions folded into its inner loops.
#include <algorithm>
#include <array>
#include <atomic>
#include <type_traits>

#include "core/parallel.h"
#include "kernels/cpu/index/gather_contig.h"
#include "kernels/cpu/index/index_kernels.h"
#include "kernels/cpu/index/index_lines.h"

namespace ember::indexing {

// Checked in parallel; the first bad value in index order is the one reported.
int64_t first_out_of_range(const int64_t* p, int64_t n, int64_t size) {
  std::atomic<int64_t> first{n};
  GilRelease nogil;
  parallel_for(0, n, kGrainSize * 4, [&](int64_t b, int64_t e) {
    bool bad = false;
    for (int64_t i = b; i < e; ++i) bad |= static_cast<uint64_t>(p[i]) >= static_cast<uint64_t>(size);
    if (!bad) return;
    for (int64_t i = b; i < e; ++i)
      if (static_cast<uint64_t>(p[i]) >= static_cast<uint64_t>(size)) {
        int64_t cur = first.load();
        while (i < cur && !first.compare_exchange_weak(cur, i)) {
        }
        return;
      }
  });
  return first.load();
}

namespace {

// One line of len picks from the row at xx: inline when short, else gather_contig (float/double).
template <class U>
inline bool gather_line(const U* xx, const int64_t* ii, U* oo, int64_t len, int64_t size) {
  if ((sizeof(U) == 4 || sizeof(U) == 8) && len >= 64)
    return (sizeof(U) == 8 ? gather_contig<8> : gather_contig<4>)(xx, ii, len, size, oo);
  bool bad = false;
  for (int64_t j = 0; j < len; ++j) {
    const uint64_t v = static_cast<uint64_t>(ii[j]);
    bad |= v >= static_cast<uint64_t>(size);
    oo[j] = xx[v < static_cast<uint64_t>(size) ? v : 0];  // a clamped load: never outside the row
  }
  return !bad;
}

// gather's lines along a contiguous last dim (unit strides in input and index): [b, e) of them,
// the input's offset counted up line by line over the outer dims (no division per line); one
// pick per row (as a loss picks its targets) is a loop of its own. False: an index was out of range.
template <class U>
bool gather_last_dim_lines(const U* x, const int64_t* ip, U* o, const DimVector& isz, const DimVector& xst,
                           int64_t size, int64_t b, int64_t e) {
  const int64_t nd = static_cast<int64_t>(isz.size()), len = isz[nd - 1];
  bool ok = true;
  if (nd <= 2) {  // one row stride: the common 2-d gather(x, 1, idx)
    const int64_t xrow = nd == 2 ? xst[0] : 0;
    if (len == 1) {  // one pick per row
      bool bad = false;
      for (int64_t r = b; r < e; ++r) {
        const uint64_t v = static_cast<uint64_t>(ip[r]);
        bad |= v >= static_cast<uint64_t>(size);
        o[r] = x[r * xrow + static_cast<int64_t>(v < static_cast<uint64_t>(size) ? v : 0)];
      }
      return !bad;
    }
    for (int64_t r = b; r < e; ++r) ok &= gather_line<U>(x + r * xrow, ip + r * len, o + r * len, len, size);
    return ok;
  }
  DimVector c(static_cast<size_t>(nd - 1), 0);
  int64_t rem = b, xo = 0;
  for (int64_t k = nd - 2; k >= 0; --k) {
    c[k] = rem % isz[k];
    rem /= isz[k];
    xo += c[k] * xst[k];
  }
  for (int64_t r = b; r < e; ++r) {
    ok &= gather_line<U>(x + xo, ip + r * len, o + r * len, len, size);
    for (int64_t k = nd - 2; k >= 0; --k) {  // the next line's input offset
      xo += xst[k];
      if (++c[k] < isz[k]) break;
      xo -= isz[k] * xst[k];
      c[k] = 0;
    }
  }
  return ok;
}

}  // namespace

// Bounds are checked inside the copy loop (never reading outside); the op raises afterwards.
bool gather(const Tensor& input, int64_t d, const Tensor& idx, const Tensor& out) {
  int64_t size = sizes1(input)[d];
  if (size == 0) return false;  // (the op has returned for an empty index) every index is out of range
  std::atomic<bool> bad{false};
  DimVector isz = sizes1(idx);
  std::array<DimVector, 2> st{strides1(input), contiguous_strides(isz)};
  int64_t xs = st[0][d], is = st[1][d];
  const int64_t* ip = idx.data<int64_t>();
  const char* xp = input.raw();
  char* op = out.raw();
  by_itemsize(input.itemsize(), [&](auto tag) {
    using U = decltype(tag);
    const U* x = reinterpret_cast<const U*>(xp);
    U* o = reinterpret_cast<U*>(op);
    // d is the last dim, unit stride in the input too (a size-1 last dim also has unit strides
    // where d is another dim: the dim itself is checked)
    if (d == static_cast<int64_t>(isz.size()) - 1 && is == 1 && xs == 1) {
      const int64_t len = isz[d], lines = idx.numel() / len;
      GilRelease nogil;
      parallel_for(0, lines, std::max<int64_t>(1, kGrainSize / len), [&](int64_t b, int64_t e) {
        if (!gather_last_dim_lines<U>(x, ip, o, isz, st[0], size, b, e)) bad = true;
      });
      return;
    }
    // out is contiguous with index's shape, so its offsets equal the index's.
    for_each_line<2>(isz, d, st, kGrainSize, [&](const std::array<int64_t, 2>& off, int64_t len) {
      bool b = false;
      for (int64_t j = 0; j < len; ++j) {
        uint64_t v = static_cast<uint64_t>(ip[off[1] + j * is]);
        b |= v >= static_cast<uint64_t>(size);
        o[off[1] + j * is] = v < static_cast<uint64_t>(size) ? x[off[0] + static_cast<int64_t>(v) * xs] : U{};
      }
      if (b) bad = true;
    });
  });
  return !bad;
}

namespace {

template <Reduce R, typename scalar_t>
inline void reduce_into(scalar_t& d, scalar_t s) {
  using acc = opmath_t<scalar_t>;
  if constexpr (R == Reduce::None) d = s;
  else if constexpr (R == Reduce::Add) d = static_cast<scalar_t>(acc(d) + acc(s));
  else if constexpr (R == Reduce::Mul) d = static_cast<scalar_t>(acc(d) * acc(s));
  else if constexpr (is_complex_v<scalar_t>) return;  // no order: the ops refuse amax / amin first
  // NaN wins (as PyTorch): a NaN source replaces, a NaN destination stays.
  else if constexpr (R == Reduce::Max) {
    if (acc(s) != acc(s) || acc(s) > acc(d)) d = s;
  } else if constexpr (R == Reduce::Min) {
    if (acc(s) != acc(s) || acc(s) < acc(d)) d = s;
  }
}

// Calls f with the reduction and "has a source tensor" as compile-time constants, so
// the inner loops carry no per-element branch on either.
template <typename F>
void dispatch_reduce(Reduce red, bool has_src, const F& f) {
  auto with_src = [&](auto r) {
    if (has_src) f(r, std::true_type{});
    else f(r, std::false_type{});
  };
  switch (red) {
    case Reduce::None:
      with_src(std::integral_constant<Reduce, Reduce::None>{});
      break;
    case Reduce::Add:
      with_src(std::integral_constant<Reduce, Reduce::Add>{});
      break;
    case Reduce::Mul:
      with_src(std::integral_constant<Reduce, Reduce::Mul>{});
      break;
    case Reduce::Max:
      with_src(std::integral_constant<Reduce, Reduce::Max>{});
      break;
    case Reduce::Min:
      with_src(std::integral_constant<Reduce, Reduce::Min>{});
      break;
    default:
      break;
  }
}

}  // namespace

// self[..., idx, ...] (op)= src (or value) along `dim`, in place with self's strides.
void scatter(const char* name, const Tensor& self, int64_t dim, const Tensor& idx, const Tensor* src,
             const Tensor* value, Reduce red) {
  DimVector isz = sizes1(idx);
  std::array<DimVector, 3> st{strides1(self), contiguous_strides(isz), src ? strides1(*src) : DimVector(isz.size(), 0)};
  if (st[1].size() == 0) st[1] = {1};
  int64_t ss = st[0][dim], is = st[1][dim], rs = st[2][dim];
  const int64_t* ip = idx.data<int64_t>();
  EMBER_DISPATCH_ALL_AND_COMPLEX(self.dtype(), name, [&] {
    scalar_t* sp = self.data<scalar_t>();
    const scalar_t* rp = src ? src->data<scalar_t>() : value->data<scalar_t>();
    dispatch_reduce(red, src != nullptr, [&](auto rc, auto has_src) {
      constexpr Reduce R = decltype(rc)::value;
      constexpr bool S = decltype(has_src)::value;
      int64_t nd = static_cast<int64_t>(isz.size());
      GilRelease nogil;
      if (nd >= 2 && dim == nd - 2) {
        // Row-major walk (dim, then the last dim) for cache locality; threads split the
        // last dim, whose positions never collide in self.
        int64_t n = isz[dim], K = isz[nd - 1], outer = 1;
        for (int64_t d = 0; d < dim; ++d) outer *= isz[d];
        int64_t chunks = std::min<int64_t>(K, std::max(1, get_num_threads()));
        int64_t kstep = (K + chunks - 1) / chunks;
        int64_t sk = st[0][nd - 1], ik = st[1][nd - 1], rk = st[2][nd - 1];
        parallel_for(0, outer * chunks, 1, [&](int64_t b, int64_t e) {
          for (int64_t p = b; p < e; ++p) {
            int64_t o = p / chunks, k0 = (p % chunks) * kstep, k1 = std::min(K, k0 + kstep);
            int64_t so = 0, io = 0, ro = 0, rem = o;
            for (int64_t d = dim - 1; d >= 0; --d) {
              int64_t c = rem % isz[d];
              rem /= isz[d];
              so += c * st[0][d];
              io += c * st[1][d];
              ro += c * st[2][d];
            }
            scalar_t* sb = sp + so + k0 * sk;
            const int64_t* ib = ip + io + k0 * ik;
            const scalar_t* rb = rp + (S ? ro + k0 * rk : 0);
            int64_t len = k1 - k0;
            if (sk == 1 && ik == 1 && (!S || rk == 1)) {  // unit inner strides: the common case
              for (int64_t j = 0; j < n; ++j, ib += is, rb += S ? rs : 0)
                for (int64_t k = 0; k < len; ++k) reduce_into<R>(sb[ib[k] * ss + k], S ? rb[k] : rb[0]);
            } else {
              for (int64_t j = 0; j < n; ++j, ib += is, rb += S ? rs : 0)
                for (int64_t k = 0; k < len; ++k) reduce_into<R>(sb[ib[k * ik] * ss + k * sk], S ? rb[k * rk] : rb[0]);
            }
          }
        });
        return;
      }
      for_each_line<3>(isz, dim, st, kGrainSize, [&](const std::array<int64_t, 3>& off, int64_t len) {
        for (int64_t j = 0; j < len; ++j)
          reduce_into<R>(sp[off[0] + ip[off[1] + j * is] * ss], S ? rp[off[2] + j * rs] : rp[0]);
      });
    });
  });
}

}  // namespace ember::indexing
