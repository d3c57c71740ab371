// Boolean-mask ops: nonzero / argwhere, masked_fill, masked_select. Counting
// passes run per chunk in parallel, then a prefix sum places each chunk's output.
#include <cstring>
#include <vector>

#include "iter/elementwise_iter.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"
#include "ops/index/index_common.h"

namespace ember {

using namespace index_detail;

namespace {

Tensor dense(const Tensor& t) { return t.is_contiguous() ? t : contiguous(t, MemoryFormat::Contiguous); }

// Nonzero flags of t (any dtype) as a contiguous bool tensor.
Tensor truth(const Tensor& t) {
  if (t.dtype() == ScalarType::Bool) return dense(t);
  return dense(ne(t, wrap_scalar(Scalar(int64_t(0)))));
}

// Per-chunk counts of true flags and their exclusive prefix sums.
struct Chunks {
  int64_t n = 0, chunk = 1, count = 0;
  std::vector<int64_t> start;
};

Chunks count_true(const bool* m, int64_t n) {
  Chunks c;
  c.n = n;
  int nt = std::max(1, get_num_threads());
  c.chunk = std::max<int64_t>(kGrainSize, (n + nt - 1) / nt);
  int64_t k = (n + c.chunk - 1) / c.chunk;
  std::vector<int64_t> cnt(k, 0);
  parallel_for(0, k, 1, [&](int64_t b, int64_t e) {
    for (int64_t j = b; j < e; ++j) {
      int64_t s = 0, lo = j * c.chunk, hi = std::min(n, lo + c.chunk);
      for (int64_t i = lo; i < hi; ++i) s += m[i];
      cnt[j] = s;
    }
  });
  c.start.resize(k + 1, 0);
  for (int64_t j = 0; j < k; ++j) c.start[j + 1] = c.start[j] + cnt[j];
  c.count = c.start[k];
  return c;
}

void check_bool_mask(const char* name, const Tensor& mask) {
  EMBER_CHECK(mask.dtype() == ScalarType::Bool, name, " only supports boolean masks, but got mask with dtype ",
              dtype_name(mask.dtype()));
}

}  // namespace

Tensor nonzero_out(const Tensor& input, const Tensor& out) {
  EMBER_CHECK(out.dtype() == ScalarType::Int64,
              "nonzero: Expected out tensor to have scalar type Long but got scalar type", dtype_name(out.dtype()));
  Tensor m = truth(input);
  const bool* mp = m.data<bool>();
  Chunks c = count_true(mp, m.numel());
  int64_t nd = input.dim();
  resize_out(out, {c.count, nd});
  int64_t* op = out.data<int64_t>();
  DimVector sz(input.sizes().begin(), input.sizes().end());
  int64_t k = static_cast<int64_t>(c.start.size()) - 1;
  parallel_for(0, k, 1, [&](int64_t b, int64_t e) {
    for (int64_t j = b; j < e; ++j) {
      int64_t lo = j * c.chunk, hi = std::min(c.n, lo + c.chunk);
      int64_t* w = op + c.start[j] * nd;
      // Coordinates of `lo`, then advanced like an odometer.
      DimVector coord(nd, 0);
      int64_t rem = lo;
      for (int64_t d = nd - 1; d >= 0; --d) {
        coord[d] = rem % sz[d];
        rem /= sz[d];
      }
      for (int64_t i = lo; i < hi; ++i) {
        if (mp[i]) {
          for (int64_t d = 0; d < nd; ++d) w[d] = coord[d];
          w += nd;
        }
        for (int64_t d = nd - 1; d >= 0; --d) {
          if (++coord[d] < sz[d]) break;
          coord[d] = 0;
        }
      }
    }
  });
  out.bump_version();
  return out;
}

Tensor nonzero(const Tensor& input) {
  Tensor out = empty({0}, ScalarType::Int64, input.device());
  return nonzero_out(input, out);
}

Tensor argwhere(const Tensor& input) { return nonzero(input); }

// ---- masked_fill -------------------------------------------------------------

Tensor masked_fill_(const Tensor& self, const Tensor& mask, const Scalar& value) {
  check_inplace(self, "masked_fill_");
  check_bool_mask("masked_fill_", mask);
  DimVector bs = broadcast_shapes(self.sizes(), mask.sizes());
  EMBER_CHECK(same_shape(bs, self.sizes()), "masked_fill_: the size of the mask ", shape_str(mask.sizes()),
              " must be broadcastable to the size of self ", shape_str(self.sizes()));
  EMBER_DISPATCH_ALL_AND_COMPLEX(self.dtype(), "masked_fill_",
                                 [&] { (void)value.checked<scalar_t>(); });  // must fit, as fill_
  Tensor v = scalar_tensor(value, self.dtype());
  Tensor m = dense(expand(mask, self.sizes(), false));
  const bool* mp = m.data<bool>();
  if (has_internal_overlap(self)) {
    // PyTorch only warns for an expanded self (deprecated) and writes through its strides: a
    // shared location takes the value when any element on it is masked.
    const size_t isz = self.itemsize();
    for_each_element(self, [&](int64_t e, const DimVector&, int64_t off) {
      if (mp[e]) std::memcpy(static_cast<char*>(self.storage().data) + static_cast<size_t>(off) * isz, v.raw(), isz);
    });
    self.bump_version();
    return self;
  }
  Tensor dst = self.is_contiguous() ? self : clone(self, MemoryFormat::Contiguous);
  by_itemsize(self.itemsize(), [&](auto tag) {
    using U = decltype(tag);
    U val;
    std::memcpy(&val, v.raw(), sizeof(U));
    U* dp = dst.data<U>();
    parallel_for(0, dst.numel(), kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        if (mp[i]) dp[i] = val;
    });
  });
  if (!dst.same(self)) copy_into(self, dst);
  self.bump_version();
  return self;
}

