// Copy/cast and where (compiled once per CPU capability), and fill_cpu, which puts them and the
// reduce/ kernels (reduce_kernels.cpp, arg_reduce_scan_kernels.cpp) into the CPU backend table.
#include <cstring>
#include <type_traits>

#include "iter/elementwise_iter.h"
#include "kernels/backend.h"
#include "kernels/cpu/loops.h"

namespace ember::cpu::EMBER_CAP {

void reduce_kernel(ReduceIter& it, ReduceKind kind);
void arg_reduce_kernel(const Tensor& in, const Tensor& values, const Tensor& indices, bool is_max);
void cumulative_kernel(const Tensor& in, const Tensor& out, int64_t dim, bool is_prod);

namespace {

void copy_kernel(ElementwiseIter& it) {
  EMBER_DISPATCH_ALL(it.compute_dtype(), "copy_", [&] {
    using dst_t = scalar_t;
    EMBER_DISPATCH_ALL(it.input_dtype(0), "copy_", [&] {
      using src_t = scalar_t;
      it.for_each([](char** d, const int64_t* s, int64_t n) {
        if constexpr (std::is_same_v<dst_t, src_t>) {
          if (s[0] == sizeof(dst_t) && s[1] == sizeof(src_t)) {
            std::memcpy(d[0], d[1], n * sizeof(dst_t));
            return;
          }
          if (s[0] == sizeof(dst_t) && s[1] == 0) {  // a broadcast row (expanded dim innermost)
            std::fill_n(reinterpret_cast<dst_t*>(d[0]), n, *reinterpret_cast<const src_t*>(d[1]));
            return;
          }
        }
        unary_loop<dst_t, src_t>(d, s, n, [](auto x) { return x; });
      });
    });
  });
}

void where_kernel(ElementwiseIter& it) {
  EMBER_DISPATCH_ALL(it.compute_dtype(), "where_cpu", [&] {
    it.for_each([](char** d, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        bool c = *reinterpret_cast<const bool*>(d[1] + i * s[1]);
        *reinterpret_cast<scalar_t*>(d[0] + i * s[0]) =
            *reinterpret_cast<const scalar_t*>(c ? d[2] + i * s[2] : d[3] + i * s[3]);
      }
    });
  });
}

}  // namespace

void fill_cpu(Backend& b) {
  b.copy.copy = copy_kernel;
  b.copy.where = where_kernel;
  b.reduce.reduce = reduce_kernel;
  b.reduce.arg_reduce = arg_reduce_kernel;
  b.reduce.cumulative = cumulative_kernel;
}

}  // namespace ember::cpu::EMBER_CAP
