// pixel_shuffle / pixel_unshuffle: a reshape, a permute and a copy.
#include "core/size_math.h"
#include "ops.h"
#include "ops/core/checks.h"
#include "ops/core/internal.h"

namespace ember {

namespace {

Tensor permuted_copy(const Tensor& x, const DimVector& mid, const DimVector& perm_tail, const DimVector& out_tail) {
  const int64_t lead = x.dim() - 3;
  DimVector shape(x.sizes().begin(), x.sizes().begin() + lead), perm, out(shape);
  const int64_t base = static_cast<int64_t>(shape.size());
  for (int64_t m : mid) shape.push_back(m);
  for (int64_t i = 0; i < base; ++i) perm.push_back(i);
  for (int64_t p : perm_tail) perm.push_back(base + p);
  for (int64_t o : out_tail) out.push_back(o);
  // nothing to move: the intermediate shape's strides could overflow (a factor of 2**32) where aten's do not
  if (x.numel() == 0) return empty(out, x.dtype(), x.device());
  // clone, not contiguous: a factor of 1 permutes only size-1 dims, and aten's result is never an alias
  Tensor r = clone(permute(reshape(x, shape), perm), MemoryFormat::Contiguous);
  return reshape(r, out);
}

}  // namespace

Tensor pixel_shuffle(const Tensor& input, int64_t upscale_factor) {
  EMBER_CHECK(input.dim() >= 3, "pixel_shuffle expects input to have at least 3 dimensions, but got input with ",
              input.dim(), " dimension(s)");
  EMBER_CHECK(upscale_factor > 0, "pixel_shuffle expects a positive upscale_factor, but got ", upscale_factor);
  const int64_t r = upscale_factor, c = input.size(-3), h = input.size(-2), w = input.size(-1);
  int64_t r2 = 0;
  EMBER_CHECK_VALUE(!__builtin_mul_overflow(r, r, &r2),
                    "upscale factor is too large, (upscale_factor)^2 overflowed: upscale_factor=", r);
  EMBER_CHECK(c % r2 == 0, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the ",
              "square of upscale_factor, but input.size(-3)=", c, " is not divisible by ", r * r);
  const int64_t oc = c / r2;
  no_shell_unsigned("pixel_shuffle", input.dtype());
  // (aten's kernel keeps a channels-last input's layout)
  return in_memory_format(permuted_copy(input, {oc, r, r, h, w}, {0, 3, 1, 4, 2},
                                        {oc, mul_or_fail(h, r, "pixel_shuffle"), mul_or_fail(w, r, "pixel_shuffle")}),
                          suggest_memory_format(input));
}

Tensor pixel_unshuffle(const Tensor& input, int64_t downscale_factor) {
  EMBER_CHECK(input.dim() >= 3, "pixel_unshuffle expects input to have at least 3 dimensions, but got input with ",
              input.dim(), " dimension(s)");
  EMBER_CHECK(downscale_factor > 0, "pixel_unshuffle expects a positive downscale_factor, but got ", downscale_factor);
  const int64_t r = downscale_factor, c = input.size(-3), h = input.size(-2), w = input.size(-1);
  EMBER_CHECK(h % r == 0, "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=", h,
              " is not divisible by ", r);
  EMBER_CHECK(w % r == 0, "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=", w,
              " is not divisible by ", r);
  const int64_t oc = mul_or_fail(mul_or_fail(c, r, "pixel_unshuffle"), r, "pixel_unshuffle");
  no_shell_unsigned("pixel_unshuffle", input.dtype());
  return in_memory_format(permuted_copy(input, {c, h / r, r, w / r, r}, {0, 2, 4, 1, 3}, {oc, h / r, w / r}),
                          suggest_memory_format(input));
}

}  // namespace ember