Tensor masked_fill(const Tensor& input, const Tensor& mask, const Scalar& value) {
  check_bool_mask("masked_fill_", mask);
  DimVector bs = broadcast_shapes(input.sizes(), mask.sizes());
  Tensor out = clone(expand(input, bs, false), MemoryFormat::Contiguous);
  return masked_fill_(out, mask, value);
}

Tensor masked_fill_(const Tensor& self, const Tensor& mask, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  return masked_fill_(self, mask, value.item());
}

Tensor masked_fill(const Tensor& input, const Tensor& mask, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  return masked_fill(input, mask, value.item());
}

// ---- masked_select -------------------------------------------------------------

Tensor masked_select_out(const Tensor& input, const Tensor& mask, const Tensor& out) {
  EMBER_CHECK(mask.dtype() == ScalarType::Bool, "masked_select: expected BoolTensor for mask");
  EMBER_CHECK(out.dtype() == input.dtype(), "masked_select(): self and result must have the same scalar type");
  // aten's order: out= may neither overlap itself (an expanded out) nor its inputs.
  check_no_internal_overlap(out);
  check_no_overlap(out, input);
  check_no_overlap(out, mask);
  DimVector bs = broadcast_shapes(input.sizes(), mask.sizes());
  Tensor x = dense(expand(input, bs, false));
  Tensor m = dense(expand(mask, bs, false));
  const bool* mp = m.data<bool>();
  Chunks c = count_true(mp, m.numel());
  resize_out(out, {c.count});
  int64_t k = static_cast<int64_t>(c.start.size()) - 1;
  by_itemsize(x.itemsize(), [&](auto tag) {
    using U = decltype(tag);
    const U* xp = x.data<U>();
    U* op = out.data<U>();
    parallel_for(0, k, 1, [&](int64_t b, int64_t e) {
      for (int64_t j = b; j < e; ++j) {
        int64_t lo = j * c.chunk, hi = std::min(c.n, lo + c.chunk);
        U* w = op + c.start[j];
        for (int64_t i = lo; i < hi; ++i)
          if (mp[i]) *w++ = xp[i];
      }
    });
  });
  out.bump_version();
  return out;
}

Tensor masked_select(const Tensor& input, const Tensor& mask) {
  Tensor out = empty({0}, input.dtype(), input.device());
  return masked_select_out(input, mask, out);
}

}  // namespace ember
