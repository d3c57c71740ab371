// torch.constant_pad_nd: a filled tensor with the input copied into its middle.
// Negative pads crop, so the copy is between two narrowed views.
#include "iter/elementwise_iter.h"
#include "ops.h"
#include "ops/core/internal.h"

namespace ember {

Tensor constant_pad_nd(const Tensor& input, IntArrayRef pad, const Scalar& value) {
  const int64_t n = static_cast<int64_t>(pad.size()), nd = input.dim();
  EMBER_CHECK(n % 2 == 0, "Length of pad must be even but instead it equals ", n);
  EMBER_CHECK(n / 2 <= nd, "Length of pad should be no more than twice the number of dimensions of the input. ",
              "Pad length is ", n, "while the input has ", nd, "dimensions.");
  // aten first narrows the input by the negative pads, leading dim first (its own error for a
  // crop longer than the dim), then checks the output sizes.
  for (int64_t d = nd - n / 2; d < nd; ++d) {
    __int128 cur = input.size(d);
    for (int64_t p : {pad[2 * (nd - 1 - d)], pad[2 * (nd - 1 - d) + 1]}) {
      if (p >= 0) continue;
      cur += p;
      EMBER_CHECK(cur >= 0, "narrow(): length must be non-negative.");
    }
  }
  DimVector out_sizes(input.sizes().begin(), input.sizes().end());
  for (int64_t i = 0; i < n / 2; ++i) {
    const int64_t d = nd - 1 - i, before = pad[2 * i], after = pad[2 * i + 1];
    // 128-bit: paddings are user values (2**62 and -2**63 included)
    const __int128 size128 = static_cast<__int128>(input.size(d)) + before + after;
    EMBER_CHECK(size128 <= INT64_MAX, "pad: the padded size of dimension ", d, " overflows: ", input.size(d), " + ",
                before, " + ", after);
    const int64_t size = size128 < 0 || before == INT64_MIN || after == INT64_MIN ? -1 : static_cast<int64_t>(size128);
    EMBER_CHECK(size >= 0, "The input size ", input.size(d), ", plus negative padding ", before, " and ", after,
                " resulted in a negative output size, which is invalid. Check dimension ", d, " of your input.");
    out_sizes[d] = size;
  }
  // aten allocates in the input's suggested layout (channels-last stays so)
  const MemoryFormat mf = suggest_memory_format(input);
  Tensor out = mf == MemoryFormat::Contiguous
                   ? full(out_sizes, value, input.dtype(), input.device())
                   : fill_(empty_in_format(out_sizes, mf, input.dtype(), input.device()), value);
  Tensor dst = out, src = input;
  for (int64_t i = 0; i < n / 2; ++i) {
    const int64_t d = nd - 1 - i, before = pad[2 * i], after = pad[2 * i + 1];
    // where the kept part of the input lands, and which part of the input is kept
    const int64_t src_start = before < 0 ? -before : 0;
    const int64_t src_len = input.size(d) - src_start - (after < 0 ? -after : 0);
    if (src_len <= 0) return out;
    src = narrow(src, d, src_start, src_len);
    dst = narrow(dst, d, before > 0 ? before : 0, src_len);
  }
  if (src.numel() > 0) copy_into(dst, src);
  return out;
}

}  // namespace ember
